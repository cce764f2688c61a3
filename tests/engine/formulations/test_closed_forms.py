"""Closed-form results on tree models, for every formulation (issue: engine core).

Tolerances are stated where they are used; all runs use DOP853 at rtol = atol = 1e-12 unless
said otherwise.
"""
import math

import numpy as np
from scipy.integrate import solve_ivp
from scipy.special import ellipk

from eomlab.engine.presets import preset

from engine_helpers import column, crossing_times, run

TIGHT = dict(rtol=1e-12, atol=1e-12)
G = 9.81


def test_pendulum_period_equals_the_elliptic_integral(method):
    """Released at 2.5 rad: period 4·sqrt(l/g)·K(sin²(θ0/2)) to 1e-8 relative."""
    sim, rows = run(preset("simple_pendulum", theta0=2.5), method, t_end=7.0, **TIGHT)
    t, rate = rows[:, 0], column(sim, rows, "bob_theta_dot")
    turns = crossing_times(t, rate)  # every half period
    exact = 4.0 * math.sqrt(1.0 / G) * ellipk(math.sin(1.25) ** 2)
    period = turns[2] - turns[0]
    assert abs(period - exact) / exact < 1e-8
    assert abs(turns[0] - exact / 2) / exact < 1e-8


def _euler_equations(inertia, w0, t_end):
    J = np.array(inertia)

    def rhs(t, w):
        return -np.cross(w, J * w) / J

    return solve_ivp(rhs, (0, t_end), w0, method="DOP853", rtol=1e-13, atol=1e-13, dense_output=True)


def test_torque_free_body_follows_eulers_equations(method):
    """I = diag(1, 2, 3), body-rate speeds: T and |H| conserved to 1e-9 over 20 s, and the body
    rates equal Euler's equations J ω̇ + ω × J ω = 0 integrated directly (to 1e-8)."""
    inertia, w0 = (1.0, 2.0, 3.0), (1.0, 0.1, 0.5)
    sim, rows = run(preset("rigid_body_fixed_point", inertia=inertia, w0=w0), method, t_end=20.0, **TIGHT)
    w = np.column_stack([column(sim, rows, f"body_{c}") for c in ("wx", "wy", "wz")])
    J = np.array(inertia)
    energy = 0.5 * np.sum(J * w * w, axis=1)
    momentum = np.linalg.norm(J * w, axis=1)
    assert np.max(np.abs(energy / energy[0] - 1)) < 1e-9
    assert np.max(np.abs(momentum / momentum[0] - 1)) < 1e-9
    assert np.max(np.abs(column(sim, rows, "T") / energy[0] - 1)) < 1e-9
    ref = _euler_equations(inertia, w0, 20.0).sol(rows[:, 0]).T
    assert np.max(np.abs(w - ref)) < 1e-8


def test_cart_pendulum_conserves_horizontal_momentum(method):
    """(m_A + m_B) ẋ + m_B l cos θ θ̇ stays constant to 1e-10 (no horizontal force)."""
    m_a, m_b, l = 1.0, 0.5, 1.0
    model = preset("cart_pendulum", m_cart=m_a, m_bob=m_b, l=l, theta0=0.5)
    sim, rows = run(model, method, t_end=5.0, **TIGHT)
    x_dot, th, th_dot = column(sim, rows, "x_dot"), column(sim, rows, "theta"), column(sim, rows, "theta_dot")
    p = (m_a + m_b) * x_dot + m_b * l * np.cos(th) * th_dot
    assert np.max(np.abs(p - p[0])) < 1e-10


def test_cart_pendulum_kane_and_lagrange_agree_at_5_s():
    model = preset("cart_pendulum")
    finals = [run(model, m, t_end=5.0, **TIGHT)[1][-1, 1:5] for m in ("kane", "lagrange")]
    assert np.max(np.abs(finals[0] - finals[1])) < 1e-8


def test_double_compound_pendulum_matches_seed_004(method):
    """Mass centres equal the closed form of THEORY.md §4 for the integrated angles; energy drift < 1e-9 over 4 s."""
    sim, rows = run(preset("double_compound_pendulum"), method, t_end=4.0, **TIGHT)
    th1, th2 = column(sim, rows, "upper_theta"), column(sim, rows, "lower_theta")
    rho1 = rho2 = 0.5
    l = 1.0
    r1 = np.column_stack((rho1 * np.cos(th1), rho1 * np.sin(th1)))
    r2 = np.column_stack((l * np.cos(th1) + rho2 * np.cos(th1 + th2), l * np.sin(th1) + rho2 * np.sin(th1 + th2)))
    got1 = np.column_stack((column(sim, rows, "upper.x"), column(sim, rows, "upper.y")))
    got2 = np.column_stack((column(sim, rows, "lower.x"), column(sim, rows, "lower.y")))
    assert np.max(np.abs(got1 - r1)) < 1e-14
    assert np.max(np.abs(got2 - r2)) < 1e-14
    assert np.max(sim.relative_energy_drift(column(sim, rows, "E"))) < 1e-9


def test_point_mass_chain_energy_and_heavy_top_invariants(method):
    """Heavy symmetric top: energy, the vertical angular momentum and the spin ω_z are conserved."""
    sim, rows = run(preset("heavy_top"), method, t_end=3.0, **TIGHT)
    assert np.max(sim.relative_energy_drift(column(sim, rows, "E"))) < 1e-9
    wz = column(sim, rows, "top_wz") if "top_wz" in sim.columns else None
    if wz is not None:
        assert np.max(np.abs(wz - wz[0])) < 1e-8
