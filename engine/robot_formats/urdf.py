"""URDF (ROS's robot description) → eomlab Model.

A link becomes a body whose frame is the link frame; the joint's <origin> places the joint frame in
the parent link's frame (eomlab's `at` and `rotation`), its <axis> is in the joint frame. The root
link is the ground when it is named "world" or carries no mass, else a body welded to the ground
(as MuJoCo and Drake load a URDF without a floating base). URDF has no gravity: −9.81 m/s² along
−z, as ROS simulators assume.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np

from eomlab.engine.limits import MAX_MAGNITUDE
from eomlab.engine.model import GROUND, Joint, Model, ModelError, Settings, joint_type
from eomlab.engine.robot_formats.building import Identifiers, Unmapped, body, checked_inertia, checked_mass, numbers, rpy_matrix, shape_for, unit_axis
from eomlab.engine.robot_formats.composite import merge_welded
from eomlab.engine.robot_formats.urdf_joints import ONE_COORDINATE, joint_damping, mimic_constraints
from eomlab.engine.robot_formats.xml_files import inside_folder, mesh_bounds

GRAVITY = (0.0, 0.0, -9.81)
JOINT_KINDS = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic", "fixed": "fixed",
               "floating": "free", "planar": "planar"}
#: the URDF joint types whose axis must be a unit vector (a planar joint's is its normal)
UNIT_AXES = ("revolute", "continuous", "prismatic", "planar")
IGNORED = {"transmission": "eomlab has no actuators", "gazebo": "simulator-specific",
           "material": "colours are not kept"}


def _name(element: ET.Element, tag: str) -> str:
    name = element.get("name")
    if not name:
        raise ModelError(f"<{tag}>", "has no name")
    return name


def _origin(element: ET.Element | None, where: str) -> tuple[np.ndarray, np.ndarray]:
    if element is None:
        return np.zeros(3), np.eye(3)
    xyz = numbers(element.get("xyz"), 3, f"{where}/origin xyz", (0.0, 0.0, 0.0))
    rpy = numbers(element.get("rpy"), 3, f"{where}/origin rpy", (0.0, 0.0, 0.0))
    return xyz, rpy_matrix(rpy)


def _tree(root: ET.Element) -> tuple[dict, dict, str]:
    """links by name, the joint leading to each child link, and the root link's name."""
    links: dict[str, ET.Element] = {}
    for link in root.findall("link"):
        name = _name(link, "link")
        if name in links:
            raise ModelError(f'link "{name}"', "defined twice")
        links[name] = link
    if not links:
        raise ModelError("<robot>", "has no <link>")
    into: dict[str, ET.Element] = {}
    for joint in root.findall("joint"):
        name = _name(joint, "joint")
        where = f'joint "{name}"'
        parent, child = joint.find("parent"), joint.find("child")
        if parent is None or child is None:
            raise ModelError(where, "needs <parent link=…> and <child link=…>")
        for end in (parent.get("link"), child.get("link")):
            if end not in links:
                raise ModelError(where, f"names an unknown link {end!r}")
        child_name = child.get("link")
        if child_name in into:
            raise ModelError(where, f'link "{child_name}" already has the parent joint "{into[child_name].get("name")}"; '
                             "a URDF is a tree (close loops in eomlab with constraints)")
        into[child_name] = joint
    for start in links:  # walking up from every link must reach a root
        seen, link = {start}, start
        while link in into:
            link = into[link].find("parent").get("link")
            if link in seen:
                raise ModelError(f'joint "{into[start].get("name")}"', f'the joints form a cycle through link "{link}"')
            seen.add(link)
    roots = [name for name in links if name not in into]
    if len(roots) != 1:
        raise ModelError("<robot>", f"expected one root link, found {len(roots)}: {', '.join(roots)}")
    return links, into, roots[0]


class BalancedLinks:
    """The moving links whose inertia broke the triangle inequality and was evened out as MuJoCo's
    balanceinertia does (building.balanced_moments): one warning line for the file, naming each link with
    its principal moments before and after."""

    SHOWN = 6

    def __init__(self):
        self.links: list[tuple[str, np.ndarray, np.ndarray]] = []

    def add(self, where: str, before: np.ndarray, after: np.ndarray) -> None:
        self.links.append((where, before, after))

    def warnings(self) -> list[str]:
        if not self.links:
            return []
        shown = "; ".join(f"{where} {a:.4g}, {b:.4g}, {c:.4g} → {after[0]:.4g} (A + B {100 * (c - a - b) / c:.0f} % short of C)"
                          for where, (a, b, c), after in self.links[:self.SHOWN])  # C > A + B >= 0 here
        more = f"; … ({len(self.links)} in all)" if len(self.links) > self.SHOWN else ""
        return [f"inertia no rigid body has (principal moments A + B < C) on {len(self.links)} moving "
                f"link{'s' if len(self.links) > 1 else ''}, balanced as MuJoCo's balanceinertia=\"true\" does "
                f"(each moment set to the three's mean, kg m²): {shown}{more}"]


def _inertial(link: ET.Element, where: str, unmapped: Unmapped | None = None, welded: bool = False,
              fixed: list | None = None, balanced: BalancedLinks | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """mass, mass centre and inertia about it, in the link frame. A link welded to its parent (`fixed`: a
    list to note it in) whose inertia no rigid body has keeps it for now: engine.robot_formats.composite
    merges it into its parent, as pinocchio does. A `welded` root link moves nothing: its impossible inertia
    is ignored (zero). A moving link's that breaks the triangle inequality is balanced (noted in `balanced`)
    as MuJoCo does under balanceinertia="true" (the model file forbids it, MuJoCo refuses it without); one
    that is not positive semi-definite is refused (pinocchio's mass matrix would be singular)."""
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    mass_element = inertial.find("mass")
    mass = numbers(None if mass_element is None else mass_element.get("value"), 1, f"{where}/inertial/mass")[0]
    mass = checked_mass(mass, f"{where}/inertial/mass")
    xyz, R = _origin(inertial.find("origin"), f"{where}/inertial")
    tensor = inertial.find("inertia")
    values = {k: 0.0 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    if tensor is not None:
        for key in values:
            values[key] = numbers(tensor.get(key), 1, f"{where}/inertial/inertia {key}", (0.0,))[0]
    I = np.array([[values["ixx"], values["ixy"], values["ixz"]],
                  [values["ixy"], values["iyy"], values["iyz"]],
                  [values["ixz"], values["iyz"], values["izz"]]])
    clipped = (lambda w: unmapped.add("rounding-level negative principal moments", w, "clipped to 0")) if unmapped else None
    rounding = ((lambda w: unmapped.add("rounding-level breaks of the triangle inequality", w,
                                        "the smaller moments raised to meet it")) if unmapped else None)
    balance = (lambda _, before, after: balanced.add(where, before, after)) if balanced is not None else None
    try:
        I = checked_inertia(I, f"{where}/inertial/inertia", mass, float(np.linalg.norm(xyz)), clipped, rounding, balance)
    except ModelError:
        if welded:
            if unmapped is not None:
                unmapped.add("inertia of the welded root link", where, "it moves nothing; not a rigid body's, so ignored")
            I = np.zeros((3, 3))
        elif fixed is not None:
            fixed.append(where)
        else:
            raise
    return mass, xyz, R @ I @ R.T


def _shape(link: ET.Element, where: str, folder: str, unmapped: Unmapped):
    visuals = link.findall("visual")
    if len(visuals) > 1:
        unmapped.add("extra visuals", where, "one shape per body: the first is drawn")
    geometry = visuals[0].find("geometry") if visuals else None
    if geometry is None or not len(geometry):
        return None
    g = geometry[0]
    gwhere = f"{where}/visual/{g.tag}"
    if g.tag == "box":
        return shape_for("box", numbers(g.get("size"), 3, f"{gwhere} size"))
    if g.tag == "sphere":
        return shape_for("sphere", numbers(g.get("radius"), 1, f"{gwhere} radius"))
    if g.tag == "cylinder":
        return shape_for("cylinder", np.array([numbers(g.get("radius"), 1, f"{gwhere} radius")[0],
                                               numbers(g.get("length"), 1, f"{gwhere} length")[0]]))
    if g.tag == "mesh":
        filename = g.get("filename") or ""
        if "://" in filename:
            unmapped.add("meshes", f"{where} ({filename})", "package:// and URLs are not resolved; no shape drawn")
            return None
        lower, upper = mesh_bounds(inside_folder(folder, filename, gwhere), gwhere)
        scale = numbers(g.get("scale"), 3, f"{gwhere} scale", (1.0, 1.0, 1.0))
        unmapped.add("meshes", f"{where} ({filename})", "drawn as their bounding box")
        return shape_for("box", np.abs(upper - lower) * np.abs(scale))
    unmapped.add("visual geometry", f"{gwhere}", "unknown geometry")
    return None


def _joint(element: ET.Element, coordinate: str, where: str, unmapped: Unmapped) -> Joint:
    kind = element.get("type")
    if kind not in JOINT_KINDS:
        raise ModelError(where, f"unknown joint type {kind!r}; expected one of {', '.join(JOINT_KINDS)}")
    axis_element = element.find("axis")
    axis = numbers(None if axis_element is None else axis_element.get("xyz"), 3, f"{where}/axis xyz", (1.0, 0.0, 0.0))
    if kind in UNIT_AXES:
        axis = unit_axis(axis, f"{where}/axis")
    for tag in ("safety_controller", "calibration"):
        if element.find(tag) is not None:
            unmapped.add(f"joint <{tag}>", where, "eomlab joints are ideal")

    def limits() -> tuple[float, ...]:
        limit = element.find("limit")
        if kind != "continuous" and limit is not None and limit.get("lower") is not None and limit.get("upper") is not None:
            bounds = [_bound(limit.get(key), f"{where}/limit {key}") for key in ("lower", "upper")]
            if any(abs(b) > MAX_MAGNITUDE for b in bounds):  # ±1e16 and the like: "no limit" in practice
                unmapped.add("joint limits beyond ±1e12", where, "read as no limit")
                return ()
            return tuple(bounds)
        return ()

    return joint_type(JOINT_KINDS[kind]).urdf_joint(axis, coordinate, where, limits)


def _bound(text: str | None, where: str) -> float:
    """A limit's number: finite, of any size (beyond the model's ±1e12 it means no limit)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a number, got {text!r}") from None
    if value != value:
        raise ModelError(where, f"expected a number, got {text!r}")
    return value


def model_from_urdf(root: ET.Element, path: str) -> tuple[Model, list[str]]:
    folder = os.path.dirname(os.path.abspath(path))
    unmapped = Unmapped()
    for tag, why in IGNORED.items():
        for element in root.findall(tag):
            unmapped.add(f"<{tag}>", element.get("name") or tag, why)
    links, into, root_link = _tree(root)
    ids = Identifiers()
    body_name = {}
    root_mass = _inertial(links[root_link], f'link "{root_link}"', welded=True)[0]
    bodies = []
    if root_link == "world" or root_mass == 0:
        body_name[root_link] = GROUND
    else:
        body_name[root_link] = ids.claim(root_link, "body")
        mass, com, inertia = _inertial(links[root_link], f'link "{root_link}"', unmapped, welded=True)
        bodies.append(body(body_name[root_link], GROUND, Joint("fixed"), np.zeros(3), np.eye(3), mass, com, inertia,
                           _shape(links[root_link], f'link "{root_link}"', folder, unmapped)))
    children: dict[str, list[ET.Element]] = {}
    for joint in into.values():
        children.setdefault(joint.find("parent").get("link"), []).append(joint)
    queue = [root_link]
    forces, mimics, coordinates, nonphysical, balanced = [], [], {}, [], BalancedLinks()
    while queue:
        parent = queue.pop(0)
        for element in children.get(parent, []):
            child = element.find("child").get("link")
            where = f'joint "{element.get("name")}"'
            link_where = f'link "{child}"'
            body_name[child] = ids.claim(child, "body")
            coordinate = ids.claim(element.get("name"), "coordinate")
            joint = _joint(element, coordinate, where, unmapped)
            if element.get("type") in ONE_COORDINATE:
                coordinates[element.get("name")] = coordinate
            if element.find("mimic") is not None:
                mimics.append((element, coordinate, where))
            damper = joint_damping(element, coordinate, body_name[child], where, ids, unmapped)
            forces += [damper] if damper is not None else []
            at, R = _origin(element.find("origin"), where)
            welded_here: list = []
            fixed = element.get("type") == "fixed"
            mass, com, inertia = _inertial(links[child], link_where, unmapped, fixed=welded_here if fixed else None,
                                           balanced=None if fixed else balanced)
            nonphysical += [body_name[child]] if welded_here else []
            bodies.append(body(body_name[child], body_name[parent], joint, at, R, mass, com, inertia,
                               _shape(links[child], link_where, folder, unmapped)))
            queue.append(child)
    if not bodies:
        raise ModelError("<robot>", "no link moves: nothing to simulate")
    bodies = merge_welded(bodies, nonphysical, unmapped, balanced.add)
    model = Model(name=root.get("name") or os.path.basename(path), gravity=GRAVITY, bodies=tuple(bodies),
                  constraints=tuple(mimic_constraints(mimics, coordinates, ids, unmapped)), forces=tuple(forces),
                  settings=Settings())
    return model, balanced.warnings() + unmapped.warnings()
