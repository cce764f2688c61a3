"""A revolute joint: one turn θ about its `axis`."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.rotations import AxisRotation, axis_angle_matrix, perpendiculars
from eomlab.engine.joints.type_definition import EX, EY, EZ, AxisJoint


class Revolute(AxisJoint):
    name = "revolute"
    dof = 1
    suffixes = ("theta",)
    label_units = ("rad", "rad/s")
    single_turn = True
    mjcf_kind = "hinge"

    def in_plane(self, joint, tolerance):
        return abs(abs(joint.axis[2]) - 1.0) <= tolerance

    def pose(self, jl, q):
        return axis_angle_matrix(jl.axis, q[0]), np.zeros(3)

    def motion(self, jl, q, u):
        zero3 = np.zeros(3)
        return axis_angle_matrix(jl.axis, q[0]), zero3, jl.axis[:, None], np.zeros((3, 1)), zero3

    def prepare(self, jl):
        return AxisRotation(jl.axis)

    def place(self, jl, qj, prepared, Hw_cols, euler_parts):
        return prepared(qj[0]), None

    def planar_layout(self, jl, i, k, theta_map, dx_map, dy_map, rot_sign, slide):
        theta_map[i, k] = rot_sign[k] = math.copysign(1.0, jl.axis[2])

    def joint_values(self, reader, jl, R, d, ref):
        return [reader.angle(jl, R, float(ref[0]))]

    def absolute_rows(self, joint, planar):
        if planar:
            return [EX, EY], [], ["x", "y"]
        a = np.array(joint.axis, float)
        n1, n2 = perpendiculars(a)
        return [EX, EY, EZ], [(n1, a), (n2, a)], ["x", "y", "z", "axis1", "axis2"]

    def absolute_pin(self, planar):
        return "planar" if planar else None

    def pinocchio_chain(self, pin, jl, unit_axes):
        axis = np.array(jl.axis, dtype=float)
        aligned = unit_axes.get(tuple(float(a) for a in axis))
        model = getattr(pin, f"JointModel{aligned}")() if aligned else pin.JointModelRevoluteUnaligned(axis)
        return [(model, [jl.q_slice.start])]

