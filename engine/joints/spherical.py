"""A spherical (ball) joint: a rotation about its centre, three Euler angles or four Euler parameters."""
from __future__ import annotations

from eomlab.engine.joints.type_definition import EX, EY, EZ
from eomlab.engine.joints.oriented import Oriented


class Spherical(Oriented):
    name = "spherical"
    dof = 3
    suffixes = ("psi", "theta", "phi")
    label_units = ("rad", "rad/s")

    def q_unit(self, joint):
        return "Euler parameters e0..e3" if joint.quaternion else self.label_units[0]

    def absolute_rows(self, joint, planar):
        if planar:
            return [], [], []
        return [EX, EY, EZ], [], ["x", "y", "z"]

    def absolute_pin(self, planar):
        return None if planar else "spatial"

    def mjcf_joints(self, writer, element, body):
        writer.joint(element, "ball", f"{body.name}_ball")
        quaternion, rates = writer.rotation_state(body.joint)
        writer.qpos += list(quaternion)
        writer.qvel += list(rates)
