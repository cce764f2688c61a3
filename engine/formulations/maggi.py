"""The generalized Maggi equations, THEORY.md (4.6)–(4.11).

q_ddot = q_ddot_p + C w with A C = 0 (columns of C: a basis e_λ of the L-subspace), A q_ddot_p = b.
First group, l equations free of multipliers: Cᵀ (M q_ddot − Q + h) = 0.
Second group, the reactions: λ = Dᵀ (M q_ddot − Q + h) with A D = I_k.
First-order (nonholonomic) rows are eliminated at the velocity level, as in the classical Maggi
equations: independent quasi-velocities ν with u = C(q) ν + c are integrated, so those rows hold
by construction. Holonomic and second-order rows stay at the acceleration level, with an
orthonormal null-space basis (default) or coordinate partitioning (`Maggi.acceleration_basis`).

Impulsive form (the first group integrated over the impact, Papastavridis 2002, §3.16 for impulsive
motion in quasi-velocities): Cᵀ (M Δq̇ − Q̂) = 0 with Δq̇ = C Δν, i.e. the reduced system
(Cᵀ M C) Δν = Cᵀ Q̂ on the admissible directions C of every velocity-level row
(engine.formulations.reduced `impulse_response`); the constraints' impulses follow from the second group.
"""
from __future__ import annotations

from eomlab.engine.constraints import VELOCITY
from eomlab.engine.formulations.reduced import ReducedFormulation


class Maggi(ReducedFormulation):
    name = "maggi"
    acceleration_basis = "orthonormal"

    def velocity_rows(self, level, linear_rows):
        return linear_rows[level[linear_rows] == VELOCITY]


class MaggiPartitioned(Maggi):
    """Maggi with coordinate partitioning also for the acceleration-level rows."""

    acceleration_basis = "partitioning"
