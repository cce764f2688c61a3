"""The numpy batched engine (`run_chunk(..., compiled=False)`; the compiled path: test_sweep_compiled.py) against
single runs: every member within 1e-8 of `eomlab run` at
rtol = atol = 1e-10 over 2 s, for every formulation; failing members stop alone."""
import csv

import numpy as np
import pytest

from eomlab.cli import main
from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile import load_model, save_model
from eomlab.engine.presets import preset
from eomlab.engine.sweep.integrator import BatchedRungeKutta
from eomlab.engine.sweep.members import members, with_initial_state
from eomlab.engine.sweep.chunk_runs import describe_fallbacks, run_chunk
from eomlab.engine.sweep.spec import make_sweep

from representatives import first_row_everywhere
from sweep_helpers import DOUBLE, five_link_chain

TOL = 1e-8
SETTINGS = dict(t_end=2.0)


def _eomlab_run_final(model, method, tmp_path) -> dict:
    """The last CSV row of `eomlab run` on `model` at rtol = atol = 1e-10."""
    path, out = tmp_path / "member.eom.json", tmp_path / "member.csv"
    save_model(model, path)
    assert main(["run", str(path), "--method", method, "--t-end", "2", "--rtol", "1e-10", "--atol", "1e-10",
                 "--out", str(out)]) == 0
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    return {k: float(v) for k, v in rows[-1].items()}


@pytest.mark.parametrize("which,method", first_row_everywhere(["double_pendulum", "five_link_chain"], METHODS))
def test_every_member_equals_eomlab_run(which, method, tmp_path):
    """Every member's final state equals `eomlab run`'s; the double pendulum in every formulation,
    the chain in one (every formulation: make test-all)."""
    if which == "double_pendulum":
        model, vary = load_model(DOUBLE), ["upper_theta=-2.5,0.5,3.0", "lower_theta_dot=-4,3", f"method={method}", "tol=1e-10"]
    else:
        model, vary = five_link_chain(), ["link3_theta=-1,2.5", "link5_theta_dot=6", f"method={method}", "tol=1e-10"]
    sweep = make_sweep(model, vary, ["final", "flip_time:" + model.coordinate_names[-1]], **SETTINGS)
    columns, notes = run_chunk(sweep, 0, sweep.n_runs, compiled=False)
    assert notes == {} and set(columns["engine"]) == {"batched"}
    runs, _ = members(sweep, sweep.run_table())
    for i, member in enumerate(runs):
        reference = _eomlab_run_final(with_initial_state(member.model, member.q0, member.u0), method, tmp_path)
        for name in (*model.coordinate_names, *(f"{c}_dot" for c in model.coordinate_names)):
            assert abs(columns[f"final:{name}"][i] - reference[name]) < TOL, (i, name)


def test_single_runs_give_the_same_table_when_batching_is_off():
    sweep = make_sweep(load_model(DOUBLE), ["upper_theta=0.5,2.9", "lower_theta=0.1,3.0"],
                       ["final", "flip_time:lower_theta", "over_top:lower_theta", "energy_drift", "rhs_evals"],
                       **SETTINGS)
    batched, _ = run_chunk(sweep, 0, sweep.n_runs, compiled=False)
    single, notes = run_chunk(sweep, 0, sweep.n_runs, batched=False)
    assert notes == {"batching turned off": 4}
    for name in ("final:upper_theta", "final:lower_theta_dot"):
        np.testing.assert_allclose(batched[name], single[name], atol=1e-9)
    # flip times: cubic Hermite between step ends (batched) or samples every 0.01 s (single)
    np.testing.assert_allclose(batched["flip_time:lower_theta"], single["flip_time:lower_theta"], atol=1e-4)
    assert np.isnan(batched["flip_time:lower_theta"]).tolist() == np.isnan(single["flip_time:lower_theta"]).tolist()
    np.testing.assert_allclose(batched["over_top:lower_theta"], single["over_top:lower_theta"], atol=1e-4)
    assert np.isfinite(batched["over_top:lower_theta"]).any()
    assert np.all(batched["energy_drift"] < 1e-6) and np.all(batched["rhs_evals"] > 100)


def test_a_blow_up_stops_one_member_and_the_others_finish():
    """ẏ = y² blows up at t = 1/y(0); the harmonic members go on to t_end and are exact."""
    y0 = np.array([[2.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.5]])  # member 0: y = 2 → ∞ at t = 0.5

    def fun(idx, t, y):
        out = np.column_stack((y[:, 1], -y[:, 0]))
        blow = idx == 0
        out[blow] = np.column_stack((y[blow, 0] ** 2, np.zeros(blow.sum())))
        return out

    stepper = BatchedRungeKutta("DOP853", fun, y0, 3.0, 1e-10, 1e-10)
    stepper.run()
    assert "blew up" in stepper.failure[0] or "step size" in stepper.failure[0]
    assert 0.49 < stepper.t[0] <= 0.5 + 1e-8
    assert stepper.failure[1:] == [None, None, None]
    t = 3.0
    for b in range(1, 4):
        a, v = y0[b]
        np.testing.assert_allclose(stepper.y[b], [a * np.cos(t) + v * np.sin(t), -a * np.sin(t) + v * np.cos(t)], atol=1e-9)


def test_a_member_with_a_singular_mass_matrix_is_reported_and_the_others_finish():
    model = preset("planar_chain", n=2, kind="point")
    sweep = make_sweep(model, ["bodies[1].mass=1,0,2"], ["final"], t_end=0.5)
    columns, _ = run_chunk(sweep, 0, 3, compiled=False)
    assert columns["failure"][0] == columns["failure"][2] == ""
    assert "singular" in columns["failure"][1]
    assert np.isnan(columns["final:link1_theta"][1]) and np.all(np.isfinite(columns["final:link1_theta"][[0, 2]]))


@pytest.mark.parametrize("integrator", ["RK45", "Radau"])
def test_other_integrators_batched_or_single_agree(integrator):
    sweep = make_sweep(load_model(DOUBLE), ["upper_theta=0.5,1.5", f"integrator={integrator}", "tol=1e-10"], ["final"], t_end=1.0)
    batched, notes = run_chunk(sweep, 0, 2)
    single, _ = run_chunk(sweep, 0, 2, batched=False)
    assert set(batched["engine"]) == ({"batched"} if integrator == "RK45" else {"single"})
    if integrator == "Radau":
        assert notes == {"integrator Radau (batched: DOP853, RK45)": 2}
    np.testing.assert_allclose(batched["final:upper_theta"], single["final:upper_theta"], atol=1e-8)


def test_absolute_coordinates_fall_back_to_single_runs_and_say_why():
    sweep = make_sweep(load_model(DOUBLE), ["upper_theta=0.5", "coordinates=absolute"], ["final:upper_theta"], t_end=0.2)
    columns, notes = run_chunk(sweep, 0, 1)
    assert list(columns["engine"]) == ["single"]
    assert describe_fallbacks(notes) == ["1 run as single runs: coordinates 'absolute' (the batched path runs joint coordinates)"]


def test_flip_time_of_a_pendulum_going_over_the_top_equals_the_quadrature():
    """From the bottom with θ̇0 > 2√(g/l): t_flip = ∫₀^π dθ / √(θ̇0² − 2 (g/l)(1 − cos θ))."""
    from scipy.integrate import quad

    model = preset("simple_pendulum", theta0=0.0)
    speeds = [6.5, 7.0, 9.0]
    sweep = make_sweep(model, [f"bob_theta_dot={','.join(map(str, speeds))}", "tol=1e-10"], ["flip_time:bob_theta"],
                       t_end=3.0)
    columns, _ = run_chunk(sweep, 0, 3)
    g_over_l = 9.81
    for w0, t_flip in zip(speeds, columns["flip_time:bob_theta"]):
        exact, _ = quad(lambda th, w=w0: 1.0 / np.sqrt(w**2 - 2 * g_over_l * (1 - np.cos(th))), 0.0, np.pi, epsabs=1e-13)
        assert abs(t_flip - exact) < 1e-8, (w0, t_flip, exact)


def test_over_the_top_is_measured_from_the_hanging_position_whatever_the_angle_s_zero():
    """A pendulum whose angle is 0 along +x hangs at −π/2 (engine/sweep/hanging.py): `over_top`
    is the quadrature of the climb from hanging to upright; `flip_time` (|θ| = π) is a horizontal
    rod, here three quarters of a turn on. Batched and single runs (absolute coordinates) alike."""
    from dataclasses import replace

    from scipy.integrate import quad

    from eomlab.engine.model import IDENTITY3
    from eomlab.engine.sweep.hanging import hanging_position

    hanging = preset("simple_pendulum", theta0=-np.pi / 2)
    bob = hanging.bodies[0]
    model = replace(hanging, bodies=(replace(bob, joint=replace(bob.joint, rotation=IDENTITY3)),))
    assert hanging_position(model)[0] == pytest.approx(-np.pi / 2, abs=1e-7)
    speeds = [6.5, 7.0, 9.0]
    for coordinates in ("joint", "absolute"):
        sweep = make_sweep(model, [f"bob_theta_dot={','.join(map(str, speeds))}", "tol=1e-10",
                                   f"coordinates={coordinates}"], ["over_top:bob_theta", "flip_time:bob_theta"], t_end=3.0)
        columns, _ = run_chunk(sweep, 0, 3)
        for w0, t_top, t_flip in zip(speeds, columns["over_top:bob_theta"], columns["flip_time:bob_theta"]):
            climb = lambda th, w=w0: 1.0 / np.sqrt(w**2 - 2 * 9.81 * (1 - np.cos(th)))  # noqa: E731  (g/l = 9.81)
            exact, _ = quad(climb, 0.0, np.pi, epsabs=1e-13)
            # the hanging angle is found to ~1e-8 rad, the crossing on the step's interpolant
            assert abs(t_top - exact) < (1e-7 if coordinates == "joint" else 1e-5), (coordinates, w0, t_top, exact)
            # |θ| = π: three quarters of a turn from hanging, over the top and on to the horizontal
            horizontal, _ = quad(climb, 0.0, 1.5 * np.pi, epsabs=1e-13)
            assert abs(t_flip - horizontal) < 1e-5, (coordinates, w0, t_flip, horizontal)


def test_over_top_needs_a_revolute_angle_and_sums_a_planar_chain():
    with pytest.raises(Exception, match="revolute"):
        make_sweep(preset("cart_pendulum"), ["theta=0:1:2"], ["over_top:x"], t_end=1.0)
    from eomlab.engine.sweep.measures import parse_measure

    lower = parse_measure(preset("double_compound_pendulum"), "over_top:lower_theta")
    assert lower.chain == (0, 1) and lower.offset == pytest.approx(-np.pi / 2, abs=1e-7)  # the rod itself
    assert parse_measure(preset("cart_pendulum"), "over_top:theta").chain == (1,)
