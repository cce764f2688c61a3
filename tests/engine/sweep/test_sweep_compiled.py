"""Sweep members on the compiled step (engine.sweep.compiled_members) against the numpy batched engine and single
runs, for every formulation and every measure the compiled path takes. The kernels load from numba's disk cache
(compiled once per source version)."""
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile import load_model
from eomlab.engine.presets import preset
from eomlab.engine.sweep import integrator
from eomlab.engine.sweep.chunk_runs import run_chunk
from eomlab.engine.sweep.compiled_members import kernels
from eomlab.engine.sweep.spec import make_sweep

from sweep_helpers import DOUBLE

pytestmark = pytest.mark.skipif(kernels() is None, reason="numba not installed")

MEASURES = ["final", "flip_time:lower_theta", "over_top:lower_theta", "energy_drift", "constraint_drift",
            "rhs_evals", "wall_time"]
#: starts that flip, go over the top, or do neither within t_end
STARTS = ["upper_theta=0.5,2.9", "lower_theta=0.1,3.0", "lower_theta_dot=0,4"]


@pytest.mark.parametrize("method", METHODS)
def test_compiled_members_equal_the_batched_engine(method):
    """Same integrator, same steps: final states within 1e-10, crossings within 1e-9 s, the same right-hand-side
    count (to one rejected step: rounding may tip one error norm across 1), energy drift within 1e-12 or 1 %
    (rtol = atol = 1e-10, t_end = 2 s)."""
    sweep = make_sweep(load_model(DOUBLE), [*STARTS, f"method={method}", "tol=1e-10"], MEASURES, t_end=2.0)
    compiled, notes = run_chunk(sweep, 0, sweep.n_runs)
    batched, _ = run_chunk(sweep, 0, sweep.n_runs, compiled=False)
    assert notes == {} and set(compiled["engine"]) == {"compiled"} and set(batched["engine"]) == {"batched"}
    assert set(compiled["failure"]) == {""}
    for name in sweep.columns:
        if name.startswith("final:"):
            np.testing.assert_allclose(compiled[name], batched[name], rtol=0, atol=1e-10, err_msg=name)
    for name in ("flip_time:lower_theta", "over_top:lower_theta"):
        assert np.isnan(compiled[name]).tolist() == np.isnan(batched[name]).tolist(), name
        np.testing.assert_allclose(compiled[name], batched[name], rtol=0, atol=1e-9, err_msg=name)
    assert np.isfinite(compiled["flip_time:lower_theta"]).any() and np.isnan(compiled["flip_time:lower_theta"]).any()
    assert np.isfinite(compiled["over_top:lower_theta"]).any()
    assert np.all(np.abs(compiled["rhs_evals"] - batched["rhs_evals"]) <= 12)
    np.testing.assert_allclose(compiled["energy_drift"], batched["energy_drift"], rtol=1e-2, atol=1e-12)
    assert np.all(compiled["constraint_drift"] == 0) and np.all(compiled["wall_time"] > 0)


@pytest.mark.parametrize("method", METHODS)
def test_compiled_members_equal_single_runs(method):
    """Against single runs (`Simulation`, rtol = atol = 1e-10, 2 s): final states within 1e-9; crossings within
    1e-4 s (the single run's from its samples every 0.01 s)."""
    sweep = make_sweep(load_model(DOUBLE), ["upper_theta=2.9", "lower_theta=0.1,3.0", f"method={method}", "tol=1e-10"],
                       ["final", "flip_time:lower_theta", "over_top:lower_theta"], t_end=2.0)
    compiled, _ = run_chunk(sweep, 0, sweep.n_runs)
    single, _ = run_chunk(sweep, 0, sweep.n_runs, batched=False)
    assert set(compiled["engine"]) == {"compiled"} and set(single["engine"]) == {"single"}
    for name in ("final:upper_theta", "final:lower_theta", "final:upper_theta_dot", "final:lower_theta_dot"):
        np.testing.assert_allclose(compiled[name], single[name], rtol=0, atol=1e-9, err_msg=name)
    for name in ("flip_time:lower_theta", "over_top:lower_theta"):
        assert np.isnan(compiled[name]).tolist() == np.isnan(single[name]).tolist(), name
        np.testing.assert_allclose(compiled[name], single[name], rtol=0, atol=1e-4, err_msg=name)


def _spatial_double_pendulum():
    """The double compound pendulum whose lower joint turns about the body's y axis (across the rod, in the
    plane of the upper joint's motion): a 3-D tree of revolutes, which the numpy batched engine (planar chains)
    does not take."""
    model = load_model(DOUBLE)
    upper, lower = model.bodies
    return replace(model, bodies=(upper, replace(lower, joint=replace(lower.joint, axis=(0.0, 1.0, 0.0)))))


def test_a_spatial_tree_runs_compiled_and_equals_single_runs():
    """Final states within 1e-9 of single runs, energy drift within 1e-12 or 1 % of theirs (rtol = atol = 1e-10, 1 s)."""
    sweep = make_sweep(_spatial_double_pendulum(), ["upper_theta=0.4,2.0", "lower_theta_dot=1,5", "tol=1e-10"],
                       ["final", "energy_drift"], t_end=1.0)
    compiled, _ = run_chunk(sweep, 0, sweep.n_runs)
    single, _ = run_chunk(sweep, 0, sweep.n_runs, batched=False)
    assert set(compiled["engine"]) == {"compiled"}
    for name in sweep.columns:
        if name.startswith("final:"):
            np.testing.assert_allclose(compiled[name], single[name], rtol=0, atol=1e-9, err_msg=name)
    assert np.all(compiled["energy_drift"] < 1e-8) and np.all(compiled["energy_drift"] > 0)


def test_a_member_with_a_singular_mass_matrix_is_reported_and_the_others_finish():
    sweep = make_sweep(preset("planar_chain", n=2, kind="point"), ["bodies[1].mass=1,0,2"], ["final"], t_end=0.5)
    columns, _ = run_chunk(sweep, 0, 3)
    batched, _ = run_chunk(sweep, 0, 3, compiled=False)
    assert list(columns["engine"]) == ["compiled"] * 3
    assert columns["failure"][0] == columns["failure"][2] == ""
    assert columns["failure"][1] == batched["failure"][1] and "singular" in columns["failure"][1]
    assert np.isnan(columns["final:link1_theta"][1]) and np.all(np.isfinite(columns["final:link1_theta"][[0, 2]]))


@pytest.mark.parametrize("change,engine", [("integrator=RK45", "batched"), ("coordinates=absolute", "single")])
def test_what_the_compiled_path_does_not_take_keeps_its_path(change, engine):
    sweep = make_sweep(load_model(DOUBLE), ["upper_theta=0.5", change], ["final"], t_end=0.1)
    columns, _ = run_chunk(sweep, 0, 1)
    assert list(columns["engine"]) == [engine]


@pytest.mark.parametrize("measure", ["end:lower_theta", "max:lower_theta_dot**2"])
def test_expressions_keep_the_other_paths(measure):
    """(Checked on the member's routing only: running an expression compiles it through sympy, seconds.)"""
    from eomlab.engine.sweep.compiled_members import FlatTrees, compiled_reason
    from eomlab.engine.sweep.measures import parse_measure

    model = load_model(DOUBLE)
    assert compiled_reason(model, [parse_measure(model, "final")], FlatTrees()) is None
    assert compiled_reason(model, [parse_measure(model, measure)], FlatTrees()) == f"measure {measure}"


def test_springs_keep_the_batched_path():
    model = preset("planar_chain", n=2)
    spring = {"type": "joint_spring", "body": model.bodies[0].name, "stiffness": 3.0}
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    data = model_to_dict(model)
    data["forces"] = [spring]
    sweep = make_sweep(model_from_dict(data), ["link1_theta=0.5"], ["final"], t_end=0.1)
    assert list(run_chunk(sweep, 0, 1)[0]["engine"]) == ["batched"]


def test_the_kernel_stops_members_by_the_batched_integrator_s_rules():
    from eomlab.engine.compiled import sweep_kernels

    for name in ("BLOW_UP", "MAX_NONFINITE_TRIALS", "TINY_STEP", "TINY_STEPS_IN_A_ROW", "SAFETY", "MIN_FACTOR",
                 "MAX_FACTOR"):
        assert getattr(sweep_kernels, name) == getattr(integrator, name), name
