"""Links welded to their parent whose own inertia no rigid body has (a sensor's rounding-level tensor, a foot's
line mass) are merged into the parent, as pinocchio merges every fixed link into its joint's body: the parent
takes their mass, mass centre and inertia (parallel-axis theorem about the common centre), the link stays as a
massless frame. Welded to the ground, such a link moves nothing: its inertia is dropped. A moving parent whose
composite still breaks the triangle inequality is balanced as any moving link is (building.checked_inertia's
`balance`, MuJoCo's balanceinertia), or refused without it or when the composite is not positive semi-definite."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from eomlab.engine.model import GROUND, ModelError, as_mat3
from eomlab.engine.robot_formats.building import checked_inertia

_ZERO3 = ((0.0, 0.0, 0.0),) * 3


def _shift(d: np.ndarray) -> np.ndarray:
    """m (|d|² E − d dᵀ) per unit mass: the inertia of a point at d about the origin."""
    return float(d @ d) * np.eye(3) - np.outer(d, d)


def physical(inertia, mass: float, com) -> bool:
    try:
        checked_inertia(np.array(inertia, dtype=float), "", mass, float(np.linalg.norm(com)))
    except ModelError:
        return False
    return True


def merge_welded(bodies: list, flagged: list[str], unmapped, balance=None) -> list:
    """`bodies` (parents first) with each `flagged` fixed body's mass properties moved into its parent, up the
    tree while the parent is fixed and its composite is no rigid body's either; a moving parent whose
    composite is still not one is balanced (`balance(where, moments before, after)` is told) when `balance`
    is given and its moments are >= 0, else refused (ModelError naming the link)."""
    bodies = list(bodies)
    index = {b.name: i for i, b in enumerate(bodies)}
    pending = [name for name in flagged]
    while pending:
        name = pending.pop()
        child = bodies[index[name]]
        bodies[index[name]] = replace(child, mass=0.0, com=(0.0, 0.0, 0.0), inertia=_ZERO3)
        if child.parent == GROUND:
            unmapped.add("inertia of links welded to the ground", name, "they move nothing; no rigid body's, so ignored")
            continue
        parent = bodies[index[child.parent]]
        R, at = np.array(child.joint.rotation), np.array(child.joint.at)
        m_c, m_p = child.mass, parent.mass
        c_c, c_p = at + R @ np.array(child.com), np.array(parent.com)
        mass = m_c + m_p
        com = (m_c * c_c + m_p * c_p) / mass if mass > 0 else c_p
        inertia = (np.array(parent.inertia) + m_p * _shift(c_p - com) + R @ np.array(child.inertia) @ R.T
                   + m_c * _shift(c_c - com))
        merged = replace(parent, mass=mass, com=tuple(float(v) for v in com), inertia=as_mat3(0.5 * (inertia + inertia.T)))
        bodies[index[child.parent]] = merged
        unmapped.add("links welded to their parent with an inertia no rigid body has", name,
                     "merged into the parent, as pinocchio does")
        if not physical(merged.inertia, merged.mass, merged.com):
            if parent.joint.dof == 0:  # welded in turn: merged into its own parent next
                pending.append(parent.name)
            else:
                bodies[index[child.parent]] = replace(merged, inertia=as_mat3(_balanced(merged, name, balance)))
    return bodies


def _balanced(moving, name: str, balance) -> np.ndarray:
    """The `moving` body's composite inertia (with the welded link `name` merged in) balanced by
    building.checked_inertia's `balance`, or the refusal naming the welded link."""
    inertia = np.array(moving.inertia)
    refusal = ModelError(f'link "{name}"/inertial/inertia', f"no rigid body has this inertia, nor does its parent "
                         f"{moving.name!r} with it: principal moments "
                         f"{', '.join(f'{m:.6g}' for m in np.linalg.eigvalsh(inertia))}")
    if balance is None:
        raise refusal
    where = f'link "{moving.name}" (with the welded link "{name}")'
    try:
        return checked_inertia(inertia, where, moving.mass, float(np.linalg.norm(moving.com)),
                               balance=lambda _, before, after: balance(where, before, after))
    except ModelError:
        raise refusal from None
