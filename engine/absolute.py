"""Absolute coordinates: every body gets its own pose, every joint becomes holonomic rows.

Planar models (detected automatically: every joint turns about z and slides in the x–y plane)
use x, y, θ per body (a planar joint to ground); other models use a free joint per body in
position and Euler parameters (x, y, z, e0..e3: seven coordinates, six speeds — the velocity and
the body rates), with the normalisation constraint e·e = 1 per body: no gimbal lock anywhere.
The transformed model keeps the body names, frames, forces and the other constraints, so the
same tree kinematics serve both choices.
"""
from __future__ import annotations

import ast
import math
from dataclasses import replace

import numpy as np

from .constraints import JointRows, PlanarPins, SpatialPins
from .kinematics import TreeKinematics
from .model import (
    GROUND, Body, ExpressionConstraint, Joint, JointEffort, JointSpring, Model,
    ModelError, Prescribed, default_coordinate_names, initial_coordinates, initial_speeds, is_planar,
)
from .rotations import quaternion_from_matrix

Z = np.array([0.0, 0.0, 1.0])


def _perpendiculars(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    helper = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    n1 = np.cross(a, helper)
    n1 /= np.linalg.norm(n1)
    return n1, np.cross(a, n1)


def _joint_rows_spec(joint: Joint, planar: bool):
    """Translation directions and rotation pairs a joint removes (joint frame / child frame)."""
    ex, ey, ez = np.eye(3)
    t = joint.type
    a = np.array(joint.axis, float)
    if planar:
        if t == "revolute":
            return [ex, ey], [], ["x", "y"]
        if t == "prismatic":
            return [np.cross(Z, a)], [(ex, ey)], ["lateral", "angle"]
        if t == "fixed":
            return [ex, ey], [(ex, ey)], ["x", "y", "angle"]
        return [], [], []
    if t == "revolute":
        n1, n2 = _perpendiculars(a)
        return [ex, ey, ez], [(n1, a), (n2, a)], ["x", "y", "z", "axis1", "axis2"]
    if t == "spherical":
        return [ex, ey, ez], [], ["x", "y", "z"]
    if t == "prismatic":
        n1, n2 = _perpendiculars(a)
        return [n1, n2], [(ey, ez), (ez, ex), (ex, ey)], ["lateral1", "lateral2", "rx", "ry", "rz"]
    if t == "planar":
        return [ez], [(ex, ez), (ey, ez)], ["z", "tilt_x", "tilt_y"]
    if t == "fixed":
        return [ex, ey, ez], [(ey, ez), (ez, ex), (ex, ey)], ["x", "y", "z", "rx", "ry", "rz"]
    return [], [], []


def to_absolute(model: Model) -> tuple[Model, list]:
    """The model in absolute coordinates and a factory for its joint rows.

    Returns the transformed Model and `joint_rows(kin)` producing the JointRows kinds.
    """
    kin = TreeKinematics(model)  # the joint-coordinate poses and velocities at the start
    ks = kin.evaluate(np.array(initial_coordinates(model)), np.array(initial_speeds(model)))
    planar = is_planar(model)
    bodies, specs, pins, spatial_pins = [], [], [], []
    rename: dict[str, str] = {}
    for i, b in enumerate(model.bodies):
        R, o = ks.R[i], ks.origin[i]
        v = kin.point_velocity(ks, i, o)
        w = ks.omega[i]
        if planar:
            joint = Joint(type="planar", at=(0.0, 0.0, float(o[2])),
                          q0=(float(o[0]), float(o[1]), math.atan2(R[1, 0], R[0, 0])),
                          u0=(float(v[0]), float(v[1]), float(w[2])))
        else:
            joint = Joint(type="free", orientation="quaternion", speeds="body",
                          q0=(*map(float, o), *map(float, quaternion_from_matrix(R))),
                          u0=(*map(float, v), *map(float, R.T @ w)))
        joint = replace(joint, names=default_coordinate_names(b.name, joint))
        bodies.append(replace(b, parent=GROUND, joint=joint))
        t_dirs, r_pairs, labels = _joint_rows_spec(b.joint, planar)
        if planar and b.joint.type == "revolute":
            pins.append((f"joint_{b.name}", b.parent, b.name, b.joint.at))
        elif not planar and b.joint.type == "spherical":
            spatial_pins.append((f"joint_{b.name}", b.parent, b.name, b.joint.at))
        elif t_dirs or r_pairs:
            blocks_all = len(t_dirs) == (2 if planar else 3)  # every translation blocked: world axes
            specs.append((f"joint_{b.name}", b.parent, b.name, b.joint.at, b.joint.rotation, t_dirs, r_pairs,
                          labels, blocks_all))
        for k, name in enumerate(b.joint.names):
            rename[name] = _relative_coordinate(b, model, joint, k, planar)
    constraints = tuple(_convert_constraint(c, i, rename) for i, c in enumerate(model.constraints))
    forces = tuple(_convert_force(f, i, rename, model) for i, f in enumerate(model.forces))
    absolute = replace(model, bodies=tuple(bodies), constraints=constraints, forces=forces,
                       settings=replace(model.settings, coordinates="joint"))

    def joint_rows(kin_abs: TreeKinematics):
        kinds = [PlanarPins(kin_abs, pins)] if pins else []
        kinds += [SpatialPins(kin_abs, spatial_pins)] if spatial_pins else []
        return kinds + [JointRows(kin_abs, *spec) for spec in specs]

    return absolute, joint_rows


def _relative_coordinate(b: Body, model: Model, joint: Joint, k: int, planar: bool):
    """The joint angle as (sign, child angle, parent angle or None, offset) in absolute coordinates.

    Only planar revolute joints have one: θ_joint = sign·(θ_child − θ_parent − offset).
    """
    if not (planar and b.joint.type == "revolute"):
        return None
    sign = 1.0 if b.joint.axis[2] > 0 else -1.0
    offset = math.atan2(b.joint.rotation[1][0], b.joint.rotation[0][0])
    parent = f"{b.parent}_theta" if b.parent != GROUND else None
    return sign, joint.names[2], parent, offset


def _relative_text(rel, rate: bool) -> str:
    sign, child, parent, offset = rel
    if rate:
        inner = f"{child}_dot - {parent}_dot" if parent else f"{child}_dot"
    else:
        inner = f"{child} - {parent} - {offset!r}" if parent else f"{child} - {offset!r}"
    return f"({sign!r}*({inner}))"


def _substitute(text: str, rename: dict, path: str) -> str:
    """Rewrite joint-coordinate names (and their _dot) in an expression; the text was validated."""
    tree = ast.parse(text, mode="eval")
    missing: list[str] = []

    class Swap(ast.NodeTransformer):
        def visit_Name(self, node):
            name = node.id
            rate = name.endswith("_dot") and name[:-4] in rename
            base = name[:-4] if rate else name
            if base not in rename:
                return node
            if rename[base] is None:
                missing.append(base)
                return node
            return ast.parse(_relative_text(rename[base], rate), mode="eval").body

    out = ast.unparse(Swap().visit(tree))
    if missing:
        raise ModelError(path, f"uses joint coordinate '{missing[0]}', which absolute coordinates have only for planar revolute joints")
    return out


def _convert_constraint(c, i, rename):
    path = f"constraints[{i}]"
    if isinstance(c, Prescribed):
        rel = rename.get(c.coordinate)
        if rel is None:
            raise ModelError(f"{path}.coordinate", f"'{c.coordinate}' has no absolute-coordinate counterpart (planar revolute joints only)")
        return ExpressionConstraint(name=c.name, equation=f"{_relative_text(rel, False)} - ({c.motion})", order=0)
    if isinstance(c, ExpressionConstraint):
        return replace(c, equation=_substitute(c.equation, rename, f"{path}.equation"))
    return c


def _convert_force(f, i, rename, model: Model):
    path = f"forces[{i}]"
    if isinstance(f, (JointSpring, JointEffort)):
        raise ModelError(path, f"{f.type} acts on joint coordinates; absolute coordinates do not support it yet")
    if hasattr(f, "value"):
        return replace(f, value=tuple(_substitute(v, rename, f"{path}.value[{k}]") for k, v in enumerate(f.value)))
    return f
