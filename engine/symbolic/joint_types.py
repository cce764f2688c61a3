"""The sympy part of each joint type (engine.joints' table names these by "module:attribute"):
its pose and its kinematic equations q̇ = W(q) u in a SymbolicTree."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.tree_kinematics import UNIT, axis_rotation, elementary, quaternion_matrix
from eomlab.engine.symbolic.parameters import exact_vector


class SymbolicJoint:
    """pose(tree, joint, q) → R_rel and the translation (joint frame); rates(tree, joint, q, qd, u)
    records q̇ = W u in the tree and returns the relative ω (body axes) in the rates and in the speeds."""

    def pose(self, tree, joint, q):
        raise NotImplementedError(f"joint type {joint.type!r} has no symbolic pose")

    def rates(self, tree, joint, q, qd, u):
        raise NotImplementedError(f"joint type {joint.type!r} has no symbolic kinematic equations")


class _Rates(SymbolicJoint):
    """Speeds that are the coordinates' rates; `turning` gives the relative ω in the rates and in
    the speeds (zero when nothing turns)."""

    def rates(self, tree, joint, q, qd, u):
        tree._rate_speeds(qd, u)
        return self.turning(joint, qd, u)

    def turning(self, joint, qd, u):
        zero = sp.zeros(3, 1)
        return zero, zero


class Revolute(_Rates):
    def pose(self, tree, joint, q):
        return axis_rotation(exact_vector(joint.axis), q[0]), sp.zeros(3, 1)

    def turning(self, joint, qd, u):
        axis = exact_vector(joint.axis)
        return axis * qd[0], axis * u[0]


class Prismatic(_Rates):
    def pose(self, tree, joint, q):
        return sp.eye(3), exact_vector(joint.axis) * q[0]


class Planar(_Rates):
    def pose(self, tree, joint, q):
        return elementary("z", q[2]), sp.Matrix([q[0], q[1], 0])

    def turning(self, joint, qd, u):
        return UNIT["z"] * qd[2], UNIT["z"] * u[2]


class Fixed(_Rates):
    def pose(self, tree, joint, q):
        return sp.eye(3), sp.zeros(3, 1)


class Cylindrical(_Rates):
    def pose(self, tree, joint, q):
        axis = exact_vector(joint.axis)
        return axis_rotation(axis, q[1]), axis * q[0]

    def turning(self, joint, qd, u):
        axis = exact_vector(joint.axis)
        return axis * qd[1], axis * u[1]


class Universal(_Rates):
    def pose(self, tree, joint, q):
        return axis_rotation(exact_vector(joint.axis), q[0]) * axis_rotation(exact_vector(joint.axis2), q[1]), \
            sp.zeros(3, 1)

    def rates(self, tree, joint, q, qd, u):
        tree._rate_speeds(qd, u)
        a1, a2 = exact_vector(joint.axis), exact_vector(joint.axis2)
        first = axis_rotation(a2, -q[1]) * a1  # body axes: ω = R₂ᵀ a₁ θ̇₁ + a₂ θ̇₂
        return first * qd[0] + a2 * qd[1], first * u[0] + a2 * u[1]


class Oriented(SymbolicJoint):
    """Spherical (translations = 0) and free (3) joints: slides, then Euler angles or parameters."""

    def __init__(self, translations: int):
        self.translations = translations

    def pose(self, tree, joint, q):
        if joint.quaternion:
            R_rel = quaternion_matrix(q[-4:])
        else:
            a, b, c = joint.sequence
            R_rel = elementary(a, q[-3]) * elementary(b, q[-2]) * elementary(c, q[-1])
        translation = sp.Matrix(q[:3]) if self.translations else sp.zeros(3, 1)
        return R_rel, translation

    def rates(self, tree, joint, q, qd, u):
        n = self.translations
        tree._rate_speeds(qd[:n], u[:n])
        if joint.quaternion:
            return tree._quaternion_rates(joint, q, qd, u)
        return tree._euler_rates(joint, q, qd, u)


REVOLUTE = Revolute()
PRISMATIC = Prismatic()
PLANAR = Planar()
FIXED = Fixed()
SPHERICAL = Oriented(0)
FREE = Oriented(3)
CYLINDRICAL = Cylindrical()
UNIVERSAL = Universal()
