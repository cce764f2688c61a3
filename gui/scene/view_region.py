"""The region of the drawing plane a tree's motion can sweep, for the 2-D view to fit once.

Each body's mass centre stays within a disc about its chain's ground hinge (the chain's length down
to it); where the engine bounds how high each mass centre can rise with the model's energy
(`engine.mechanics.energy_ceiling`), a horizontal line cuts that disc. The body's own points lie
within its extent of the mass centre (its shape, its children's hinges) and its link to its hinge
lies between the two; the region is the union of those boxes and the ground hinges. A cradle
swinging 0.6 rad is fitted to its swing, not to full circles.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import GROUND, Model, joint_type
from eomlab.engine.simulation import mass_centre_ceilings
from eomlab.gui.scene.geometry import shape_extent


def _chains(model: Model) -> list[tuple[np.ndarray, float, float]]:
    """Per body: its chain's ground hinge (world), the farthest its mass centre gets from that hinge,
    and the farthest its own points (shape, children's hinges) get from its mass centre."""
    by_name = {b.name: b for b in model.bodies}
    children: dict[str, list] = {}
    for b in model.bodies:
        children.setdefault(b.parent, []).append(b)
    out = []
    for body in model.bodies:
        com = np.asarray(body.com, dtype=float)
        size = shape_extent(body.shape)
        extent = max([size] +
                     [float(np.linalg.norm(np.asarray(c.joint.at, dtype=float) - com)) for c in children.get(body.name, [])])
        hinge, root = 0.0, body
        while True:
            hinge += 1.0 if joint_type(root.joint.type).lengths else 0.0  # a sliding joint: a metre of travel
            if root.parent == GROUND:
                break
            hinge += float(np.linalg.norm(root.joint.at))
            root = by_name[root.parent]
        out.append((np.asarray(root.joint.at, dtype=float), hinge + float(np.linalg.norm(com)), extent))
    return out


def swept_region(model: Model, project, up_in_plane: np.ndarray | None) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the drawing plane; `project` maps world points (k, 3) to the plane and
    `up_in_plane` is the unit vector against gravity there (None: gravity not in the plane, no
    ceiling applies)."""
    ceilings = mass_centre_ceilings(model) if up_in_plane is not None else None
    up = np.asarray(model.gravity, dtype=float)
    up = -up / np.linalg.norm(up) if np.linalg.norm(up) > 0 else up
    boxes = []
    for body, (anchor, radius, extent) in zip(model.bodies, _chains(model)):
        centre = project(anchor[None, :])[0]
        cap = math.inf if ceilings is None else ceilings[body.name] - float(up @ anchor)
        x0, y0, x1, y1 = _disc_below(centre, radius, cap, up_in_plane)
        boxes.append((min(x0 - extent, centre[0]), min(y0 - extent, centre[1]),
                      max(x1 + extent, centre[0]), max(y1 + extent, centre[1])))
    stacked = np.array(boxes)
    return (float(stacked[:, 0].min()), float(stacked[:, 1].min()), float(stacked[:, 2].max()),
            float(stacked[:, 3].max()))


def _disc_below(centre: np.ndarray, r: float, cap: float, up: np.ndarray | None):
    """Box of the disc (centre, r) cut to heights ≤ cap above its centre along `up`."""
    if up is None or cap >= r:
        return (centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r)
    cap = max(cap, -r)
    half = r if cap >= 0.0 else math.sqrt(max(r * r - cap * cap, 0.0))
    side = np.array([up[1], -up[0]])
    corners = [centre + s * half * side + h * up for s in (-1.0, 1.0) for h in (-r, cap)]
    xy = np.array(corners)
    return (xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max())
