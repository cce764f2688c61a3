"""Constrained systems: closed forms, known multipliers, redundancy, drift and its cures.

Tolerances are stated per assertion. Runs use DOP853.
"""
import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.special import ellipk

from eomlab.engine.model import Coincident, ModelError, Stabilization
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from engine_helpers import FORMULATIONS, column, crossing_times, run
from representatives import without_same_path

TIGHT = dict(rtol=1e-11, atol=1e-11)
G = 9.81


def test_cartesian_pendulum_reproduces_the_angle_pendulums_period(method):
    """x, y and a distance constraint: the period equals 4·sqrt(l/g)·K(sin²(θ0/2)) to 1e-8."""
    sim, rows = run(preset("cartesian_pendulum", theta0=2.5), method, t_end=7.0, rtol=1e-12, atol=1e-12)
    x, y = column(sim, rows, "x"), column(sim, rows, "y")
    xd, yd = column(sim, rows, "x_dot"), column(sim, rows, "y_dot")
    theta_dot = (-y * xd + x * yd) / (x * x + y * y)
    turns = crossing_times(rows[:, 0], theta_dot)
    exact = 4.0 * math.sqrt(1.0 / G) * ellipk(math.sin(1.25) ** 2)
    assert abs(turns[2] - turns[0] - exact) / exact < 1e-8


@pytest.mark.parametrize("speed", [0.0, 1.5])
def test_pendulum_rod_tension_is_the_multiplier(method, speed):
    """λ at t = 0 equals the rod's reaction: tension m(g cos θ + l θ̇²) toward the pivot (1e-9).

    Φ = (|d|² − l²)/(2l) with d from the pivot to the bob, so Aᵀλ = λ d/l and λ = −tension.
    """
    theta0, l, m = 0.7, 1.0, 1.0
    model = preset("cartesian_pendulum", theta0=theta0)
    # tangential velocity θ̇ l along (cos θ, sin θ)
    bodies = (replace(model.bodies[0], joint=replace(model.bodies[0].joint, u0=(speed * math.cos(theta0),))),
              replace(model.bodies[1], joint=replace(model.bodies[1].joint, u0=(speed * math.sin(theta0),))))
    model = replace(model, bodies=bodies)
    sim = Simulation(model, method=method, t_end=0.01)
    lam = sim.samples()[0, sim.column_index("lambda_rod_0")]
    tension = m * (G * math.cos(theta0) + l * (speed / l) ** 2)
    assert abs(lam + tension) < 1e-9


def test_knife_edge_follows_its_circle_and_its_lateral_force(method):
    """Mass centre on the edge, no in-plane force: constant speed v and turn rate ω, a circle of
    radius v/ω; the lateral multiplier is the centripetal force m v ω (1e-9)."""
    v, w, m = 1.0, 0.5, 1.0
    sim, rows = run(preset("knife_edge", speed=v, turn_rate=w, mass=m), method, t_end=4.0, **TIGHT)
    t = rows[:, 0]
    x, y, th = column(sim, rows, "sled_x"), column(sim, rows, "sled_y"), column(sim, rows, "sled_theta")
    assert np.max(np.abs(th - w * t)) < 1e-8
    assert np.max(np.abs(x - v / w * np.sin(w * t))) < 1e-8
    assert np.max(np.abs(y - v / w * (1 - np.cos(w * t)))) < 1e-8
    assert abs(rows[0, sim.column_index("lambda_edge_0")] - m * v * w) < 1e-9


def test_leaning_rolling_disk_holds_its_steady_circle(method):
    """Lean, heading rate and the centre's distance from the circle's centre stay constant (1e-7)."""
    sim, rows = run(preset("rolling_disk_leaning"), method, t_end=2.0, **TIGHT)
    nutation = column(sim, rows, "disk_theta")
    assert np.max(np.abs(nutation - nutation[0])) < 1e-7
    cx, cy = column(sim, rows, "disk.x"), column(sim, rows, "disk.y")
    # fit the circle through the first three samples spaced apart, then check all of them
    pts = np.column_stack((cx, cy))
    a, b, c = pts[0], pts[len(pts) // 3], pts[2 * len(pts) // 3]
    M = 2 * np.array([b - a, c - a])
    centre = np.linalg.solve(M, np.array([b @ b - a @ a, c @ c - a @ a]))
    radius = np.linalg.norm(pts - centre, axis=1)
    assert np.max(np.abs(radius - radius[0])) < 1e-7


def test_particle_under_an_acceleration_constraint(method):
    """x_ddot + y_ddot = 0 under gravity: λ = m g / 2, x = t + g t²/4, y = −g t²/4 (1e-9)."""
    sim, rows = run(preset("acceleration_constraint_particle"), method, t_end=2.0, **TIGHT)
    t = rows[:, 0]
    assert np.max(np.abs(column(sim, rows, "x") - (t + G * t * t / 4))) < 1e-9
    assert np.max(np.abs(column(sim, rows, "y") + G * t * t / 4)) < 1e-9
    assert np.max(np.abs(column(sim, rows, "lambda_acceleration_0") - G / 2)) < 1e-9


def test_driven_crank_multiplier_is_the_drive_torque(method):
    """The prescribed angle holds exactly and the drive's multiplier balances the power:
    λ·ω equals dE/dt (the drive is the only non-conservative element), to 1e-6."""
    sim, rows = run(preset("driven_crank"), method, t_end=2.0, **TIGHT)
    t = rows[:, 0]
    assert np.max(np.abs(column(sim, rows, "crank_theta") - 2.0 * t)) < 1e-8
    E = column(sim, rows, "E")
    power = -column(sim, rows, "lambda_drive_0") * 2.0  # reaction on the crank: Aᵀλ with A = e_k
    dE = np.gradient(E, t, edge_order=2)
    assert np.max(np.abs(dE[5:-5] + power[5:-5])) < 1e-3 * max(1.0, np.max(np.abs(power)))


# --- the formulations agree ----------------------------------------------------------------

AGREEMENT_PRESETS = ["four_bar", "cartesian_pendulum", "spherical_pendulum_cartesian", "knife_edge",
                     "chaplygin_sleigh", "rolling_disk_vertical", "rolling_disk_leaning",
                     "acceleration_constraint_particle", "driven_crank", "double_pendulum_absolute"]


@pytest.mark.parametrize("name", without_same_path(AGREEMENT_PRESETS))
def test_every_formulation_agrees_on_constrained_presets(name):
    """All of them at t = 2 s agree to 1e-7 (rtol = atol = 1e-11)."""
    finals = {}
    for m in FORMULATIONS:
        sim, rows = run(preset(name), m, t_end=2.0, **TIGHT)
        n = len(sim.system.coordinate_names) + len(sim.system.speed_names)
        finals[m] = rows[-1, 1:1 + n]
    ref = finals["lagrange"]
    for m, v in finals.items():
        assert np.max(np.abs(v - ref)) < 1e-7, m


# --- redundancy and consistency ----------------------------------------------------------------


def _four_bar_with_duplicate():
    model = preset("four_bar")
    dup = next(c for c in model.constraints if isinstance(c, Coincident))
    return replace(model, constraints=model.constraints + (replace(dup, name="closure_copy"),))


def test_redundant_four_bar_runs_under_udwadia_kalaba_exactly_as_without():
    plain = run(preset("four_bar"), "udwadia_kalaba", t_end=1.0, **TIGHT)[1]
    sim, rows = run(_four_bar_with_duplicate(), "udwadia_kalaba", t_end=1.0, **TIGHT)
    n = len(sim.system.coordinate_names) * 2
    assert np.max(np.abs(rows[:, 1:1 + n] - plain[:, 1:1 + n])) < 1e-9
    assert any("redundant" in note for note in sim.notes)


def test_redundant_four_bar_under_lagrange_names_the_rows():
    with pytest.raises(ModelError) as err:
        Simulation(_four_bar_with_duplicate(), method="lagrange", t_end=1.0)
    text = str(err.value)
    assert "redundant" in text and "closure_copy[0]" in text and "udwadia_kalaba" in text
    assert "\n" not in text


@pytest.mark.parametrize("method_name", ["maggi", "kane"])
def test_reduced_formulations_absorb_redundant_rows(method_name):
    plain = run(preset("four_bar"), method_name, t_end=1.0, **TIGHT)[1]
    rows = run(_four_bar_with_duplicate(), method_name, t_end=1.0, **TIGHT)[1]
    assert np.max(np.abs(rows[:, 1:7] - plain[:, 1:7])) < 1e-8


# --- drift and its cures ---------------------------------------------------------------------


def _absolute_double_pendulum(method, stabilization, t_end=20.0):
    sim = Simulation(preset("double_pendulum_absolute"), method=method, t_end=t_end, rtol=1e-9, atol=1e-9,
                     stabilization=stabilization)
    rows = sim.run()
    assert sim.failure is None, sim.failure
    return sim, rows


def test_absolute_double_pendulum_drifts_without_stabilization():
    sim, rows = _absolute_double_pendulum("lagrange", Stabilization("none"), t_end=10.0)
    drift = column(sim, rows, "drift_pos")
    assert drift[-1] > 1e-9
    first, last = np.max(drift[: len(drift) // 4]), np.max(drift[3 * len(drift) // 4:])
    assert last > 3 * first  # it grows


@pytest.mark.parametrize("method_name", ["lagrange", "udwadia_kalaba"])
def test_projection_keeps_the_absolute_double_pendulum_on_its_constraints(method_name):
    sim, rows = _absolute_double_pendulum(method_name, Stabilization("projection", tolerance=1e-11), t_end=5.0)
    assert np.max(column(sim, rows, "drift_pos")) < 1e-10


@pytest.mark.parametrize("method_name", ["lagrange", "udwadia_kalaba"])
def test_baumgarte_bounds_the_drift(method_name):
    sim, rows = _absolute_double_pendulum(method_name, Stabilization("baumgarte", alpha=5.0, beta=5.0), t_end=5.0)
    assert np.max(column(sim, rows, "drift_pos")) < 1e-6


def test_maggi_quasi_velocities_keep_the_knife_edge_exact_where_lagrange_drifts():
    maggi, rows_m = run(preset("knife_edge"), "maggi", t_end=20.0, rtol=1e-8, atol=1e-8)
    lag, rows_l = run(preset("knife_edge"), "lagrange", t_end=20.0, rtol=1e-8, atol=1e-8)
    assert np.max(column(maggi, rows_m, "drift_vel")) < 1e-12
    assert np.max(column(lag, rows_l, "drift_vel")) > 1e-11


@pytest.mark.parametrize("name", ["four_bar", "rolling_disk_leaning", "spherical_pendulum_cartesian"])
def test_maggi_bases_agree(name):
    """The orthonormal null-space basis and coordinate partitioning give the same motion (1e-8)."""
    runs = [Simulation(preset(name), method="maggi", variant=v, t_end=1.0, **TIGHT).run()
            for v in ("orthonormal", "partitioning")]
    assert np.max(np.abs(runs[0] - runs[1])) < 1e-8


def test_singular_mass_matrix_at_the_start_is_a_model_error():
    model = preset("planar_chain", n=2, kind="point")
    model = replace(model, bodies=(model.bodies[0], replace(model.bodies[1], mass=0.0)))
    with pytest.raises(ModelError) as err:
        Simulation(model)
    assert "mass matrix is singular" in str(err.value) and "link2_theta" in str(err.value)


@pytest.mark.parametrize("name", ["four_bar", "knife_edge", "rolling_disk_leaning"])
def test_udwadia_kalaba_tensor_split(name):
    """Byachkov & Yushkov 2011 §3/§5: W = W_K + W_L, the L-part of the acceleration is the L-part of the free
    acceleration (W_L = Y_L, ideal constraints do not touch it) and R_L = 0 (3.11) — to 1e-10."""
    sim = Simulation(preset(name), method="udwadia_kalaba", t_end=0.1)
    f = sim.formulation
    q, u = f.state_to_qu(0.0, sim.stepper.y)
    dyn = f.system.dynamics(0.0, q, u)
    rows = f.constraint_rows(0.0, q, u, dyn)
    split = f.tensor_split(dyn, rows)
    u_dot = f.accelerations(dyn, rows, f.context(0.0, q, u, dyn))[0]
    scale = max(1.0, np.max(np.abs(u_dot)))
    assert np.max(np.abs(split["W_K"] + split["W_L"] - u_dot)) < 1e-10 * scale
    assert np.max(np.abs(split["W_L"] - split["Y_L"])) < 1e-10 * scale
    assert np.max(np.abs(split["R_L"])) < 1e-10 * scale
    assert np.max(np.abs(rows.A @ u_dot - rows.b)) < 1e-10 * scale
