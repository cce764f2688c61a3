"""Kane's method (Kane & Levinson 1985; THEORY.md §3): F_r + F_r* = 0.

F_r = Σ_B (R_B·v_B^(r) + L_B·ω_B^(r)),  F_r* = −Σ_B (m_B a_B·v_B^(r) + (I_B α_B + ω_B × I_B ω_B)·ω_B^(r)),
with the partial velocities v^(r) and ω^(r) the columns of the tree Jacobians (engine.kinematics).
With velocity constraints u_d = A_d u_i + B_d (every holonomic row differentiated once and every
linear first-order row) only the independent speeds are integrated and the equations use the
nonholonomic partial velocities ṽ^(r) = v^(r) + Σ_d v^(d) (A_d)_dr, i.e. the columns of J C;
acceleration-level rows enter through quasi-accelerations (the null space of their rows).

Impulsive form (Kane & Levinson 1985, §6.1, "generalized impulses"): integrated over an impact the
finite forces drop out and each independent speed jumps so that the generalized impulse of the
contacts equals the change of the generalized momentum,

    Σ_B m_B ṽ_B^(r) · Δv_B + ω̃_B^(r) · I_B Δω_B = I_r,   I_r = Σ_P ṽ_P^(r) · P̂

with ṽ^(r), ω̃^(r) the nonholonomic partial velocities (the columns of J C) and P̂ the contact
impulses: (Cᵀ M C) Δu_i = Cᵀ Q̂ (engine.formulations.reduced `impulse_response`).
"""
from __future__ import annotations


from eomlab.engine.constraints import HOLONOMIC, VELOCITY
from eomlab.engine.formulations.reduced import ReducedFormulation


class Kane(ReducedFormulation):
    name = "kane"
    acceleration_basis = "orthonormal"

    def velocity_rows(self, level, linear_rows):
        lv = level[linear_rows]
        return linear_rows[(lv == HOLONOMIC) | (lv == VELOCITY)]
