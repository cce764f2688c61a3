"""MJCF (MuJoCo's model format) → eomlab Model.

Nested <body> elements become bodies. A joint's anchor (`pos`) becomes the eomlab body frame's
origin, so mass centres and child positions are shifted by it; a body with several joints becomes a
chain of massless frames, one per joint, as MuJoCo composes them in order. Ball and free joints use
Euler parameters (``"orientation": "quaternion"``) and body-rate speeds, so MuJoCo's qpos and qvel map
one to one; the first <key> gives q0 and u0. Joint stiffness and damping become a joint spring.
`connect` equality constraints become coincident constraints.
"""
from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace

import numpy as np

from eomlab.engine.model import GROUND, Coincident, Joint, JointSpring, Model, ModelError, PointRef, Settings, joint_type
from eomlab.engine.rotations import axis_angle_matrix, elementary, quaternion_matrix
from eomlab.engine.robot_formats.building import Identifiers, Unmapped, body, checked_inertia, checked_mass, numbers, shape_for, unit_axis
from eomlab.engine.robot_formats.mjcf_inertia import InertiaRules, body_mass_properties, mesh_mass_properties, scale_to_total
from eomlab.engine.robot_formats.mjcf_joints import REF_KINDS, joint_details, joint_equality, placed_at_ref, scalar, spring_dampers
from eomlab.engine.robot_formats.mjcf_options import option_gravity
from eomlab.engine.robot_formats.xml_files import inside_folder, mesh_bounds, parse_xml

MAX_INCLUDE_DEPTH = 10
NOT_MAPPED = {"tendon": "eomlab has no tendons", "actuator": "eomlab has no actuators (add joint efforts)",
              "contact": "eomlab has no contacts", "sensor": "not simulated",
              "extension": "plugins are not read", "custom": "not read", "visual": "not read",
              "deformable": "eomlab bodies are rigid"}
BODY_EXTRAS = {"site": "markers only", "camera": "not drawn", "light": "not drawn", "composite": "not expanded",
               "flexcomp": "eomlab bodies are rigid", "plugin": "not read", "attach": "not expanded",
               "frame": "not expanded: put the bodies in a <body>"}
QPOS_SIZE = {"hinge": 1, "slide": 1, "ball": 4, "free": 7}
QVEL_SIZE = {"hinge": 1, "slide": 1, "ball": 3, "free": 6}
#: the eomlab joint type of each MuJoCo joint type (engine.joints builds it: JointType.mjcf_joint)
JOINT_TYPES = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical", "free": "free"}
#: MuJoCo joint types whose qpos is the body's pose in the world (no anchor, the only joint of a root body)
WORLD_POSE = ("free",)


def _expand_includes(root: ET.Element, folder: str) -> None:
    """Replace every <include file=…/> by the children of that file's root, in place (an included
    file's own includes one level deeper). A loop over the elements, not a recursion: 1000 nested
    bodies ended in RecursionError here."""
    stack = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        pending, kept, changed = [(child, depth) for child in element], [], False
        while pending:
            child, level = pending.pop(0)
            if child.tag != "include":
                kept.append((child, level))
                continue
            changed = True
            where = f'<include file="{child.get("file")}">'
            if level >= MAX_INCLUDE_DEPTH:
                raise ModelError(where, f"includes nested deeper than {MAX_INCLUDE_DEPTH}")
            included = parse_xml(inside_folder(folder, child.get("file") or "", where))
            pending[0:0] = [(grandchild, level + 1) for grandchild in included]
        if changed:
            element[:] = [child for child, _ in kept]
        stack.extend(kept)


class Defaults:
    """<default> classes: attribute values per element tag, nested classes inheriting."""

    def __init__(self, root: ET.Element):
        self.classes: dict[str, dict[str, dict]] = {"main": {}}
        stack = [(default, {}) for default in reversed(root.findall("default"))]
        while stack:  # in document order, parents before children (a loop: nesting may be deep)
            element, inherited = stack.pop()
            attrs = {tag: dict(values) for tag, values in inherited.items()}
            for child in element:
                if child.tag != "default":
                    attrs.setdefault(child.tag, {}).update(child.attrib)
            self.classes[element.get("class", "main")] = attrs
            stack.extend((child, attrs) for child in reversed(element.findall("default")))

    def get(self, element: ET.Element, key: str, active: str, default=None):
        if key in element.attrib:
            return element.get(key)
        cls = self.classes.get(element.get("class") or active, {})
        tag = "joint" if element.tag == "freejoint" else element.tag
        return cls.get(tag, {}).get(key, default)


@dataclass
class Reader:
    root: ET.Element
    path: str
    folder: str
    defaults: Defaults
    degrees: bool = True
    eulerseq: str = "xyz"
    meshdir: str = ""
    ids: Identifiers = field(default_factory=Identifiers)
    unmapped: Unmapped = field(default_factory=Unmapped)
    bodies: list = field(default_factory=list)
    forces: list = field(default_factory=list)
    joints: list = field(default_factory=list)  # (mjcf type, eomlab body index) in qpos order
    frames: dict = field(default_factory=dict)  # mjcf body name → (eomlab body, shift, world R, world p at qpos0)
    meshes: dict = field(default_factory=dict)
    springs: dict = field(default_factory=dict)  # coordinate name → (stiffness, rest, damping)
    spring_dampers: dict = field(default_factory=dict)  # coordinate name → (timeconst, dampratio, where)
    spring_rest: dict = field(default_factory=dict)  # coordinate name → springref, then (springref, body)
    joint_names: dict = field(default_factory=dict)  # MJCF joint name → (coordinate name, MuJoCo type, ref)
    inertia_rules: InertiaRules = field(default_factory=InertiaRules)  # <compiler>'s mass rules

    def angle(self, value: float) -> float:
        return math.radians(value) if self.degrees else value

    def orientation(self, element: ET.Element, where: str, active: str) -> np.ndarray:
        """The rotation given by quat, axisangle, euler, xyaxes or zaxis (identity when none)."""
        get = lambda key: self.defaults.get(element, key, active)  # noqa: E731
        if get("quat") is not None:
            q = numbers(get("quat"), 4, f"{where} quat")
            if not np.linalg.norm(q) > 0:
                raise ModelError(f"{where} quat", "is zero")
            return quaternion_matrix(q)
        if get("axisangle") is not None:
            v = numbers(get("axisangle"), 4, f"{where} axisangle")
            return axis_angle_matrix(unit_axis(v[:3], f"{where} axisangle"), self.angle(v[3]))
        if get("euler") is not None:
            angles = [self.angle(a) for a in numbers(get("euler"), 3, f"{where} euler")]
            R = np.eye(3)
            for letter, a in zip(self.eulerseq, angles):
                turn = elementary(letter.lower(), a)
                R = R @ turn if letter.islower() else turn @ R  # lower case: moving axes
            return R
        if get("xyaxes") is not None:
            v = numbers(get("xyaxes"), 6, f"{where} xyaxes")
            x = unit_axis(v[:3], f"{where} xyaxes")
            y = v[3:] - (v[3:] @ x) * x
            y = unit_axis(y, f"{where} xyaxes")
            return np.column_stack((x, y, np.cross(x, y)))
        if get("zaxis") is not None:
            z = unit_axis(numbers(get("zaxis"), 3, f"{where} zaxis"), f"{where} zaxis")
            axis = np.cross([0.0, 0.0, 1.0], z)
            s, c = float(np.linalg.norm(axis)), float(z[2])
            return np.eye(3) if s < 1e-12 and c > 0 else axis_angle_matrix(
                axis / s if s > 1e-12 else np.array([1.0, 0.0, 0.0]), math.atan2(s, c))
        return np.eye(3)

    # --- mass and shape -------------------------------------------------------------------

    def inertial(self, element: ET.Element, where: str, active: str) -> tuple[float, np.ndarray, np.ndarray]:
        inertial = element.find("inertial")
        if inertial is None:
            return body_mass_properties(self, element, where, active, None)  # MuJoCo's rules: mjcf_inertia
        iwhere = f"{where}/inertial"
        get = lambda key: self.defaults.get(inertial, key, active)  # noqa: E731
        mass = checked_mass(numbers(get("mass"), 1, f"{iwhere} mass")[0], f"{iwhere} mass")
        com = numbers(get("pos"), 3, f"{iwhere} pos")
        if get("fullinertia") is not None:
            xx, yy, zz, xy, xz, yz = numbers(get("fullinertia"), 6, f"{iwhere} fullinertia")
            tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        else:
            tensor = np.diag(numbers(get("diaginertia"), 3, f"{iwhere} diaginertia"))
        R = self.orientation(inertial, iwhere, active)
        tensor = R @ tensor @ R.T
        if not self.inertia_rules.balance:  # else balanceinertia evens out moments (mjcf_inertia.bounded)
            tensor = checked_inertia(tensor, iwhere, mass, float(np.linalg.norm(com)), self.clipped, self.balanced)
        return body_mass_properties(self, element, where, active, (mass, com, tensor))

    def clipped(self, where: str) -> None:
        self.unmapped.add("rounding-level negative principal moments", where, "clipped to 0")

    def balanced(self, where: str) -> None:
        self.unmapped.add("rounding-level breaks of the triangle inequality", where, "the smaller moments raised to meet it")

    def shape(self, element: ET.Element, where: str, active: str):
        geoms = element.findall("geom")
        if len(geoms) > 1:
            self.unmapped.add("extra geoms", where, "one shape per body: the first is drawn")
        if not geoms:
            return None
        geom = geoms[0]
        get = lambda key, default=None: self.defaults.get(geom, key, active, default)  # noqa: E731
        kind = get("type", "sphere")
        gwhere = f"{where}/geom"
        text = get("size") or "0"
        size = list(numbers(text, len(text.split()), f"{gwhere} size")) + [0.0, 0.0, 0.0]
        fromto = get("fromto")
        if kind in ("capsule", "cylinder") or (fromto and kind in ("box", "ellipsoid")):
            # with fromto, size[0] is the half-width across the segment and the segment is the length
            length = (float(np.linalg.norm(np.subtract(*np.split(numbers(fromto, 6, f"{gwhere} fromto"), 2))))
                      if fromto else 2 * (size[1] if len(size) > 1 else 0.0))
            return shape_for("cylinder", np.array([size[0], length]))
        if kind == "sphere":
            return shape_for("sphere", np.array(size[:1]))
        if kind in ("box", "ellipsoid"):
            return shape_for("box", 2 * np.array(size[:3]))
        if kind == "mesh":
            return self.mesh_shape(get("mesh"), gwhere)
        self.unmapped.add("geoms", f"{gwhere} ({kind})", "no matching eomlab shape")
        return None

    def mesh_shape(self, name: str | None, where: str):
        asset = self.meshes.get(name)
        if asset is not None and asset.get("file") is None and asset.get("vertex"):  # inline vertices
            mesh_mass_properties(self, name, where)  # checks the vertices
            return shape_for("box", np.ptp(np.reshape(numbers(asset.get("vertex"), len(asset.get("vertex").split()),
                                                              f'<mesh name="{name}"> vertex'), (-1, 3)), axis=0))
        if asset is None or asset.get("file") is None:
            raise ModelError(where, f"names an unknown mesh {name!r}")
        path = inside_folder(self.folder, os.path.join(self.meshdir, asset.get("file")), f'<mesh name="{name}">')
        lower, upper = mesh_bounds(path, f'<mesh name="{name}">')
        scale = numbers(asset.get("scale"), 3, f'<mesh name="{name}"> scale', (1.0, 1.0, 1.0))
        self.unmapped.add("meshes", f"{name}", "drawn as their bounding box")
        return shape_for("box", np.abs(upper - lower) * np.abs(scale))

    # --- joints and bodies ----------------------------------------------------------------

    def joint(self, element: ET.Element, body_name: str, where: str, active: str) -> tuple[str, Joint, np.ndarray]:
        """(MuJoCo type, eomlab joint without placement, anchor in the body frame); its armature set,
        and its ref (MuJoCo's qpos0 of a hinge or slide) as its q0 (mjcf_joints)."""
        kind = "free" if element.tag == "freejoint" else self.defaults.get(element, "type", active, "hinge")
        if kind not in QPOS_SIZE:
            raise ModelError(f"{where} type", f"unknown joint type {kind!r}; expected hinge, slide, ball or free")
        name = self.ids.claim(element.get("name") or f"{body_name}_{kind}", "coordinate")
        get = lambda key, default=None: self.defaults.get(element, key, active, default)  # noqa: E731
        anchor = numbers(get("pos"), 3, f"{where} pos", (0.0, 0.0, 0.0)) if kind not in WORLD_POSE else np.zeros(3)
        # a <freejoint> takes no class defaults in MuJoCo (its armature, damping, stiffness stay 0)
        armature, ref = joint_details(self, kind, name, get, where) if element.tag != "freejoint" else (0.0, 0.0)
        joint = joint_type(JOINT_TYPES[kind]).mjcf_joint(self, name, get, where)
        joint = replace(joint, armature=armature, **({"q0": (ref,)} if kind in REF_KINDS else {}))
        self.joint_names[element.get("name") or name] = (name, kind, ref)
        return kind, joint, anchor

    def axis_joint(self, kind: str, name: str, get, where: str) -> Joint:
        """A hinge's or a slide's eomlab joint (`kind` the eomlab type), its limits and its spring."""
        hinge = joint_type(kind).single_turn
        axis = unit_axis(numbers(get("axis"), 3, f"{where} axis", (0.0, 0.0, 1.0)), f"{where} axis")
        limits = ()
        limited = get("limited", "auto")
        if get("range") is not None and limited in ("true", "auto"):
            low, high = numbers(get("range"), 2, f"{where} range")
            limits = (self.angle(low), self.angle(high)) if hinge else (low, high)
        stiffness, damping = scalar(get("stiffness"), f"{where} stiffness"), scalar(get("damping"), f"{where} damping")
        if stiffness < 0 or damping < 0:
            raise ModelError(f"{where} {'stiffness' if stiffness < 0 else 'damping'}", "must be >= 0")
        rest = scalar(get("springref"), f"{where} springref")
        rest = self.angle(rest) if hinge else rest
        if (stiffness or damping) and name not in self.spring_dampers:  # a springdamper overrides both
            self.springs[name] = (stiffness, rest, damping)
        self.spring_rest[name] = rest
        return Joint(kind, axis=tuple(axis), names=(name,), limits=limits)

    def read_bodies(self, element: ET.Element) -> None:
        """The bodies under `element` (<worldbody>), depth first in document order, by a loop: a
        1000-link chain is 1000 nested <body> elements, beyond Python's recursion limit."""
        stack = [(child, GROUND, np.zeros(3), np.eye(3), np.zeros(3), "main")
                 for child in reversed(element) if child.tag == "body"]
        while stack:
            stack.extend(reversed(self.read_body(*stack.pop())))

    def read_body(self, element: ET.Element, parent: str, parent_shift: np.ndarray, parent_R: np.ndarray,
                  parent_p: np.ndarray, active: str) -> list:
        """One <body>; what its child bodies need to be read, in order."""
        mjcf_name = element.get("name") or f"body{len(self.frames) + 1}"
        where = f'body "{mjcf_name}"'
        active = element.get("childclass") or active
        if element.get("mocap") == "true":
            self.unmapped.add("mocap bodies", where, "moved by data, not dynamics: imported as fixed")
        name = self.ids.claim(mjcf_name, "body")
        pos = numbers(element.get("pos"), 3, f"{where} pos", (0.0, 0.0, 0.0))
        R = self.orientation(element, where, active)
        world_R, world_p = parent_R @ R, parent_p + parent_R @ pos
        joints = [(j, self.joint(j, name, f'{where}/joint "{j.get("name", "")}"', active))
                  for j in element if j.tag in ("joint", "freejoint")]
        if any(kind in WORLD_POSE for _, (kind, _, _) in joints) and (parent != GROUND or len(joints) > 1):
            raise ModelError(where, "a free joint must be the only joint of a body in <worldbody>")
        at, rotation, shift, last = pos - parent_shift, R, np.zeros(3), parent
        q0 = {}
        for k, (_, (kind, joint, anchor)) in enumerate(joints):
            frame_name = name if k == len(joints) - 1 else self.ids.claim(f"{name}_{joint.names[0]}", "body")
            at = at + rotation @ (anchor - shift)
            if kind in WORLD_POSE:  # MuJoCo's qpos of a free joint is the body's pose in the world
                q0 = {"q0": (*at, *_quaternion(rotation)), "u0": (0.0,) * 6}
                at, rotation = np.zeros(3), np.eye(3)
            joint = replace(joint, **q0)
            if kind in REF_KINDS:  # the body in the file's pose at q = ref (MuJoCo's qpos0)
                at, rotation = placed_at_ref(kind, joint.axis, at, rotation, joint.q0[0])
                self.spring_rest[joint.names[0]] = (self.spring_rest[joint.names[0]], frame_name)
            mass, com, inertia, shape = 0.0, np.zeros(3), np.zeros((3, 3)), None
            if k == len(joints) - 1:
                mass, com, inertia = self.inertial(element, where, active)
                com, shape = com - anchor, self.shape(element, where, active)
            self.bodies.append(body(frame_name, last, joint, at, rotation, mass, com, inertia, shape))
            self.joints.append((kind, len(self.bodies) - 1))
            if joint.names[0] in self.springs:  # MuJoCo's joint stiffness and damping
                stiffness, rest, damping = self.springs[joint.names[0]]
                self.forces.append(JointSpring(self.ids.claim(f"{joint.names[0]}_spring"), frame_name, stiffness,
                                               (rest,), damping))
            at, rotation, shift, last = np.zeros(3), np.eye(3), anchor, frame_name
        if not joints:
            mass, com, inertia = self.inertial(element, where, active)
            self.bodies.append(body(name, parent, Joint("fixed"), at, rotation, mass, com, inertia,
                                    self.shape(element, where, active)))
        self.frames[mjcf_name] = (name, shift, world_R, world_p)
        children = []
        for child in element:
            if child.tag == "body":
                children.append((child, name, shift, world_R, world_p, active))
            elif child.tag in BODY_EXTRAS:
                self.unmapped.add(f"<{child.tag}>", f"{where}/{child.tag}", BODY_EXTRAS[child.tag])
        return children

    # --- whole model ----------------------------------------------------------------------

    def equality(self, element: ET.Element) -> list:
        constraints = []
        for k, eq in enumerate(element):
            where = f"<equality>/{eq.tag}[{k}]"
            if eq.get("active", "true") == "false":
                self.unmapped.add("inactive equality constraints", eq.get("name") or where, "not imported")
                continue
            if eq.tag == "joint":
                constraints.append(joint_equality(self, eq, where))
                continue
            if eq.tag != "connect" or eq.get("site1"):
                self.unmapped.add(f"<{eq.tag}> equality constraints", eq.get("name") or where,
                                  "only connect (body1, body2, anchor) and joint are imported")
                continue
            b1, b2 = eq.get("body1"), eq.get("body2") or "world"
            for b in (b1, b2):
                if b != "world" and b not in self.frames:
                    raise ModelError(where, f"names an unknown body {b!r}")
            anchor = numbers(eq.get("anchor"), 3, f"{where} anchor")
            name1, shift1, R1, p1 = self.frames.get(b1, (GROUND, np.zeros(3), np.eye(3), np.zeros(3)))
            name2, shift2, R2, p2 = self.frames.get(b2, (GROUND, np.zeros(3), np.eye(3), np.zeros(3)))
            world = p1 + R1 @ anchor  # body2's point: where the anchor is in the reference pose
            point2 = R2.T @ (world - p2)
            constraints.append(Coincident(self.ids.claim(eq.get("name") or f"connect{k + 1}"),
                                          PointRef(name1, tuple(anchor - shift1)), PointRef(name2, tuple(point2 - shift2))))
        return constraints

    def keyframe(self, bodies: list) -> list:
        keys = self.root.findall("keyframe/key")
        if not keys:
            return bodies
        if len(keys) > 1:
            self.unmapped.add("keyframes", f"{len(keys) - 1} after the first", "the first gives q0 and u0")
        key = keys[0]
        nq = sum(QPOS_SIZE[k] for k, _ in self.joints)
        nv = sum(QVEL_SIZE[k] for k, _ in self.joints)
        qpos = numbers(key.get("qpos"), nq, "<key> qpos") if key.get("qpos") else None
        qvel = numbers(key.get("qvel"), nv, "<key> qvel") if key.get("qvel") else None
        i = j = 0
        for kind, index in self.joints:
            changes = {}
            if qpos is not None:
                changes["q0"] = tuple(float(v) for v in qpos[i:i + QPOS_SIZE[kind]])
            if qvel is not None:
                changes["u0"] = tuple(float(v) for v in qvel[j:j + QVEL_SIZE[kind]])
            b = bodies[index]
            bodies[index] = replace(b, joint=replace(b.joint, **changes))
            i, j = i + QPOS_SIZE[kind], j + QVEL_SIZE[kind]
        return bodies


def _quaternion(R: np.ndarray) -> tuple:
    from eomlab.engine.rotations import quaternion_from_matrix

    return tuple(float(v) for v in quaternion_from_matrix(R))


def model_from_mjcf(root: ET.Element, path: str) -> tuple[Model, list[str]]:
    folder = os.path.dirname(os.path.abspath(path))
    _expand_includes(root, folder)
    reader = Reader(root, path, folder, Defaults(root))
    compiler = root.find("compiler")
    reader.inertia_rules = InertiaRules.read(compiler)
    if compiler is not None:
        reader.degrees = compiler.get("angle", "degree") != "radian"
        reader.eulerseq = compiler.get("eulerseq", "xyz")
        reader.meshdir = compiler.get("meshdir", "")
        if len(reader.eulerseq) != 3 or any(c not in "xyzXYZ" for c in reader.eulerseq):
            raise ModelError("<compiler> eulerseq", f"expected three of x y z X Y Z, got {reader.eulerseq!r}")
    reader.meshes = {m.get("name") or os.path.splitext(os.path.basename(m.get("file", "")))[0]: m
                     for m in root.findall("asset/mesh")}
    gravity = option_gravity(root, reader.unmapped)  # gravity, its disable flag, fluid: mjcf_options
    for tag, why in NOT_MAPPED.items():
        for element in root.findall(tag):
            for item in element:
                reader.unmapped.add(f"<{tag}> elements", item.get("name") or item.tag, why)
    worldbody = root.find("worldbody")
    if worldbody is None:
        raise ModelError("<mujoco>", "has no <worldbody>")
    reader.read_bodies(worldbody)
    for child in worldbody:
        if child.tag in BODY_EXTRAS or child.tag == "geom":
            reader.unmapped.add(f"<{child.tag}> in <worldbody>", child.get("name") or child.tag, "the ground is not drawn")
    if not reader.joints:
        raise ModelError("<worldbody>", "no body has a joint: nothing to simulate")
    constraints = []
    for equality in root.findall("equality"):
        constraints += reader.equality(equality)
    at_qpos0 = scale_to_total(list(reader.bodies), reader.inertia_rules)
    bodies = scale_to_total(reader.keyframe(reader.bodies), reader.inertia_rules)
    model = Model(name=root.get("model") or os.path.basename(path), gravity=tuple(float(g) for g in gravity),
                  bodies=tuple(bodies), constraints=tuple(constraints), forces=tuple(reader.forces), settings=Settings())
    model = replace(model, forces=model.forces + tuple(spring_dampers(reader, model, at_qpos0)))
    return model, reader.unmapped.warnings()
