"""Absolute coordinates: every body gets its own pose, every joint becomes holonomic rows.

Planar models (detected automatically: every joint turns about z and slides in the x–y plane)
use x, y, θ per body (a planar joint to ground); other models use a free joint per body in
position and Euler parameters (x, y, z, e0..e3: seven coordinates, six speeds — the velocity and
the body rates), with the normalisation constraint e·e = 1 per body: no gimbal lock anywhere.

The pose coordinates are named `<body>.pose_<dof>` (`upper.pose_theta`, `box.pose_e0`), their
speeds `<body>.pose_<dof>_dot` and `<body>.pose_wx`…: a dot never appears in a joint coordinate's
name, so they cannot take one's name. The joint coordinates themselves are functions of the
poses (`engine.mechanics.joint_coordinates`): joint springs and efforts, prescribed motions, expression
constraints and expression forces act through them, as in joint coordinates. The transformed
model keeps the body names, frames, springs and geometric constraints, so the same tree
kinematics serve both choices.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from eomlab.engine.constraints import KINDS, JointRows, PlanarPins, SpatialPins
from eomlab.engine.constraints.rows import ConstraintKind, RowBlock
from eomlab.engine.forcing.generalized_forces import ELEMENTS, ForceElement
from eomlab.engine.mechanics.joint_coordinates import JointCoordinates
from eomlab.engine.joints import joint_type
from eomlab.engine.kinematics import TreeKinematics
from eomlab.engine.model import (
    GROUND, BodyTorque, ExpressionConstraint, Joint, JointEffort, JointSpring, Model, PointForce, Prescribed,
    default_coordinate_names, initial_coordinates, initial_speeds, is_planar, speed_names,
)
from eomlab.engine.rotations import quaternion_from_matrix

POSE = "pose"  # the pose coordinates' names: <body>.pose_<dof>
#: what acts on the joint coordinates themselves, and forces whose values are expressions in them
IN_JOINT_COORDINATES = (JointSpring, JointEffort, Prescribed, ExpressionConstraint)
WITH_EXPRESSIONS = (PointForce, BodyTorque)


def _joint_rows_spec(joint: Joint, planar: bool):
    """Translation directions and rotation pairs a joint removes (joint frame / child frame)."""
    return joint_type(joint.type).absolute_rows(joint, planar)


def pose_prefix(body: str) -> str:
    return f"{body}.{POSE}"


def to_absolute(model: Model) -> tuple[Model, "AbsoluteParts"]:
    """The model in absolute coordinates (a pose joint per body, springs and geometric
    constraints) and what goes with it: the joints' rows, the joint coordinates as functions of
    the poses and the forces and constraints written in them (`AbsoluteParts`)."""
    kin = TreeKinematics(model)  # the joint-coordinate poses and velocities at the start
    ks = kin.evaluate(np.array(initial_coordinates(model)), np.array(initial_speeds(model)))
    planar = is_planar(model)
    bodies, specs, pins, spatial_pins = [], [], [], []
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
        joint = replace(joint, names=default_coordinate_names(pose_prefix(b.name), joint))
        bodies.append(replace(b, parent=GROUND, joint=joint))
        t_dirs, r_pairs, labels = _joint_rows_spec(b.joint, planar)
        pin = joint_type(b.joint.type).absolute_pin(planar)
        if pin == "planar":
            pins.append((f"{b.name}.joint", b.parent, b.name, b.joint.at))
        elif pin == "spatial":
            spatial_pins.append((f"{b.name}.joint", b.parent, b.name, b.joint.at))
        elif t_dirs or r_pairs:
            blocks_all = len(t_dirs) == (2 if planar else 3)  # every translation blocked: world axes
            specs.append((f"{b.name}.joint", b.parent, b.name, b.joint.at, b.joint.rotation, t_dirs, r_pairs,
                          labels, blocks_all))
    # the constraints and forces are the AbsoluteParts' (in the model's order)
    absolute = replace(model, bodies=tuple(bodies), constraints=(), forces=(),
                       settings=replace(model.settings, coordinates="joint"))
    return absolute, AbsoluteParts(model, JointCoordinates(model), pins, spatial_pins, specs)


@dataclass
class AbsoluteParts:
    """What a model in absolute coordinates adds to its transformed model's system."""

    model: Model  # in joint coordinates
    joint_coordinates: JointCoordinates
    pins: list
    spatial_pins: list
    specs: list

    def speed_names(self, absolute: Model) -> list[str]:
        return [n for b in absolute.bodies for n in speed_names(pose_prefix(b.name), b.joint)]

    def constraint_kinds(self, kin_abs: TreeKinematics) -> list[ConstraintKind]:
        """The joints' rows, then the model's constraints in its order: geometric ones on the
        poses, those in joint coordinates through them (chain rule)."""
        kinds = [PlanarPins(kin_abs, self.pins)] if self.pins else []
        kinds += [SpatialPins(kin_abs, self.spatial_pins)] if self.spatial_pins else []
        kinds += [JointRows(kin_abs, *spec) for spec in self.specs]
        view = self.joint_coordinates
        for i, c in enumerate(self.model.constraints):
            path = f"constraints[{i}]"
            if isinstance(c, IN_JOINT_COORDINATES):
                kinds.append(InJointCoordinates(view, KINDS[type(c)](view.kin, c, path)))
            else:
                kinds.append(KINDS[type(c)](kin_abs, c, path))
        return kinds

    def force_elements(self, kin_abs: TreeKinematics) -> list[ForceElement]:
        """The model's forces in its order: springs on the poses, joint springs and efforts
        through the joint coordinates, point forces and torques on the poses with their values
        read in the joint coordinates."""
        view, out = self.joint_coordinates, []
        for i, f in enumerate(self.model.forces):
            path = f"forces[{i}]"
            if isinstance(f, WITH_EXPRESSIONS):
                out.append(ELEMENTS[type(f)](kin_abs, f, path, joint_view=view))
            elif isinstance(f, IN_JOINT_COORDINATES):
                out.append(JointCoordinateForce(view, ELEMENTS[type(f)](view.kin, f, path)))
            else:
                out.append(ELEMENTS[type(f)](kin_abs, f, path))
        return out


class InJointCoordinates(ConstraintKind):
    """A constraint written in joint coordinates, on the poses by the chain rule:
    A_j u̇_j = b_j with u̇_j = G u̇_abs + u̇_j|₀ gives A_j G u̇_abs = b_j − A_j u̇_j|₀; Φ, its
    rate and the first-order residual are the joint-coordinate ones (u_j = G u_abs)."""

    def __init__(self, view: JointCoordinates, inner: ConstraintKind):
        self.view, self.inner = view, inner
        self.name, self.rows, self.level = inner.name, inner.rows, inner.level
        self.rheonomic, self.row_names = inner.rheonomic, inner.row_names

    def evaluate(self, ctx):
        seen = self.view.state(ctx)
        block = self.inner.evaluate(seen.context)
        return RowBlock(A=block.A @ seen.G, b=block.b - block.A @ seen.bias(), position=block.position,
                        velocity=block.velocity, c=block.c)

    def actions(self, ks, lam):
        """The inner constraint's forces, placed in the joint kinematics at the same poses (a
        servo's torque at its joint): their virtual power is the same, Gᵀ A_jᵀ λ."""
        joint_ks = self.view.kin.positions(self.view.coordinates(ks.R, ks.origin))
        return self.inner.actions(joint_ks, lam)


class JointCoordinateForce(ForceElement):
    """A force on joint coordinates (joint spring, joint effort) on the poses: Gᵀ Q_j, the
    same virtual power; a joint spring keeps its potential, read at q_j."""

    def __init__(self, view: JointCoordinates, inner: ForceElement):
        self.view, self.inner = view, inner
        self.conservative = inner.conservative

    def generalized(self, ctx):
        seen = self.view.state(ctx)
        return seen.G.T @ self.inner.generalized(seen.context)

    def actions(self, ctx):
        """The inner force's actions at the same poses, seen in joint coordinates."""
        return self.inner.actions(self.view.state(ctx).context)

    def potential(self, ks, q) -> float:
        return self.inner.potential(None, self.view.coordinates(ks.R, ks.origin))
