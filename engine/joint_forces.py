"""Reaction forces at the joints of a tree: Newton's second law over each body's subtree.

The force F_B that body B's parent exerts on B through their joint carries everything B's subtree
needs beyond gravity and the pushes on it:

    F_B = Σ_{C in subtree(B)} (m_C a_C − m_C g − F_push,C)

with a_C = J_v,C u̇ + a_bias,C the mass-centre acceleration at the formulation's u̇.
"""
from __future__ import annotations

import numpy as np

from .forces import PushElement
from .model import GROUND, ModelError


def joint_reactions(model, system, evaluation, t: float, pushes=(), eps: float = 0.0) -> np.ndarray:
    """(n_bodies, 3) world-frame forces on each body from its parent through its joint (N), at the
    state `evaluation` (a Formulation.evaluate result) of a tree model in joint coordinates."""
    if system.constraints is not None:
        raise ModelError("constraints", "joint forces are computed for trees without constraints only")
    if any(not isinstance(f, PushElement) for f in system.forces):
        raise ModelError("forces", "joint forces are computed with gravity and pushes only (no force elements)")
    kin, ks = system.kin, evaluation.dynamics.ks
    a_com = np.einsum("bij,j->bi", ks.J_v, evaluation.u_dot) + ks.a_bias
    forces = kin.mass[:, None] * (a_com - system.gravity[None, :])
    for push in pushes:
        if push.t_start - eps <= t < push.t_stop - eps:
            forces[push.body] -= push.force
    index = {name: i for i, name in enumerate(kin.body_names)}
    parent = [index.get(model.body(name).parent, -1) if model.body(name).parent != GROUND else -1
              for name in kin.body_names]
    depth = [0] * len(parent)
    for b in range(len(parent)):
        p = parent[b]
        while p >= 0:
            depth[b] += 1
            p = parent[p]
    for b in sorted(range(len(parent)), key=lambda k: -depth[k]):  # leaves first
        if parent[b] >= 0:
            forces[parent[b]] += forces[b]
    return forces
