"""A free joint: slides x, y, z along the joint frame's axes, then a rotation as a spherical joint's."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from eomlab.engine.model import GROUND, Joint
from eomlab.engine.joints.oriented import Oriented


class Free(Oriented):
    name = "free"
    dof = 6
    suffixes = ("x", "y", "z", "psi", "theta", "phi")
    translations = 3
    lengths = 3
    centred = True
    travels = True
    label_units = ("m×3, rad×3", "m/s×3, rad/s×3")

    def q_unit(self, joint):
        return "m×3, Euler parameters ×4" if joint.quaternion else self.label_units[0]

    def absolute_rows(self, joint, planar):
        return [], [], []

    def constrains_nothing(self, planar_model):
        return True

    def urdf_joint(self, axis, coordinate, where, limits):
        return Joint("free", orientation="quaternion",
                     names=tuple(f"{coordinate}_{d}" for d in ("x", "y", "z", "e0", "e1", "e2", "e3")))

    def mjcf_joints(self, writer, element, body):
        joint, q, u = body.joint, body.joint.q0, body.joint.u0
        quaternion, rates = writer.rotation_state(joint)
        R, at = np.array(joint.rotation), np.array(joint.at)
        if body.parent == GROUND and np.allclose(R, np.eye(3)) and not np.any(at):
            ET.SubElement(element, "freejoint", name=f"{body.name}_free")
        else:
            for name, axis in zip(joint.names[:3], np.eye(3)):
                writer.joint(element, "slide", name, axis)
            writer.joint(element, "ball", f"{body.name}_ball")
        writer.qpos += [*q[:3], *quaternion]
        writer.qvel += [*u[:3], *rates]
