"""What to draw for a pose: the bodies' shapes placed in the world, as plain polylines and points.

The engine computes every pose (`Frame`: rotations, hinge origins, mass centres); this module only
places each body's drawing shape (`engine.model.Shape`) with that pose, so the 2-D scene, the 3-D
scene and the preset thumbnails draw the same picture.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.model import GROUND, Model, joint_type

_CIRCLE = np.linspace(0.0, 2.0 * np.pi, 33)
#: mass-centre markers grow with the cube root of the mass up to this size (px; 27 kg reaches it):
#: a 1e12 kg body made a 50,000 px marker that froze the window for 29 s
MAX_MASS_MARKER_PX = 22.0
_Z = np.array([0.0, 0.0, 1.0])


@dataclass
class Drawing:
    """World-space primitives of one pose."""

    rods: list[np.ndarray]  # (2, 3) segments drawn thick
    outlines: list[np.ndarray]  # (k, 3) closed polylines: disks, boxes, spheres
    links: list[np.ndarray]  # (2, 3) thin lines: parent hinge to child hinge, hinge to point mass
    hinges: np.ndarray  # (h, 3) joints between bodies
    ground_hinges: np.ndarray  # (g, 3) joints to the ground
    mass_centres: np.ndarray  # (m, 3) bodies with mass
    mass_sizes: np.ndarray  # (m,) marker size (px), grows with the cube root of the mass, at most MAX_MASS_MARKER_PX

    def points(self) -> np.ndarray:
        parts = [p for p in self.rods + self.outlines + self.links]
        parts += [self.hinges, self.ground_hinges, self.mass_centres]
        parts = [np.asarray(p).reshape(-1, 3) for p in parts if len(p)]
        return np.concatenate(parts) if parts else np.zeros((0, 3))


def drawing(model: Model, rotations: np.ndarray, origins: np.ndarray, mass_centres: np.ndarray,
            turn: np.ndarray | None = None) -> Drawing:
    """Place every body's shape with its pose (rotations (nb,3,3), hinge origins (nb,3), mass
    centres (nb,3), in the order of `model.bodies`; `turn` (3×3) is the rotation the pose was
    given from world coordinates, e.g. the 3-D view's z against gravity). Hinges, links, rods and
    mass centres are stacked over all bodies at once (a 200-link chain is drawn every frame); only
    disks, spheres and boxes are placed one by one.

    A root joint's ground point is where the model fixes it (its `at` on the ground); a slide's
    body moves away from it along the rail, drawn as a thin line from that point."""
    bodies = model.bodies
    rotations, origins, mass_centres = (np.asarray(a, dtype=float).reshape(len(bodies), *shape)
                                        for a, shape in ((rotations, (3, 3)), (origins, (3,)), (mass_centres, (3,))))
    index = {b.name: i for i, b in enumerate(bodies)}
    on_ground = np.array([b.parent == GROUND for b in bodies], dtype=bool)
    parent = np.array([-1 if b.parent == GROUND else index.get(b.parent, -1) for b in bodies], dtype=int)
    fixed = np.array([not joint_type(b.joint.type).dof for b in bodies], dtype=bool)
    free = np.array([joint_type(b.joint.type).constrains_nothing(False) for b in bodies], dtype=bool)
    shapes = [b.shape for b in bodies]
    kinds = [shape.kind if shape is not None else "point" for shape in shapes]
    mass = np.array([b.mass for b in bodies], dtype=float)
    # thin links, in each body's order: parent hinge to hinge, then hinge to a shape's centre
    parent_origins = origins[np.maximum(parent, 0)]
    to_parent = (parent >= 0) & (np.linalg.norm(parent_origins - origins, axis=1) > 1e-12)
    centred = np.array([k in ("point", "disk", "sphere", "box") for k in kinds], dtype=bool)
    to_centre = centred & (np.linalg.norm(mass_centres - origins, axis=1) > 1e-12)
    segments = np.stack((np.stack((parent_origins, origins), axis=1), np.stack((origins, mass_centres), axis=1)), axis=1)
    links = list(segments[np.stack((to_parent, to_centre), axis=1)])
    lengths = np.array([s.length if k == "rod" else 0.0 for s, k in zip(shapes, kinds)], dtype=float)
    rod = lengths > 0
    half = 0.5 * lengths[rod, None] * rotations[rod, :, 0]
    rods = list(np.stack((mass_centres[rod] - half, mass_centres[rod] + half), axis=1))
    outlines = []
    for i, (shape, kind) in enumerate(zip(shapes, kinds)):
        R, c = rotations[i], mass_centres[i]
        if kind == "disk" and shape.radius > 0:
            outlines.append(_circle(c, R[:, 0], R[:, 1], shape.radius))
            outlines.append(np.array([c, c + shape.radius * R[:, 0]]))  # a spoke shows the turning
        elif kind == "sphere" and shape.radius > 0:
            for a, b in ((0, 1), (1, 2), (2, 0)):
                outlines.append(_circle(c, R[:, a], R[:, b], shape.radius))
        elif kind == "box" and any(shape.size):
            outlines.extend(_box_edges(c, R, np.asarray(shape.size, dtype=float)))
    hinges = origins[~on_ground & ~fixed]
    slide = on_ground & np.array([joint_type(b.joint.type).rail for b in bodies], dtype=bool)
    ground = origins[on_ground & ~free & ~slide]
    if slide.any():  # a slide's ground point stays at its anchor; the rail runs from it to the body
        anchors = np.array([bodies[i].joint.at for i in np.flatnonzero(slide)], dtype=float).reshape(-1, 3)
        anchors = anchors if turn is None else anchors @ np.asarray(turn, dtype=float).T
        ground = np.concatenate((ground, anchors))
        links += [np.array([a, o]) for a, o in zip(anchors, origins[slide]) if np.linalg.norm(o - a) > 1e-12]
    weighty = mass > 0
    sizes = np.minimum(7.0 + 5.0 * np.cbrt(mass[weighty]), MAX_MASS_MARKER_PX)
    return Drawing(rods, outlines, links, hinges, ground, mass_centres[weighty], sizes)


def _circle(centre, e1, e2, radius) -> np.ndarray:
    return centre + radius * (np.outer(np.cos(_CIRCLE), e1) + np.outer(np.sin(_CIRCLE), e2))


def _box_edges(centre, R, size) -> list[np.ndarray]:
    half = 0.5 * size
    corners = {}
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                corners[(sx, sy, sz)] = centre + R @ (half * np.array([sx, sy, sz]))
    edges = []
    for key, point in corners.items():
        for axis in range(3):
            if key[axis] < 0:
                other = list(key)
                other[axis] = 1
                edges.append(np.array([point, corners[tuple(other)]]))
    return edges


def shape_extent(shape) -> float:
    """How far a drawing shape reaches from its body's mass centre (0 without one)."""
    if shape is None:
        return 0.0
    return max(0.5 * shape.length, shape.radius, 0.5 * float(np.linalg.norm(shape.size)))


def reach(model: Model) -> float:
    """How far the mechanism can get from its root hinges (tree chains): for every body the
    hinge offsets down its branch plus its own extent (mass centre and shape)."""
    to_hinge: dict[str, float] = {GROUND: 0.0}
    furthest = 0.0
    for body in model.bodies:  # parents come first
        hinge = to_hinge.get(body.parent, 0.0) + float(np.linalg.norm(body.joint.at))
        if joint_type(body.joint.type).lengths:
            hinge += 1.0  # sliding joints: allow a metre of travel
        to_hinge[body.name] = hinge
        size = shape_extent(body.shape)
        furthest = max(furthest, hinge + float(np.linalg.norm(body.com)) + size)
    return max(furthest, 0.5)


def zero_direction(model: Model, rotations: np.ndarray, origins: np.ndarray, name: str) -> np.ndarray | None:
    """The segment (2, 3) from a revolute body's hinge along the direction its angle is measured
    from (its joint frame's x axis, carried by its parent's pose), about the body's size long;
    None for other joints."""
    index = {b.name: i for i, b in enumerate(model.bodies)}
    if name not in index or not joint_type(model.bodies[index[name]].joint.type).single_turn:
        return None
    body = model.bodies[index[name]]
    parent = np.eye(3) if body.parent == GROUND else np.asarray(rotations[index[body.parent]], dtype=float)
    direction = parent @ np.asarray(body.joint.rotation, dtype=float)[:, 0]
    size = body.shape.length if body.shape is not None and body.shape.kind == "rod" else float(np.linalg.norm(body.com))
    length = size if size > 0 else 0.2 * reach(model)
    start = np.asarray(origins[index[name]], dtype=float)
    return np.array([start, start + length * direction])


def up_basis(gravity) -> np.ndarray:
    """Rows h0, h1, up: a right-handed world basis whose third axis points against gravity
    (world z when there is no gravity)."""
    g = np.asarray(gravity, dtype=float)
    up = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else _Z
    helper = np.eye(3)[int(np.argmin(np.abs(up)))]
    h0 = helper - (helper @ up) * up
    h0 /= np.linalg.norm(h0)
    h1 = np.cross(up, h0)
    return np.array([h0, h1, up])


class Projection:
    """Maps world points to the drawing plane: x–y for planar models, an oblique view looking
    down on the mechanism otherwise (with 'up' against gravity)."""

    def __init__(self, planar: bool, gravity=(0.0, -9.81, 0.0), azimuth: float = 0.6, elevation: float = 0.35):
        if planar:
            self.matrix = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
            return
        h0, h1, up = up_basis(gravity)
        towards_camera = np.cos(elevation) * (np.cos(azimuth) * h0 + np.sin(azimuth) * h1) + np.sin(elevation) * up
        right = np.cross(up, towards_camera)
        right /= np.linalg.norm(right)
        screen_up = np.cross(towards_camera, right)
        self.matrix = np.array([right, screen_up])

    def __call__(self, points: np.ndarray) -> np.ndarray:
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        return points @ self.matrix.T
