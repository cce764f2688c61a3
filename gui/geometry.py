"""What to draw for a pose: the bodies' shapes placed in the world, as plain polylines and points.

The engine computes every pose (`Frame`: rotations, hinge origins, mass centres); this module only
places each body's drawing shape (`engine.model.Shape`) with that pose, so the 2-D scene, the 3-D
scene and the preset thumbnails draw the same picture.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.model import GROUND, Model

_CIRCLE = np.linspace(0.0, 2.0 * np.pi, 33)
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
    mass_sizes: np.ndarray  # (m,) marker size, grows with the cube root of the mass

    def points(self) -> np.ndarray:
        parts = [p for p in self.rods + self.outlines + self.links]
        parts += [self.hinges, self.ground_hinges, self.mass_centres]
        parts = [np.asarray(p).reshape(-1, 3) for p in parts if len(p)]
        return np.concatenate(parts) if parts else np.zeros((0, 3))


def drawing(model: Model, rotations: np.ndarray, origins: np.ndarray, mass_centres: np.ndarray,
            turn: np.ndarray | None = None) -> Drawing:
    """Place every body's shape with its pose (rotations (nb,3,3), hinge origins (nb,3), mass
    centres (nb,3), in the order of `model.bodies`; `turn` (3×3) is the rotation the pose was
    given from world coordinates, e.g. the 3-D view's z against gravity).

    A root joint's ground point is where the model fixes it (its `at` on the ground); a slide's
    body moves away from it along the rail, drawn as a thin line from that point."""
    index = {b.name: i for i, b in enumerate(model.bodies)}
    rods, outlines, links, hinges, ground, coms, sizes = [], [], [], [], [], [], []
    for i, body in enumerate(model.bodies):
        R, o, c = rotations[i], origins[i], mass_centres[i]
        if body.parent == GROUND:
            if body.joint.type == "prismatic":
                anchor = np.asarray(body.joint.at, dtype=float)
                anchor = anchor if turn is None else turn @ anchor
                ground.append(anchor)
                if np.linalg.norm(o - anchor) > 1e-12:
                    links.append(np.array([anchor, o]))
            elif body.joint.type not in ("free",):
                ground.append(o)
        else:
            p = index.get(body.parent)
            if p is not None and np.linalg.norm(origins[p] - o) > 1e-12:
                links.append(np.array([origins[p], o]))
            if body.joint.type != "fixed":
                hinges.append(o)
        shape = body.shape
        kind = shape.kind if shape is not None else "point"
        if kind == "rod" and shape.length > 0:
            half = 0.5 * shape.length * R[:, 0]
            rods.append(np.array([c - half, c + half]))
        elif kind == "disk" and shape.radius > 0:
            outlines.append(_circle(c, R[:, 0], R[:, 1], shape.radius))
            outlines.append(np.array([c, c + shape.radius * R[:, 0]]))  # a spoke shows the turning
        elif kind == "sphere" and shape.radius > 0:
            for a, b in ((0, 1), (1, 2), (2, 0)):
                outlines.append(_circle(c, R[:, a], R[:, b], shape.radius))
        elif kind == "box" and any(shape.size):
            outlines.extend(_box_edges(c, R, np.asarray(shape.size, dtype=float)))
        if kind in ("point", "disk", "sphere", "box") and np.linalg.norm(c - o) > 1e-12:
            links.append(np.array([o, c]))
        if body.mass > 0:
            coms.append(c)
            sizes.append(7.0 + 5.0 * np.cbrt(body.mass))
    as3 = lambda rows: np.asarray(rows, dtype=float).reshape(-1, 3)
    return Drawing(rods, outlines, links, as3(hinges), as3(ground), as3(coms), np.asarray(sizes, dtype=float))


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


def reach(model: Model) -> float:
    """How far the mechanism can get from its root hinges (tree chains): for every body the
    hinge offsets down its branch plus its own extent (mass centre and shape)."""
    to_hinge: dict[str, float] = {GROUND: 0.0}
    furthest = 0.0
    for body in model.bodies:  # parents come first
        hinge = to_hinge.get(body.parent, 0.0) + float(np.linalg.norm(body.joint.at))
        if body.joint.type in ("prismatic", "planar", "free"):
            hinge += 1.0  # sliding joints: allow a metre of travel
        to_hinge[body.name] = hinge
        shape = body.shape
        size = 0.0
        if shape is not None:
            size = max(0.5 * shape.length, shape.radius, 0.5 * float(np.linalg.norm(shape.size)))
        furthest = max(furthest, hinge + float(np.linalg.norm(body.com)) + size)
    return max(furthest, 0.5)


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
