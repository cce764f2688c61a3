"""eomlab Model → MJCF, so the same mechanism runs in MuJoCo.

Each body becomes a <body> placed at its joint frame (`at`, `rotation`); the joint acts at the body
origin: revolute → hinge, prismatic → slide, spherical → ball, planar → slide, slide, hinge, free →
a free joint on a top-level body with an unturned joint frame, else slide ×3 and a ball (MuJoCo
composes a body's joints in order, as eomlab's free joint does). Coincident constraints become
`connect` equalities between two sites, distance constraints a spatial tendon held at its length,
springs spatial tendons with stiffness, joint springs the joint's stiffness and damping. The initial
conditions are the first keyframe, the integrator RK4 at the model's `dt`, contacts off. What MuJoCo
cannot express is left out and named in a note.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from eomlab.engine.model import GROUND, Body, Model, joint_type
from eomlab.engine.rotations import EulerSequence, quaternion_from_matrix

# MuJoCo refuses moving bodies without mass or with a zero principal moment (a rod, a point mass):
# they get this much (noted), negligible beside the bodies' own
MASSLESS_FRAME = 1e-9
INERTIA_FLOOR = 1e-9  # relative to the largest moment (kg m² when all are zero)
# MuJoCo's equality constraints are soft: this step and a time constant of 2 steps (its least)
# with impedance near 1 hold a closed loop to ~1e-6 m
CONSTRAINED_TIMESTEP = 1e-4
STIFF = {"solref": f"{2 * CONSTRAINED_TIMESTEP!r} 1", "solimp": "0.9999 0.9999 0.001"}
NOT_EXPRESSIBLE = {
    "prescribed": "a motion prescribed in time",
    "knife_edge": "a nonholonomic (velocity) constraint",
    "rolling_disk": "a nonholonomic (rolling) constraint",
    "expression": "an expression constraint",
    "joint_effort": "an expression force",
    "point_force": "an expression force",
    "body_torque": "an expression torque",
}


def _text(values) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def _children(model: Model) -> dict[str, list[Body]]:
    out: dict[str, list[Body]] = {}
    for body in model.bodies:
        out.setdefault(body.parent, []).append(body)
    return out


def _reference_poses(model: Model) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """World (R, p) of every body frame with all joints at MuJoCo's qpos0 (eomlab's q = 0)."""
    poses = {GROUND: (np.eye(3), np.zeros(3))}
    for body in model.bodies:  # the model lists parents before children
        R0, p0 = poses[body.parent]
        poses[body.name] = (R0 @ np.array(body.joint.rotation), p0 + R0 @ np.array(body.joint.at))
    return poses


def _rotation_state(joint, q, u) -> tuple[np.ndarray, np.ndarray]:
    """(quaternion, body rates) of a spherical or free joint's orientation part."""
    if joint.quaternion:
        p = np.array(q[-4:], dtype=float)
        return p / np.linalg.norm(p), np.array(u[-3:], dtype=float)
    seq = EulerSequence(joint.sequence)
    angles, rates = np.array(q[-3:], dtype=float), np.array(u[-3:], dtype=float)
    if joint.speeds == "euler":
        _, rb, rc = seq.parts(angles)
        rates = seq.rate_matrix_body(rb, rc) @ rates
    return quaternion_from_matrix(seq.matrix(angles)), rates


class Exporter:
    def __init__(self, model: Model):
        self.model = model
        self.notes: list[str] = []
        self.qpos: list[float] = []
        self.qvel: list[float] = []
        self.poses = _reference_poses(model)
        self.root = ET.Element("mujoco", model=model.name)
        ET.SubElement(self.root, "compiler", angle="radian", inertiafromgeom="false", autolimits="true")
        closed = any(c.type in ("coincident", "distance") for c in model.constraints)
        timestep = min(model.settings.dt, CONSTRAINED_TIMESTEP) if closed else model.settings.dt
        option = ET.SubElement(self.root, "option", gravity=_text(model.gravity), timestep=repr(timestep),
                               integrator="RK4")
        ET.SubElement(option, "flag", contact="disable")
        self.worldbody = ET.SubElement(self.root, "worldbody")
        self.elements = {GROUND: self.worldbody}
        self.springs = {f.body: f for f in model.forces if f.type == "joint_spring"}
        self.massless: list[str] = []
        self.raised: list[str] = []

    def joint(self, parent: ET.Element, kind: str, name: str, axis=None) -> ET.Element:
        attrs = {"name": name, "type": kind}
        if axis is not None:
            attrs["axis"] = _text(axis)
        return ET.SubElement(parent, "joint", attrs)

    def joints(self, element: ET.Element, body: Body) -> None:
        joint = body.joint
        before = len(element)
        joint_type(joint.type).mjcf_joints(self, element, body)
        if joint.armature:  # on each of its MuJoCo joints (a <freejoint> takes none: written as a free <joint>)
            for written in element[before:]:
                if written.tag == "freejoint":
                    written.tag = "joint"
                    written.set("type", "free")
                if written.tag == "joint":
                    written.set("armature", repr(float(joint.armature)))
        if body.name in self.springs and joint.dof != 1:
            self.notes.append(f"joint spring {self.springs[body.name].name} on a {joint.type} joint not exported "
                              "(MuJoCo's joint stiffness is per hinge or slide)")

    def rotation_state(self, joint) -> tuple[np.ndarray, np.ndarray]:
        """(quaternion, body rates) of a spherical or free joint's orientation part (for its type)."""
        return _rotation_state(joint, joint.q0, joint.u0)

    def spring(self, element: ET.Element, body: Body) -> None:
        spring = self.springs.get(body.name)
        if spring is not None:
            element.set("stiffness", repr(spring.stiffness))
            element.set("springref", repr(spring.rest[0]))
            element.set("damping", repr(spring.damping))

    def body(self, body: Body) -> None:
        element = ET.SubElement(self.elements[body.parent], "body", name=body.name, pos=_text(body.joint.at),
                                quat=_text(quaternion_from_matrix(np.array(body.joint.rotation))))
        self.elements[body.name] = element
        self.joints(element, body)
        mass = body.mass
        if mass == 0 and (body.joint.dof or np.any(np.array(body.inertia))):  # a rotor of no mass keeps its inertia
            mass = MASSLESS_FRAME
            self.massless.append(body.name)
        if mass > 0:
            I = np.array(body.inertia)
            floor = INERTIA_FLOOR * max(float(np.max(np.abs(I))), mass, 1e-3)
            if np.linalg.eigvalsh(I)[0] < floor:
                I = I + floor * np.eye(3)
                self.raised.append(body.name)
            ET.SubElement(element, "inertial", pos=_text(body.com), mass=repr(mass),
                          fullinertia=_text([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]))
        self.geom(element, body)

    def geom(self, element: ET.Element, body: Body) -> None:
        shape = body.shape
        if shape is None:
            return
        drawn = {"contype": "0", "conaffinity": "0"}
        if shape.kind == "rod" and shape.length > 0:
            ET.SubElement(element, "geom", type="capsule", fromto=_text([0, 0, 0, shape.length, 0, 0]),
                          size=repr(0.02 * shape.length), **drawn)
        elif shape.kind == "disk" and shape.radius > 0:
            ET.SubElement(element, "geom", type="cylinder", pos=_text(body.com),
                          size=_text([shape.radius, 0.05 * shape.radius]), **drawn)
        elif shape.kind == "box" and min(shape.size) > 0:
            ET.SubElement(element, "geom", type="box", pos=_text(body.com), size=_text(np.array(shape.size) / 2), **drawn)
        elif shape.kind == "sphere" and shape.radius > 0:
            ET.SubElement(element, "geom", type="sphere", pos=_text(body.com), size=repr(shape.radius), **drawn)
        else:
            ET.SubElement(element, "geom", type="sphere", pos=_text(body.com), size="0.05", **drawn)

    def site(self, ref, name: str) -> str:
        ET.SubElement(self.elements[ref.body], "site", name=name, pos=_text(ref.point))
        return name

    def world_point(self, ref) -> np.ndarray:
        R, p = self.poses[ref.body]
        return p + R @ np.array(ref.point)

    def constraints_and_forces(self) -> None:
        equality = ET.Element("equality")
        tendons = ET.Element("tendon")
        for c in self.model.constraints:
            if c.type == "coincident":
                ET.SubElement(equality, "connect", name=c.name, site1=self.site(c.a, f"{c.name}_a"),
                              site2=self.site(c.b, f"{c.name}_b"), **STIFF)
                if tuple(c.dims) != ("x", "y", "z"):
                    self.notes.append(f"constraint {c.name}: coincident in {', '.join(c.dims)} only, exported as a "
                                      "3-D connect (the same while the points keep their other coordinates equal)")
            elif c.type == "distance":
                self.tendon(tendons, c.name, c.a, c.b)
                # MuJoCo holds a tendon at its reference length (at qpos0) plus polycoef[0]
                length0 = float(np.linalg.norm(self.world_point(c.a) - self.world_point(c.b)))
                ET.SubElement(equality, "tendon", name=c.name, tendon1=c.name,
                              polycoef=_text([c.length - length0, 0, 0, 0, 0]), **STIFF)
            else:
                self.notes.append(f"constraint {c.name} not exported: MuJoCo cannot express {NOT_EXPRESSIBLE[c.type]}")
        for c in self.model.contacts:
            self.notes.append(f"contact {c.name} not exported (eomlab's impacts by Newton's law have no MuJoCo "
                              "counterpart here; the joint limits are exported as ranges)")
        for f in self.model.forces:
            if f.type == "spring":
                tendon = self.tendon(tendons, f.name, f.a, f.b)
                tendon.set("stiffness", repr(f.stiffness))
                tendon.set("damping", repr(f.damping))
                tendon.set("springlength", repr(f.rest_length))
            elif f.type != "joint_spring":
                self.notes.append(f"force {f.name} not exported: MuJoCo cannot express {NOT_EXPRESSIBLE[f.type]}")
        for element in (tendons, equality):
            if len(element):
                self.root.append(element)

    def tendon(self, tendons: ET.Element, name: str, a, b) -> ET.Element:
        tendon = ET.SubElement(tendons, "spatial", name=name)
        ET.SubElement(tendon, "site", site=self.site(a, f"{name}_a"))
        ET.SubElement(tendon, "site", site=self.site(b, f"{name}_b"))
        return tendon

    def text(self) -> str:
        children = _children(self.model)
        stack = list(reversed(children.get(GROUND, [])))
        while stack:  # depth first: MuJoCo numbers qpos in this order
            body = stack.pop()
            self.body(body)
            stack += reversed(children.get(body.name, []))
        self.constraints_and_forces()
        if self.massless:
            self.notes.append(f"massless bodies given {MASSLESS_FRAME:g} kg (MuJoCo needs a mass): {', '.join(self.massless)}")
        if self.raised:
            self.notes.append(f"inertia raised by {INERTIA_FLOOR:g} of the largest moment about every axis (MuJoCo "
                              f"needs positive principal moments): {', '.join(self.raised)}")
        if self.qpos:
            keyframe = ET.SubElement(self.root, "keyframe")
            ET.SubElement(keyframe, "key", name="initial", qpos=_text(self.qpos), qvel=_text(self.qvel))
        ET.indent(self.root)
        return ET.tostring(self.root, encoding="unicode") + "\n"


def mjcf_text(model: Model) -> tuple[str, list[str]]:
    exporter = Exporter(model)
    text = exporter.text()
    return text, exporter.notes

