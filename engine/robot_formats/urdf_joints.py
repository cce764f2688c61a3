"""URDF joint details beyond the kinematics: `<dynamics damping friction>` and `<mimic>`.

`damping` (N·m·s/rad or N·s/m) becomes a joint spring of no stiffness on a revolute, continuous or
prismatic joint, as ROS simulators apply it (τ = −d q̇); `friction` is listed as unmapped (eomlab has
no dry friction). `<mimic joint multiplier offset>` becomes the expression constraint
q = multiplier · q_joint + offset (order 0), as pinocchio's mimic joints and Gazebo read it.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from eomlab.engine.model import ExpressionConstraint, JointSpring, ModelError
from eomlab.engine.robot_formats.building import Identifiers, Unmapped, numbers

#: URDF joint types with one coordinate (dynamics and mimic act on it)
ONE_COORDINATE = ("revolute", "continuous", "prismatic")


def joint_damping(element: ET.Element, coordinate: str, body: str, where: str, ids: Identifiers,
                  unmapped: Unmapped) -> JointSpring | None:
    """The joint spring of `<dynamics damping>` (None without damping); friction noted as unmapped."""
    dynamics = element.find("dynamics")
    if dynamics is None:
        return None
    damping = float(numbers(dynamics.get("damping"), 1, f"{where}/dynamics damping", (0.0,))[0])
    friction = float(numbers(dynamics.get("friction"), 1, f"{where}/dynamics friction", (0.0,))[0])
    if damping < 0:
        raise ModelError(f"{where}/dynamics damping", f"must be >= 0, got {damping:g}")
    if friction != 0:
        unmapped.add("joint <dynamics friction>", where, "eomlab has no dry friction")
    if damping == 0:
        return None
    if element.get("type") not in ONE_COORDINATE:
        unmapped.add("joint <dynamics damping>", where, f"read on revolute, continuous and prismatic joints only, "
                     f"not {element.get('type')}")
        return None
    return JointSpring(ids.claim(f"{coordinate}_damping"), body, 0.0, (0.0,), damping)


def mimic_constraints(mimics: list, coordinates: dict[str, str], ids: Identifiers,
                      unmapped: Unmapped) -> list[ExpressionConstraint]:
    """`mimics`: (joint element, its coordinate, where) of each joint with a `<mimic>`;
    `coordinates`: URDF joint name → its coordinate (one-coordinate joints). A fixed joint's mimic
    has nothing to move (ignored, as pinocchio does, with a warning)."""
    out = []
    for element, coordinate, where in mimics:
        mimic = element.find("mimic")
        if element.get("type") == "fixed":
            unmapped.add("<mimic> on fixed joints", where, "a fixed joint has no coordinate to follow")
            continue
        if element.get("type") not in ONE_COORDINATE:
            raise ModelError(f"{where}/mimic", f"a {element.get('type')} joint cannot mimic: it has no single coordinate")
        leader = mimic.get("joint")
        if leader not in coordinates:
            raise ModelError(f"{where}/mimic joint", f"names {leader!r}, which is no revolute, continuous or prismatic joint")
        multiplier = float(numbers(mimic.get("multiplier"), 1, f"{where}/mimic multiplier", (1.0,))[0])
        offset = float(numbers(mimic.get("offset"), 1, f"{where}/mimic offset", (0.0,))[0])
        equation = f"{coordinate} - ({multiplier!r}*{coordinates[leader]} + {offset!r})"
        out.append(ExpressionConstraint(ids.claim(f"{coordinate}_mimic"), equation, 0))
    return out
