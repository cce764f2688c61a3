"""Applied forces where they act: gravity at the mass centres, every force element of the model
(springs and dampers at their attachment points, joint springs and efforts as a force or couple
at their joint, point forces and body torques) and the pushes active at t — as `engine.forcing.action`
Actions in world axes, whose generalized force is the Q of M u̇ = Q − C + Aᵀλ.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.forcing.action import Action, ActionArrays
from eomlab.engine.forcing.generalized_forces import PushElement
from eomlab.engine.mechanics.state import StateContext


def applied_forces(system, evaluation, t: float, eps: float = 0.0) -> list[Action]:
    """Every applied force of `system` at the state of `evaluation` (a Formulation.evaluate
    result) at time t: gravity first (bodies with mass), then the force elements in the model's
    order, then the pushes acting at t (to within eps)."""
    return applied_force_arrays(system, evaluation, t, eps).actions()


def applied_force_arrays(system, evaluation, t: float, eps: float = 0.0) -> ActionArrays:
    """`applied_forces` as rows of arrays (gravity formed as arrays at once)."""
    dyn, kin = evaluation.dynamics, system.kin
    ks = dyn.ks
    heavy = np.flatnonzero(kin.mass > 0)
    k = len(heavy)
    gravity = ActionArrays(("gravity",) * k, ("gravity",) * k, heavy, ks.com[heavy],
                           kin.mass[heavy, None] * np.asarray(system.gravity, float), np.zeros((k, 3)),
                           np.full(k, -1), np.full((k, 3), np.nan))
    ctx = StateContext(t=t, q=evaluation.q, u=evaluation.u, qd=dyn.qd, W=dyn.W, ks=ks)
    out = []
    for element in system.forces:
        if not isinstance(element, PushElement):
            out += element.actions(ctx)
    out += [push.action(ks) for push in system.forces if isinstance(push, PushElement) and push.acts_at(t, eps)]
    return ActionArrays.joined(gravity, ActionArrays.of(out)) if out else gravity
