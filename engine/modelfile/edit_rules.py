"""What an edit made by hand carries with it, in the file form, and where a new body hangs.

One place for these rules: the window's edits (gui/editing/edits.py) and `Simulation.set_parameter`
(engine/run/run_edits.py) both ask them.

- A body whose inertia is its shape's keeps it so when its mass or shape changes
  (`model.inertia_follows_shape`).
- A rod lies along its body's x axis from the hinge: its own centre is (l/2, 0, 0), its end (l, 0, 0).
  A new length carries the body's mass centre when that is the rod's centre, and the joint of each
  child that sits at the rod's end (each to 1e-9 of the old length); a mass centre or a joint put
  anywhere else was set by hand and is kept, as a typed-in inertia is.
- A new body's joint frame is turned about z so that at zero coordinates its x axis — along which a
  new rod lies and from which its angle is measured — points along gravity: it hangs at angle 0.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import GROUND, Model, inertia_follows_shape, joint_type

#: a mass centre or joint counts as the rod's own to this share of the old length
SAME_PLACE = 1e-9


def follow_edit(model: Model, data: dict, path, value) -> None:
    """Change `data` (`model`'s file form, about to get `value` at `path`) for what the edit carries."""
    if inertia_follows_shape(model, path):
        del data["bodies"][path[1]]["inertia"]  # the loader derives it from the new mass or shape
    if _rod_length_path(model, path) and _usable_length(value):
        _follow_rod_length(model, data, path[1], float(value))


def _rod_length_path(model: Model, path) -> bool:
    path = tuple(path)
    if len(path) != 4 or path[0] != "bodies" or path[2:] != ("shape", "length"):
        return False
    index = path[1]
    if not (isinstance(index, int) and 0 <= index < len(model.bodies)):
        return False
    shape = model.bodies[index].shape
    return shape is not None and shape.kind == "rod"


def _usable_length(value) -> bool:
    """A length the loader will take: anything else is refused there, by name, with nothing moved."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _at(point, place, length: float) -> bool:
    return all(abs(a - b) <= SAME_PLACE * length for a, b in zip(point, place))


def _follow_rod_length(model: Model, data: dict, index: int, new: float) -> None:
    body = model.bodies[index]
    old = body.shape.length
    if _at(body.com, (0.5 * old, 0.0, 0.0), old):
        data["bodies"][index]["com"] = [0.5 * new, 0.0, 0.0]
    for k, child in enumerate(model.bodies):
        if child.parent == body.name and _at(child.joint.at, (old, 0.0, 0.0), old):
            data["bodies"][k]["joint"]["at"] = [new, 0.0, 0.0]


# --- where a new body hangs ---------------------------------------------------------------------------


def zero_coordinate_rotation(model: Model, name: str) -> np.ndarray:
    """World orientation of body `name` at zero joint coordinates (its joint rotations down the tree;
    zero angles and the identity attitude turn nothing)."""
    R = np.eye(3)
    chain = []
    while name != GROUND:
        body = model.body(name)
        chain.append(np.asarray(body.joint.rotation, dtype=float))
        name = body.parent
    for rotation in reversed(chain):
        R = R @ rotation
    return R


def hanging_rotation(model: Model, parent: str) -> list[list[float]] | None:
    """The joint rotation (about the joint frame's z) that makes a new body under `parent` point its x
    axis along gravity at zero coordinates; None when it does so already, or gravity has no part
    across z (it runs along the hinge axis, or is zero)."""
    R_parent = zero_coordinate_rotation(model, parent) if parent != GROUND else np.eye(3)
    g = R_parent.T @ np.asarray(model.gravity, dtype=float)  # gravity in the parent's axes
    across = math.hypot(g[0], g[1])
    if not across > 1e-12 * max(float(np.linalg.norm(g)), 1e-300):
        return None
    angle = math.atan2(g[1], g[0])
    if abs(angle) <= 1e-12:
        return None
    c, s = _clean(math.cos(angle)), _clean(math.sin(angle))
    return [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]


def _clean(x: float) -> float:
    """cos(−π/2) is 6e-17: write the 0 it means (an exact quarter turn reads as one in the file)."""
    return 0.0 if abs(x) < 1e-15 else x


def angle_zero_words(model: Model, name: str) -> str:
    """What a revolute joint's angle is measured from, in words, for the inspector."""
    body = model.body(name)
    if not joint_type(body.joint.type).single_turn:
        return ""
    x = zero_coordinate_rotation(model, name)[:, 0]  # the zero direction with every angle above at 0
    g = np.asarray(model.gravity, dtype=float)
    if np.linalg.norm(g) > 0 and float(x @ g) >= (1 - 1e-9) * float(np.linalg.norm(g)):
        pointing = "straight down (along gravity)"
    else:
        k = int(np.argmax(np.abs(x)))
        pointing = f"along {'+' if x[k] > 0 else '−'}{'xyz'[k]} (world)" if abs(abs(x[k]) - 1) < 1e-9 else "as the joint frame turns it"
    turned = not np.allclose(body.joint.rotation, np.eye(3))
    if body.parent == GROUND:
        start = "from the joint frame's x axis"
    else:
        start = f"from {body.parent}'s x axis{' turned by the joint rotation' if turned else ' (0: in line with it)'}"
    return f"angle {start}; with every angle 0 it points {pointing}"
