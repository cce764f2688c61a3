"""Applied forces where they act: gravity at the mass centres, every force element of the model
(springs and dampers at their attachment points, joint springs and efforts as a force or couple
at their joint, point forces and body torques) and the pushes active at t — as `engine.actions`
Actions in world axes, whose generalized force is the Q of M u̇ = Q − C + Aᵀλ.
"""
from __future__ import annotations

from .actions import Action
from .forces import PushElement
from .state import StateContext


def applied_forces(system, evaluation, t: float, eps: float = 0.0) -> list[Action]:
    """Every applied force of `system` at the state of `evaluation` (a Formulation.evaluate
    result) at time t: gravity first (bodies with mass), then the force elements in the model's
    order, then the pushes acting at t (to within eps)."""
    dyn, kin = evaluation.dynamics, system.kin
    ks = dyn.ks
    out = [Action("gravity", "gravity", b, ks.com[b].copy(), kin.mass[b] * system.gravity)
           for b in range(kin.n_bodies) if kin.mass[b] > 0]
    ctx = StateContext(t=t, q=evaluation.q, u=evaluation.u, qd=dyn.qd, W=dyn.W, ks=ks)
    for element in system.forces:
        if not isinstance(element, PushElement):
            out += element.actions(ctx)
    return out + [push.action(ks) for push in system.forces if isinstance(push, PushElement) and push.acts_at(t, eps)]

