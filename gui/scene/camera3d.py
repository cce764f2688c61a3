"""Where the 3-D camera looks and where the ground lies, from the model and its poses.

All in view coordinates (z against gravity, see `gui.scene.geometry.up_basis`). The ground is the plane
a disk rolls on; else the pivot plane when the mechanism starts standing on its pivots (a top);
else just below everything the mechanism can swing to, so a hanging chain hangs above it instead
of seeming to lie on it. The camera looks at the middle of the mechanism from a fixed elevation
and backs off as far as needed to show all of it (`Framing.needed_distance`); during a run it only
ever backs off further, as the mechanism reaches further, and a travelling body is followed. The
shadow is not framed: it lies a mechanism's height below a top, and framing it too left the
mechanism half the view's height (it may be cut at the view's edge).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.model import GROUND, Model, joint_type

#: view elevation (degrees) above the horizon and azimuth round the up axis (pyqtgraph's)
ELEVATION, AZIMUTH = 24.0, -55.0
#: the framed points stay within this fraction of the view's half width and half height
MARGIN_START, MARGIN_RUN = 0.8, 0.92
#: the camera keeps this share of the mechanism's size above the ground when the user orbits
#: (below it the opaque ground hides every solid)
FLOOR_CLEARANCE = 0.05


def travels(model: Model) -> bool:
    return any(b.parent == GROUND and joint_type(b.joint.type).travels for b in model.bodies)


def swing_radius(model: Model, points: np.ndarray, fixed: np.ndarray, reach: float) -> float:
    """How far below its anchors the mechanism can get: the tree's reach, or for a constrained
    mechanism (which stays near where it starts, and whose sliders would make the reach
    meaningless) the furthest point of its first pose from its nearest anchor."""
    if model.constraints and len(points):
        gaps = np.linalg.norm(points[:, None, :] - fixed[None, :, :], axis=2)
        return float(np.max(np.min(gaps, axis=1)))
    return reach


def anchors(model: Model, turn: np.ndarray) -> np.ndarray:
    """Fixed points the mechanism hangs from or is tied to (view coordinates): the ground ends
    of the root joints that do not travel and the ground points of constraints."""
    points = [b.joint.at for b in model.bodies if b.parent == GROUND and not joint_type(b.joint.type).travels]
    for c in model.constraints:
        points += [ref.point for ref in (getattr(c, "a", None), getattr(c, "b", None))
                   if ref is not None and ref.body == GROUND]
    return np.asarray(points, dtype=float).reshape(-1, 3) @ turn.T


def floor_height(model: Model, points: np.ndarray, centres: np.ndarray, fixed: np.ndarray, reach: float,
                 rolls: bool) -> float:
    """Height of the ground plane (view z) for a pose (`points` bound what is drawn, `centres`
    are the mass centres, `fixed` the anchors)."""
    if rolls:
        return 0.0  # the rolling-disk constraint rolls on z = 0
    lowest_now = float(np.min(points[:, 2])) if len(points) else 0.0
    if travels(model) or not len(fixed):
        return lowest_now - 0.5 * reach
    pivot = fixed[int(np.argmin(fixed[:, 2]))]
    standing = any(model.gravity) and len(centres) and float(np.min(centres[:, 2])) > pivot[2] + 1e-9
    if standing:
        return float(pivot[2])  # standing on its pivot (a top): the pivot sits on the ground
    radius = swing_radius(model, points, fixed, reach)
    return min(float(pivot[2]) - radius, lowest_now) - 0.04 * radius


def lowest_elevation(centre_z: float, distance: float, floor_z: float, clearance: float) -> float:
    """The smallest elevation (degrees) at which a camera `distance` from a centre at height
    `centre_z` stays `clearance` above the ground at `floor_z` (90 when even straight above it is
    too low: the centre itself must be lifted)."""
    need = (floor_z + clearance - centre_z) / max(distance, 1e-300)
    return math.degrees(math.asin(min(max(need, -1.0), 1.0)))


def keep_above(opts: dict, floor_z: float, clearance: float) -> bool:
    """Lift a GL view's camera (pyqtgraph's `opts`: centre, distance, elevation) to `clearance`
    above the ground: the centre first, then the elevation. True if it moved."""
    centre, moved = opts["center"], False
    if centre.z() < floor_z + clearance:
        centre.setZ(floor_z + clearance)
        moved = True
    lowest = lowest_elevation(centre.z(), opts["distance"], floor_z, clearance)
    if opts["elevation"] < lowest:
        opts["elevation"] = lowest
        moved = True
    return moved


def nice_spacing(length: float) -> float:
    """1, 2 or 5 × a power of ten, about a tenth of `length`."""
    raw = max(length / 10.0, 1e-6)
    power = 10.0 ** math.floor(math.log10(raw))
    return min(s * power for s in (1.0, 2.0, 5.0, 10.0) if s * power >= raw)


@dataclass
class Framing:
    centre: np.ndarray  # what the camera looks at
    radius: float  # size of the mechanism (ground, trails and offsets scale with it)
    distance: float = 1.0
    elevation: float = ELEVATION
    azimuth: float = AZIMUTH
    ground_size: float = 1.0
    grid_spacing: float = 0.1
    ground_centre: np.ndarray = field(default_factory=lambda: np.zeros(3))

    @classmethod
    def of(cls, model: Model, points: np.ndarray, reach: float, width: int, height: int,
           fov: float) -> "Framing":
        """Look at the middle of the pose; back off until all of it fits."""
        shown = points if len(points) else np.zeros((1, 3))
        low, high = shown.min(axis=0), shown.max(axis=0)
        centre = 0.5 * (low + high)
        radius = max(float(np.max(high - low)) / 2, 0.1 * reach, 1e-3)
        ground = 6.0 * max(radius, reach) * (2.0 if travels(model) else 1.0)
        framing = cls(centre, radius, ground_size=ground, grid_spacing=nice_spacing(ground / 2),
                      ground_centre=centre.copy())
        framing.distance = framing.needed_distance(shown, width, height, fov, MARGIN_START)
        return framing

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit vectors: towards the camera, the view's right and its up."""
        el, az = math.radians(self.elevation), math.radians(self.azimuth)
        back = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        right = np.cross(-back, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        return back, right, np.cross(right, -back)

    def needed_distance(self, points: np.ndarray, width: int, height: int, fov: float, margin: float) -> float:
        """The camera distance from the centre at which every point lies within `margin` of the
        view's half width and half height (pyqtgraph's fov is the horizontal one)."""
        if not len(points):
            return self.distance
        back, right, up = self.basis()
        q = points - self.centre
        tan_h = math.tan(math.radians(0.5 * fov)) * margin
        tan_v = tan_h * height / max(width, 1)
        depth = q @ back  # towards the camera: such a point needs the camera further back
        need = np.maximum(np.abs(q @ right) / tan_h, np.abs(q @ up) / tan_v) + depth
        return float(max(np.max(need), 0.5 * self.radius))


def screen_box(points: np.ndarray | None, matrix: np.ndarray, width: int, height: int) -> tuple | None:
    """The pixel box (x, y, w, h) of a view `width` × `height` that the points (view coordinates)
    cover when projected by the 4×4 `matrix` (projection × view); points behind the camera do not
    count. None without a point in front of it."""
    if points is None or not len(points):
        return None
    clip = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    ahead = clip[:, 3] > 1e-12
    if not ahead.any():
        return None
    ndc = clip[ahead, :2] / clip[ahead, 3:4]
    x = (ndc[:, 0] + 1.0) * 0.5 * width
    y = (1.0 - ndc[:, 1]) * 0.5 * height  # pixel rows run downwards
    left, top = math.floor(x.min()), math.floor(y.min())
    return (left, top, math.ceil(x.max()) - left, math.ceil(y.max()) - top)
