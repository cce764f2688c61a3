"""A cylindrical joint: a slide s along its `axis` and a turn θ about it (coordinates <body>_s,
<body>_theta): a prismatic and a revolute joint on one axis, in one body."""
from __future__ import annotations

import numpy as np

from eomlab.engine.rotations import axis_angle_matrix, perpendiculars
from eomlab.engine.joints.type_definition import JointType


class Cylindrical(JointType):
    name = "cylindrical"
    dof = 2
    suffixes = ("s", "theta")
    lengths = 1
    uses_axis = True
    constant_turning = True
    label_units = ("m, rad", "m/s, rad/s")

    def in_plane(self, joint, tolerance):
        return False  # it turns about its axis and slides along it: never both in the x–y plane

    def pose(self, jl, q):
        return axis_angle_matrix(jl.axis, q[1]), jl.axis * q[0]

    def motion(self, jl, q, u):
        a, zero = jl.axis[:, None], np.zeros((3, 1))
        return axis_angle_matrix(jl.axis, q[1]), jl.axis * q[0], np.hstack((zero, a)), np.hstack((a, zero)), np.zeros(3)

    def joint_values(self, reader, jl, R, d, ref):
        return [float(jl.axis @ d) / float(jl.axis @ jl.axis), reader.angle(jl, R, float(ref[1]))]

    def absolute_rows(self, joint, planar):
        a = np.array(joint.axis, float)
        n1, n2 = perpendiculars(a)
        return [n1, n2], [(n1, a), (n2, a)], ["lateral1", "lateral2", "axis1", "axis2"]

    def pinocchio_chain(self, pin, jl, unit_axes):
        axis, q0 = np.array(jl.axis, dtype=float), jl.q_slice.start
        return [(pin.JointModelPrismaticUnaligned(axis), [q0]), (pin.JointModelRevoluteUnaligned(axis), [q0 + 1])]

    def mjcf_joints(self, writer, element, body):
        joint = body.joint
        for name, kind in zip(joint.names, ("slide", "hinge")):
            writer.joint(element, kind, name, joint.axis)
        writer.qpos += joint.q0
        writer.qvel += joint.u0
