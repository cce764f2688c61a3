"""A universal (Hooke, cardan) joint: a turn θ₁ about `axis`, then a turn θ₂ about `axis2` in the
frame turned by the first, R = R(axis, θ₁) R(axis2, θ₂) (coordinates <body>_theta1, <body>_theta2).
The axes are perpendicular, as a cross's arms are."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import ModelError
from eomlab.engine.rotations import axis_angle_matrix, cross
from eomlab.engine.joints.type_definition import EX, EY, EZ, JointType


class Universal(JointType):
    name = "universal"
    dof = 2
    suffixes = ("theta1", "theta2")
    uses_axis = True
    uses_axis2 = True
    label_units = ("rad, rad", "rad/s, rad/s")

    def check(self, joint, path):
        if abs(float(np.dot(joint.axis, joint.axis2))) > 1e-9:
            raise ModelError(f"{path}.axis2", "a universal joint's axis2 must be perpendicular to its axis")

    def in_plane(self, joint, tolerance):
        return False  # its second turn tilts the body out of any plane the first keeps

    def _turns(self, jl, q):
        return axis_angle_matrix(jl.axis, q[0]), axis_angle_matrix(jl.axis2, q[1])

    def pose(self, jl, q):
        R1, R2 = self._turns(jl, q)
        return R1 @ R2, np.zeros(3)

    def motion(self, jl, q, u):
        R1, R2 = self._turns(jl, q)
        second = R1 @ jl.axis2  # the second axis, turned by the first turn (joint frame)
        Hw = np.column_stack((jl.axis, second))
        return R1 @ R2, np.zeros(3), Hw, np.zeros((3, 2)), self.rate_bias(jl.axis, second, u)

    def place(self, jl, qj, prepared, Hw_cols, euler_parts):
        R1, R2 = self._turns(jl, qj)
        second = R1 @ jl.axis2
        s = jl.u_slice
        Hw_cols[s.start] = jl.axis
        Hw_cols[s.start + 1] = second
        euler_parts[jl.body] = (self._bias_of_u, (jl, second))
        return R1 @ R2, None

    @staticmethod
    def rate_bias(axis, second, rates):
        """Ḣw u: the second axis turns with the first turn, d/dt(R₁ a₂) = θ̇₁ a₁ × R₁ a₂."""
        return rates[0] * rates[1] * cross(axis, second)

    def _bias_of_u(self, jl, second, u):
        return self.rate_bias(jl.axis, second, u[jl.u_slice])

    def joint_values(self, reader, jl, R, d, ref):
        a1, a2 = jl.axis, jl.axis2
        a3 = cross(a1, a2)
        turned = R @ a2  # = R₁ a₂: the first turn alone moves a₂
        theta1 = reader.nearest_turn(math.atan2(float(a3 @ turned), float(a2 @ turned)), float(ref[0]))
        R2 = axis_angle_matrix(a1, theta1).T @ R
        spun = R2 @ a1
        theta2 = reader.nearest_turn(math.atan2(float(-a3 @ spun), float(a1 @ spun)), float(ref[1]))
        return [theta1, theta2]

    def absolute_rows(self, joint, planar):
        return [EX, EY, EZ], [(np.array(joint.axis, float), np.array(joint.axis2, float))], ["x", "y", "z", "cross"]

    def pinocchio_chain(self, pin, jl, unit_axes):
        q0 = jl.q_slice.start
        return [(pin.JointModelRevoluteUnaligned(np.array(jl.axis, dtype=float)), [q0]),
                (pin.JointModelRevoluteUnaligned(np.array(jl.axis2, dtype=float)), [q0 + 1])]

    def mjcf_joints(self, writer, element, body):
        joint = body.joint
        for name, axis in zip(joint.names, (joint.axis, joint.axis2)):
            writer.joint(element, "hinge", name, axis)
        writer.qpos += joint.q0
        writer.qvel += joint.u0
