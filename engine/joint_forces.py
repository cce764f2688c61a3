"""Reaction forces at the joints of a tree: Newton's second law over each body's subtree.

The force F_B that body B's parent exerts on B through their joint carries everything B's subtree
needs beyond gravity and the pushes on it:

    F_B = Σ_{C in subtree(B)} (m_C a_C − m_C g − F_push,C − F_constraint,C)

with a_C = J_v,C u̇ + a_bias,C the mass-centre acceleration at the formulation's u̇. The constraint
forces come from the multipliers (M u̇ = f + Aᵀλ): a coincident row A = e_dᵀ (J_b − J_a) puts λ e_d
on body b at its point and −λ e_d on body a; a distance row λ d/|d| likewise.
"""
from __future__ import annotations

import numpy as np

from .constraints import CoincidentRows, DistanceRows
from .forces import PushElement
from .model import GROUND, ModelError


def joint_reactions(model, system, evaluation, t: float, pushes=(), eps: float = 0.0) -> np.ndarray:
    """(n_bodies, 3) world-frame forces on each body from its parent through its joint (N), at the
    state `evaluation` (a Formulation.evaluate result) of a tree model in joint coordinates."""
    if any(not isinstance(f, PushElement) for f in system.forces):
        raise ModelError("forces", "joint forces are computed with gravity and pushes only (no force elements)")
    kin, ks = system.kin, evaluation.dynamics.ks
    a_com = np.einsum("bij,j->bi", ks.J_v, evaluation.u_dot) + ks.a_bias
    forces = kin.mass[:, None] * (a_com - system.gravity[None, :])
    for push in pushes:
        if push.t_start - eps <= t < push.t_stop - eps:
            forces[push.body] -= push.force
    for body, _, force in constraint_point_forces(system, ks, evaluation.multipliers):
        if body >= 0:
            forces[body] -= force
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


def constraint_point_forces(system, ks, multipliers) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(body index (−1: ground), world point, world force on that body) for every coincident and
    distance constraint, from the multipliers; other constraint kinds are refused."""
    out: list[tuple[int, np.ndarray, np.ndarray]] = []
    if system.constraints is None:
        return out
    row = 0
    for kind in system.constraints.kinds:
        lam = np.asarray(multipliers[row:row + kind.rows], float)
        row += kind.rows
        if not isinstance(kind, (CoincidentRows, DistanceRows)):
            raise ModelError("constraints", f"joint forces are computed with coincident and distance constraints "
                             f"only, not {kind.name!r}")
        Pa = kind.pa.copy() if kind.a < 0 else ks.origin[kind.a] + ks.R[kind.a] @ kind.pa
        Pb = kind.pb.copy() if kind.b < 0 else ks.origin[kind.b] + ks.R[kind.b] @ kind.pb
        if isinstance(kind, CoincidentRows):
            force = np.eye(3)[kind.axes].T @ lam
        else:
            d = Pb - Pa
            force = lam[0] * d / np.linalg.norm(d)
        out += [(kind.b, Pb, force), (kind.a, Pa, -force)]
    return out


class JointForces:
    """The reaction forces of a run (mixed into `Simulation`)."""

    def joint_forces(self) -> np.ndarray:
        """(n_bodies, 3) world forces (N) on each body from its parent through its joint at the latest
        sample (joint coordinates; gravity, pushes, coincident and distance constraints), e.g. a
        pendulum's rod tension:

            sim.advance(0.5)
            sim.joint_forces()[0]   # the pivot's pull on the first body
        """
        if self.settings.coordinates != "joint":
            raise ModelError("settings.coordinates", "joint forces are computed in joint coordinates only")
        f, t = self.formulation, self._current_time()
        q, u = self._sample_state(self._samples[-1])
        evaluation = f.evaluate(t, f.initial_state(q, f.model_to_own(q, u)))
        return joint_reactions(self.model, f.system, evaluation, t, self._pushes, self._time_eps())
