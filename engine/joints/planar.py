"""A planar joint: slides x, y in the joint frame's x–y plane and a turn θ about its z."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import Joint, ModelError
from eomlab.engine.joints.type_definition import EX, EY, EZ, JointType

_HV = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
_HW = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


class Planar(JointType):
    name = "planar"
    dof = 3
    suffixes = ("x", "y", "theta")
    lengths = 2
    constant_turning = True
    travels = True
    label_units = ("m, m, rad", "m/s, m/s, rad/s")

    def in_plane(self, joint, tolerance):
        return True

    def pose(self, jl, q):
        c, s = np.cos(q[2]), np.sin(q[2])
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]), np.array([q[0], q[1], 0.0])

    def motion(self, jl, q, u):
        R, d = self.pose(jl, q)
        return R, d, _HW.copy(), _HV.copy(), np.zeros(3)

    def planar_layout(self, jl, i, k, theta_map, dx_map, dy_map, rot_sign, slide):
        dx_map[i, k] = dy_map[i, k + 1] = 1.0
        theta_map[i, k + 2] = rot_sign[k + 2] = 1.0
        slide[k], slide[k + 1] = (1.0, 0.0), (0.0, 1.0)

    def joint_values(self, reader, jl, R, d, ref):
        return [float(d[0]), float(d[1]), reader.nearest_turn(math.atan2(R[1, 0], R[0, 0]), float(ref[2]))]

    def absolute_rows(self, joint, planar):
        if planar:
            return [], [], []
        return [EZ], [(EX, EZ), (EY, EZ)], ["z", "tilt_x", "tilt_y"]

    def constrains_nothing(self, planar_model):
        return planar_model

    def pinocchio_chain(self, pin, jl, unit_axes):
        q0 = jl.q_slice.start
        return [(pin.JointModelPX(), [q0]), (pin.JointModelPY(), [q0 + 1]), (pin.JointModelRZ(), [q0 + 2])]

    def urdf_joint(self, axis, coordinate, where, limits):
        if abs(axis[2]) < 1 - 1e-12:
            raise ModelError(f"{where}/axis", "a planar joint is imported with its normal along the joint frame's z only")
        return Joint("planar", names=tuple(f"{coordinate}_{d}" for d in ("x", "y", "theta")))

    def mjcf_joints(self, writer, element, body):
        for name, kind, axis in zip(body.joint.names, ("slide", "slide", "hinge"), np.eye(3)):
            writer.joint(element, kind, name, axis)
        writer.qpos += body.joint.q0
        writer.qvel += body.joint.u0
