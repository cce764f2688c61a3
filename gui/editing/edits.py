"""Edits of a model, Qt-free: each takes a Model and returns a new, validated Model.

Every edit goes through the file form (`engine.modelfile.model_to_dict` → change → `model_from_dict`)
so a refused edit raises the same `ModelError`, naming the same field path (``bodies[1].mass``), as
a broken file would. The undo commands (`ModelEditCommand`, gui/editing/document.py) only ever swap whole Models.
"""
from __future__ import annotations

import copy
import re
from typing import Any, Sequence

from eomlab.engine.model import GROUND, Model, ModelError
from eomlab.engine.modelfile import model_from_dict, model_to_dict
from eomlab.engine.modelfile.edit_rules import follow_edit, hanging_rotation

Path = Sequence[Any]  # ("bodies", 1, "joint", "q0")


def path_text(path: Path) -> str:
    """("bodies", 1, "mass") → "bodies[1].mass", as ModelError paths are written."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def get_in(data: Any, path: Path, default: Any = None) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return default
    return data


def set_field(model: Model, path: Path, value: Any) -> Model:
    """The model with the file field at `path` set to `value` (``None`` removes an optional
    field, e.g. a body's shape; a body's inertia then comes from its shape again). What the edit
    carries (a shape's inertia, a rod's mass centre and its children's joints) follows it: the
    engine's rules (engine/modelfile/edit_rules.py)."""
    data = model_to_dict(model)
    follow_edit(model, data, path, value)
    node = data
    for part in path[:-1]:
        if isinstance(node, dict) and part not in node:
            node[part] = {}
        node = node[part]
    if value is None:
        if isinstance(node, dict):
            node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return model_from_dict(data)


def unique_name(model: Model, base: str) -> str:
    taken = {b.name for b in model.bodies} | {c.name for c in model.constraints} | {f.name for f in model.forces}
    taken |= {c.name for c in model.contacts}
    taken.add(GROUND)
    base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "item"
    if not base[0].isalpha():
        base = "b" + base
    if base not in taken:
        return base
    i = 2
    while f"{base}{i}" in taken:
        i += 1
    return f"{base}{i}"


def descendants(model: Model, name: str) -> set[str]:
    """Names of the bodies carried by `name` (not including it)."""
    found: set[str] = set()
    frontier = [name]
    while frontier:
        parent = frontier.pop()
        for body in model.bodies:
            if body.parent == parent and body.name not in found:
                found.add(body.name)
                frontier.append(body.name)
    return found


def rename_body(model: Model, old: str, new: str) -> Model:
    """Rename a body and every reference to it (children, constraints, forces)."""
    data = model_to_dict(model)
    for body in data["bodies"]:
        if body["name"] == old:
            body["name"] = new
        if body.get("parent") == old:
            body["parent"] = new
    for item in data.get("constraints", []) + data.get("forces", []):
        _rename_refs(item, old, new)
    return model_from_dict(data)


def _rename_refs(item: dict, old: str, new: str) -> None:
    for key, value in item.items():
        if key == "body" and value == old:
            item[key] = new
        elif isinstance(value, dict):
            _rename_refs(value, old, new)


def add_body(model: Model, body: dict) -> Model:
    data = model_to_dict(model)
    data["bodies"].append(copy.deepcopy(body))
    return model_from_dict(data)


def child_body(model: Model, parent: str) -> dict:
    """A sensible new body hanging from `parent`: a 1 m, 1 kg rod on a revolute joint at the
    parent's far end (for a rod parent: the rod's own end) or its hinge, hanging straight down at
    angle 0 (its joint frame turned so, when the bodies above are at 0)."""
    at = [0.0, 0.0, 0.0]
    if parent != GROUND:
        p = model.body(parent)
        if p.shape is not None and p.shape.kind == "rod":
            at = [p.shape.length, 0.0, 0.0]  # where a length edit carries it (edit_rules)
        else:
            at = list(p.com)
    name = unique_name(model, "link")
    joint = {"type": "revolute", "axis": [0, 0, 1], "at": at, "q0": [0.0], "u0": [0.0]}
    rotation = hanging_rotation(model, parent)
    if rotation is not None:
        joint["rotation"] = rotation
    return {"name": name, "parent": parent, "joint": joint,
            "mass": 1.0, "com": [0.5, 0.0, 0.0], "shape": {"kind": "rod", "length": 1.0}}


def delete_body(model: Model, name: str) -> tuple[Model, list[str]]:
    """Delete a body with the bodies it carries and the constraints and forces that refer to
    them; returns the new model and the names of everything removed."""
    gone = {name} | descendants(model, name)
    data = model_to_dict(model)
    data["bodies"] = [b for b in data["bodies"] if b["name"] not in gone]
    removed = sorted(gone)
    for key in ("constraints", "forces"):
        kept = []
        for item in data.get(key, []):
            if _refers_to(item, gone):
                removed.append(item["name"])
            else:
                kept.append(item)
        data[key] = kept
    return model_from_dict(data), removed


def _refers_to(item: dict, bodies: set[str]) -> bool:
    for key, value in item.items():
        if key == "body" and value in bodies:
            return True
        if isinstance(value, dict) and _refers_to(value, bodies):
            return True
    return False


def reparent_body(model: Model, name: str, new_parent: str) -> Model:
    """Hang `name` (and what it carries) from `new_parent`; its joint keeps its placement numbers,
    now read in the new parent's frame."""
    if new_parent == name or new_parent in descendants(model, name):
        raise ModelError(f"bodies[{model.body_index(name)}].parent",
                         f"cannot hang '{name}' from '{new_parent}': it would carry itself")
    return set_field(model, ("bodies", model.body_index(name), "parent"), new_parent)


def delete_item(model: Model, section: str, index: int) -> Model:
    data = model_to_dict(model)
    del data[section][index]
    return model_from_dict(data)


def add_item(model: Model, section: str, item: dict) -> Model:
    data = model_to_dict(model)
    data.setdefault(section, []).append(copy.deepcopy(item))
    return model_from_dict(data)


def constraint_template(model: Model, kind: str) -> dict:
    """A starting point for a new constraint of this type, filled in from the model."""
    bodies = [b.name for b in model.bodies] or [GROUND]
    last = bodies[-1]
    coordinate = (model.coordinate_names or ("q",))[0]
    name = unique_name(model, kind)
    return {
        "coincident": {"name": name, "type": kind, "a": {"body": last, "point": [1.0, 0, 0]},
                       "b": {"body": GROUND, "point": [1.0, 0, 0]}, "dims": ["x", "y"]},
        "distance": {"name": name, "type": kind, "a": {"body": last, "point": [1.0, 0, 0]},
                     "b": {"body": GROUND, "point": [0, 0, 0]}, "length": 1.0},
        "prescribed": {"name": name, "type": kind, "coordinate": coordinate, "motion": "0.5*sin(t)"},
        "knife_edge": {"name": name, "type": kind, "body": last, "point": [0, 0, 0], "direction": [0, 1, 0]},
        "rolling_disk": {"name": name, "type": kind, "body": last, "radius": 0.5, "axis": [0, 0, 1]},
        "expression": {"name": name, "type": kind, "equation": f"{coordinate} - 0.5", "order": 0},
    }[kind]


def force_template(model: Model, kind: str) -> dict:
    bodies = [b.name for b in model.bodies] or [GROUND]
    last = bodies[-1]
    dof = model.body(last).joint.n_coordinates if model.bodies else 1
    name = unique_name(model, kind)
    return {
        "spring": {"name": name, "type": kind, "a": {"body": last, "point": [1.0, 0, 0]},
                   "b": {"body": GROUND, "point": [1.0, 0, 0]}, "stiffness": 10.0, "rest_length": 0.5,
                   "damping": 0.0},
        "joint_spring": {"name": name, "type": kind, "body": last, "stiffness": 5.0, "rest": [0.0] * dof,
                         "damping": 0.0},
        "joint_effort": {"name": name, "type": kind, "body": last, "value": ["0"] * dof},
        "point_force": {"name": name, "type": kind, "body": last, "point": [1.0, 0, 0],
                        "value": ["0", "0", "0"], "frame": "world"},
        "body_torque": {"name": name, "type": kind, "body": last, "value": ["0", "0", "0"], "frame": "world"},
    }[kind]
