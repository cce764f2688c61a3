"""MJCF joint details as MuJoCo's compiler reads them: `ref` (the joint's value in the file's pose,
MuJoCo's qpos0), `armature` (engine.mechanics.armature), `springdamper` (stiffness and damping from a time
constant and a damping ratio at qpos0) and `<equality joint>` (a quartic polynomial between two
joints, an expression constraint).

With `ref`, eomlab's coordinate is MuJoCo's qpos: the joint frame is turned (hinge) or shifted
(slide) by −ref, so that q = ref puts the body where the file draws it, and ref is the default q0.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.model import ExpressionConstraint, JointSpring, ModelError, initial_coordinates
from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.robot_formats.building import numbers

#: MuJoCo's joint types whose qpos has a reference value (`ref`) and a `springdamper`
REF_KINDS = ("hinge", "slide")


def scalar(text: str | None, where: str) -> float:
    """One number from an attribute; 0 when it is absent."""
    return float(numbers(text, 1, where, (0.0,))[0])


def joint_details(reader, kind: str, name: str, get, where: str) -> tuple[float, float]:
    """(armature, ref) of a MuJoCo joint; its springdamper noted in reader.spring_dampers and its
    friction loss among the unmapped."""
    armature = scalar(get("armature"), f"{where} armature")
    if armature < 0:
        raise ModelError(f"{where} armature", f"must be >= 0, got {armature:g}")
    if scalar(get("frictionloss"), f"{where} frictionloss") != 0:
        reader.unmapped.add("joint frictionloss", where, "eomlab has no dry friction")
    ref = 0.0
    if kind in REF_KINDS:
        ref = scalar(get("ref"), f"{where} ref")
        ref = reader.angle(ref) if kind == "hinge" else ref
        timeconst, dampratio = numbers(get("springdamper"), 2, f"{where} springdamper", (0.0, 0.0))
        if timeconst > 0 and dampratio > 0:  # MuJoCo overrides stiffness and damping then
            reader.spring_dampers[name] = (timeconst, dampratio, where)
    else:
        if scalar(get("ref"), f"{where} ref") != 0:
            reader.unmapped.add("joint ref", where, f"MuJoCo reads ref on hinge and slide joints only, not {kind}")
        if any(scalar(get(key), f"{where} {key}") != 0 for key in ("stiffness", "damping")):
            reader.unmapped.add("ball and free joint stiffness and damping", where, "joint springs act on hinges and slides")
    return armature, ref


def placed_at_ref(kind: str, axis, at: np.ndarray, rotation: np.ndarray, ref: float) -> tuple[np.ndarray, np.ndarray]:
    """The joint frame (at, rotation) turned or shifted by −ref along the joint's axis, so that the
    body sits in the file's pose at q = ref."""
    if not ref:
        return at, rotation
    axis = np.array(axis, dtype=float)
    if kind == "hinge":
        return at, rotation @ axis_angle_matrix(axis, -ref)
    return at - ref * (rotation @ axis), rotation


def spring_dampers(reader, model, reference_bodies) -> list:
    """The joint springs of the joints with a springdamper (timeconst τ, damping ratio ζ), as MuJoCo's
    compiler sets them: with w = (M⁻¹)_jj at qpos0 (its dof_invweight0, armature included),
    stiffness 1/(w τ² ζ²) and damping 2/(w τ), rest at springref."""
    if not reader.spring_dampers:
        return []
    from dataclasses import replace

    from eomlab.engine.mechanics.system import MechanicalSystem

    at_qpos0 = replace(model, bodies=tuple(reference_bodies), constraints=(), forces=())
    system = MechanicalSystem(at_qpos0, compiled=False)
    M = system.mass_matrix(np.array(initial_coordinates(at_qpos0), dtype=float))
    try:
        inverse = np.linalg.inv(M)
    except np.linalg.LinAlgError:
        raise ModelError(next(iter(reader.spring_dampers.values()))[2] + " springdamper",
                         "needs the joint's inertia at qpos0, but the mass matrix is singular there") from None
    speeds = {name: system.kin.speed_of_coordinate(k) for k, name in enumerate(system.coordinate_names)}
    forces = []
    for name, (timeconst, dampratio, where) in reader.spring_dampers.items():
        w = float(inverse[speeds[name], speeds[name]])
        if not w > 0:
            raise ModelError(f"{where} springdamper", "the joint moves no inertia at qpos0")
        rest, body = reader.spring_rest[name]
        forces.append(JointSpring(reader.ids.claim(f"{name}_spring"), body, 1.0 / (w * timeconst**2 * dampratio**2),
                                  (rest,), 2.0 / (w * timeconst)))
    return forces


def joint_equality(reader, eq, where: str):
    """`<equality joint joint1 joint2 polycoef>`: y − y0 = a0 + a1 (x − x0) + … + a4 (x − x0)⁴ with y, x
    the joints' values and y0, x0 their qpos0 (refs); without joint2, y − y0 = a0. An expression
    constraint of order 0 on the eomlab coordinates (which are MuJoCo's qpos)."""
    names = []
    for key in ("joint1", "joint2"):
        mjcf_name = eq.get(key)
        if mjcf_name is None:
            names.append(None)
            continue
        if mjcf_name not in reader.joint_names:
            raise ModelError(f"{where} {key}", f"names an unknown joint {mjcf_name!r}")
        name, kind, ref = reader.joint_names[mjcf_name]
        if kind not in REF_KINDS:
            raise ModelError(f"{where} {key}", f"joint {mjcf_name!r} is a {kind} joint; <equality joint> takes hinges and slides")
        names.append((name, ref))
    if names[0] is None:
        raise ModelError(f"{where} joint1", "missing")
    coefficients = numbers(eq.get("polycoef"), 5, f"{where} polycoef", (0.0, 1.0, 0.0, 0.0, 0.0))
    (y, y0), other = names[0], names[1]
    terms = [repr(float(coefficients[0]))]
    if other is not None:
        x, x0 = other
        dx = f"({x} - {x0!r})"
        terms += [f"{float(a)!r}*{dx}**{k}" for k, a in enumerate(coefficients[1:], start=1) if a != 0]
    equation = f"{y} - {y0!r} - ({' + '.join(terms)})"
    return ExpressionConstraint(reader.ids.claim(eq.get("name") or f"{y}_equality"), equation, 0)
