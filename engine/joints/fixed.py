"""A fixed joint: the body keeps its joint frame's pose."""
from __future__ import annotations

import numpy as np

from eomlab.engine.model import Joint
from eomlab.engine.joints.type_definition import EX, EY, EZ, JointType


class Fixed(JointType):
    name = "fixed"

    def in_plane(self, joint, tolerance):
        return True

    def pose(self, jl, q):
        return np.eye(3), np.zeros(3)

    def motion(self, jl, q, u):
        zero3 = np.zeros(3)
        return np.eye(3), zero3, np.zeros((3, 0)), np.zeros((3, 0)), zero3

    def place(self, jl, qj, prepared, Hw_cols, euler_parts):
        return None, None

    def planar_layout(self, jl, i, k, theta_map, dx_map, dy_map, rot_sign, slide):
        pass

    def joint_values(self, reader, jl, R, d, ref):
        return []

    def absolute_rows(self, joint, planar):
        if planar:
            return [EX, EY], [(EX, EY)], ["x", "y", "angle"]
        return [EX, EY, EZ], [(EY, EZ), (EZ, EX), (EX, EY)], ["x", "y", "z", "rx", "ry", "rz"]

    def pinocchio_chain(self, pin, jl, unit_axes):
        return []

    def urdf_joint(self, axis, coordinate, where, limits):
        return Joint("fixed")

    def mjcf_joints(self, writer, element, body):
        pass
