"""How high each body's mass centre can rise with the energy the model starts with.

With gravity the only potential and E = T + V constant (or lost at impacts), T ≥ 0 gives
Σ_j m_j |g| h_j ≤ E for the mass-centre heights h_j along −g; every other body hanging no lower
than it can (`low_j`) leaves body i at most

    h_i ≤ (E − Σ_{j≠i} m_j |g| low_j) / (m_i |g|),

where low_j is its root hinge's height less the longest way down the chain to its mass centre
(the hinge offsets on the way and the mass-centre offset). The window fits its 2-D view to the
region this leaves: a Newton's cradle whose end ball swings 0.6 rad is drawn at the size of that
swing, not of full circles.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.joints import joint_type
from eomlab.engine.mechanics.system import MechanicalSystem
from eomlab.engine.model import GROUND, Model


def mass_centre_ceilings(model: Model) -> dict[str, float] | None:
    """Each body's highest possible mass-centre height along −g (m; inf for a massless body or one
    whose bound no float holds), or None
    where the bound does not hold: no gravity, a force element, energy not conserved, or a joint
    that slides (its travel has no length to hang from)."""
    g = float(np.linalg.norm(model.gravity))
    if g == 0.0 or any(joint_type(b.joint.type).lengths for b in model.bodies):
        return None
    # the numpy path: T and V at q0 once, for the window's first view (pinocchio loads later, off its
    # GUI thread: gui/runs/warm_up.py)
    system = MechanicalSystem(model, compiled=False)
    if system.forces or not system.conservative:
        return None
    up = -np.asarray(model.gravity, dtype=float) / g
    T, V = system.energy(0.0, system.q0, system.u0)
    masses = np.array([b.mass for b in model.bodies], dtype=float)
    low = np.array([_lowest_height(model, i, up) for i in range(len(model.bodies))])
    hanging = masses * g * low
    ceilings = {}
    for i, body in enumerate(model.bodies):
        weight = float(masses[i]) * g  # (a mass and a gravity near the smallest floats: 0)
        if not weight > 0.0:
            ceilings[body.name] = math.inf
            continue
        with np.errstate(over="ignore", invalid="ignore"):  # (inf − inf with masses near the largest floats)
            ceiling = float((T + V - (float(np.sum(hanging)) - hanging[i])) / weight)
        ceilings[body.name] = ceiling if math.isfinite(ceiling) else math.inf  # no bound a float holds
    return ceilings


def _lowest_height(model: Model, index: int, up: np.ndarray) -> float:
    """Body `index`'s mass centre can hang no lower than its root hinge's height less the length of
    the chain down to it."""
    by_name = {b.name: b for b in model.bodies}
    body = model.bodies[index]
    way_down = float(np.linalg.norm(body.com))
    while body.parent != GROUND:
        way_down += float(np.linalg.norm(body.joint.at))
        body = by_name[body.parent]
    return float(up @ np.asarray(body.joint.at, dtype=float)) - way_down
