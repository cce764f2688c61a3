"""Lagrange's equations with multipliers, THEORY.md (2.6)–(2.7) and (4.5).

    M(q) q_ddot + h(q, q_dot) = Q + Aᵀλ,   A q_ddot = b

solved as the saddle-point (KKT) system [[M, Aᵀ], [A, 0]] [q_ddot; −λ] = [Q − h; b]. The
velocities are the coordinate rates q_dot: where the model's speeds are body rates, Lagrange
works with the Euler-angle rates and hands body rates back only for output. Joints in Euler
parameters keep their body rates ω (quasi-velocities, Euler's equations for the rotation):
their four rates would carry a singular M, and pᵀṗ = 0 holds identically in ω.

Impulsive form (Lagrange's equations integrated over the instant of an impact; Pfeiffer & Glocker
1996, §6.1): the finite forces drop out and the velocities jump,

    M Δq̇ = Q̂ + Aᵀ Λ,   A Δq̇ = 0     (Q̂ the generalized impulse of the contacts, Λ the constraints')

solved as the same saddle-point system with [Q̂; 0] on the right (`impulse_response`).
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.formulations.formulation import ConstraintFailure, Formulation
from eomlab.engine.formulations.rank import describe_dependent_rows


class Lagrange(Formulation):
    name = "lagrange"
    handles_redundant = False  # the saddle-point matrix is singular for dependent rows

    def __init__(self, system, settings):
        self.model_system = system
        if system.has_body_rates:
            system = system.with_rate_speeds()
        super().__init__(system, settings)

    def model_speeds(self, q, u_own):
        if not self.model_system.has_body_rates:
            return u_own
        return self.model_system.kin.speeds_from_rates(q, self.system.qdot(q, u_own))

    def model_to_own(self, q, u_model):
        if not self.model_system.has_body_rates:
            return u_model
        return self.system.kin.speeds_from_rates(q, self.model_system.qdot(q, u_model))

    @property
    def integrates(self):
        return f"q ({self.system.n_q}), q̇ ({self.system.n_u}); {self.n_rows} multipliers"

    def impulse_response(self, ev, Q):
        """M Δq̇ − Aᵀ Λ = Q̂, A Δq̇ = 0 (the module docstring): Δq̇ per column of Q."""
        M, A = ev.dynamics.M, self.impulse_rows(ev.rows)
        if A is None:
            return np.linalg.solve(M, Q)
        n, k = M.shape[0], A.shape[0]
        kkt = np.zeros((n + k, n + k))
        kkt[:n, :n], kkt[:n, n:], kkt[n:, :n] = M, A.T, A
        rhs = np.zeros((n + k, Q.shape[1]))
        rhs[:n] = Q
        return np.linalg.solve(kkt, rhs)[:n]

    def accelerations(self, dyn, rows, state):
        if rows is None:
            return self.system.free_accelerations(dyn), np.zeros(0), {}
        n, k = dyn.M.shape[0], rows.A.shape[0]
        kkt = np.zeros((n + k, n + k))
        kkt[:n, :n] = dyn.M
        kkt[:n, n:] = rows.A.T
        kkt[n:, :n] = rows.A
        rhs = np.concatenate((dyn.forcing, rows.b))
        try:
            sol = np.linalg.solve(kkt, rhs)
        except np.linalg.LinAlgError:
            sol = None
        if sol is None or not np.all(np.isfinite(sol)):
            raise ConstraintFailure(
                "the saddle-point system [[M, Aᵀ], [A, 0]] is singular: "
                + describe_dependent_rows(rows.A, self.constraints)
                + " (udwadia_kalaba handles redundant constraints)"
            )
        return sol[:n], -sol[n:], {}
