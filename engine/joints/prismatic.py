"""A prismatic joint: a slide s along its `axis`."""
from __future__ import annotations

import numpy as np

from eomlab.engine.rotations import perpendiculars
from eomlab.engine.joints.type_definition import EX, EY, EZ, AxisJoint

Z = np.array([0.0, 0.0, 1.0])


class Prismatic(AxisJoint):
    name = "prismatic"
    dof = 1
    suffixes = ("s",)
    lengths = 1
    label_units = ("m", "m/s")
    rail = True
    mjcf_kind = "slide"

    def in_plane(self, joint, tolerance):
        return abs(joint.axis[2]) <= tolerance

    def pose(self, jl, q):
        return np.eye(3), jl.axis * q[0]

    def motion(self, jl, q, u):
        return np.eye(3), jl.axis * q[0], np.zeros((3, 1)), jl.axis[:, None], np.zeros(3)

    def place(self, jl, qj, prepared, Hw_cols, euler_parts):
        return None, jl.axis * qj[0]

    def planar_layout(self, jl, i, k, theta_map, dx_map, dy_map, rot_sign, slide):
        dx_map[i, k], dy_map[i, k] = jl.axis[0], jl.axis[1]
        slide[k] = jl.axis[:2]

    def joint_values(self, reader, jl, R, d, ref):
        return [float(jl.axis @ d) / float(jl.axis @ jl.axis)]

    def absolute_rows(self, joint, planar):
        a = np.array(joint.axis, float)
        if planar:
            return [np.cross(Z, a)], [(EX, EY)], ["lateral", "angle"]
        n1, n2 = perpendiculars(a)
        return [n1, n2], [(EY, EZ), (EZ, EX), (EX, EY)], ["lateral1", "lateral2", "rx", "ry", "rz"]

    def pinocchio_chain(self, pin, jl, unit_axes):
        return [(pin.JointModelPrismaticUnaligned(np.array(jl.axis, dtype=float)), [jl.q_slice.start])]

