"""Sweep members on the compiled step (engine.sweep.compiled_members) against the numpy batched engine and single
runs, for every formulation and every measure the compiled path takes. The kernels load from numba's disk cache
(compiled once per source version)."""
import math
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

from sweep_helpers import DOUBLE, five_link_chain

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


_X_TURN = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # a quarter turn about x: z → −y, y → z


def _turned_into_xz(model):
    """The same mechanism turned a quarter about x (every vector, frame and inertia, and gravity): it moves in
    the x–z plane, so the compiled kernel takes its general ABA, not the planar form."""
    def vec(v):
        return tuple(float(x) for x in _X_TURN @ np.asarray(v, float))

    def mat(m):
        return tuple(tuple(float(x) for x in row) for row in _X_TURN @ np.asarray(m, float) @ _X_TURN.T)

    bodies = tuple(replace(b, com=vec(b.com), inertia=mat(b.inertia), joint=replace(
        b.joint, at=vec(b.joint.at), axis=vec(b.joint.axis), rotation=mat(b.joint.rotation))) for b in model.bodies)
    return replace(model, gravity=vec(model.gravity), bodies=bodies)


def _branched_planar_tree():
    """Five links, link4 hanging from link2 (a branch), one axis along −z, one joint frame turned about z, one
    joint origin off the plane, gravity with x and z parts (z: heights only)."""
    model = five_link_chain()
    b = list(model.bodies)
    turn = ((math.cos(0.4), -math.sin(0.4), 0.0), (math.sin(0.4), math.cos(0.4), 0.0), (0.0, 0.0, 1.0))
    b[1] = replace(b[1], joint=replace(b[1].joint, at=(1.0, 0.2, 0.3)))
    b[2] = replace(b[2], joint=replace(b[2].joint, axis=(0.0, 0.0, -1.0)))
    b[3] = replace(b[3], parent=b[1].name)
    b[4] = replace(b[4], joint=replace(b[4].joint, rotation=turn), mass=2.0)
    return replace(model, gravity=(1.0, -9.81, -2.0), bodies=tuple(b))


def _is_planar_in_the_kernel(model) -> bool:
    from eomlab.engine.sweep.compiled_members import FlatTrees

    return bool(kernels().planar_tree(FlatTrees().of(model)[0])[0])


@pytest.mark.parametrize("method", METHODS)
def test_the_planar_form_equals_the_general_kernel(method):
    """The double pendulum on the kernel's planar right-hand side against the same pendulum turned into the x–z
    plane (the general ABA): final states within 1e-10, crossings within 1e-9 s, energy drift within 1e-12 or
    1 % (rtol = atol = 1e-10, t_end = 2 s; the test of the batched engine's tolerances)."""
    model = load_model(DOUBLE)
    turned = _turned_into_xz(model)
    assert _is_planar_in_the_kernel(model) and not _is_planar_in_the_kernel(turned)
    measures = ["final", "flip_time:lower_theta", "over_top:lower_theta", "energy_drift"]
    flat, spatial = (run_chunk(s, 0, s.n_runs)[0] for s in (
        make_sweep(m, [*STARTS, f"method={method}", "tol=1e-10"], measures, t_end=2.0) for m in (model, turned)))
    assert set(flat["engine"]) == set(spatial["engine"]) == {"compiled"} and set(flat["failure"]) == {""}
    for name in flat:
        if name.startswith("final:"):
            np.testing.assert_allclose(flat[name], spatial[name], rtol=0, atol=1e-10, err_msg=name)
    for name in ("flip_time:lower_theta", "over_top:lower_theta"):
        assert np.isnan(flat[name]).tolist() == np.isnan(spatial[name]).tolist(), name
        np.testing.assert_allclose(flat[name], spatial[name], rtol=0, atol=1e-9, err_msg=name)
    assert np.isfinite(flat["flip_time:lower_theta"]).any()
    np.testing.assert_allclose(flat["energy_drift"], spatial["energy_drift"], rtol=1e-2, atol=1e-12)


def test_a_branched_planar_tree_equals_the_general_kernel_and_the_batched_engine():
    """Branches, a −z axis, a turned joint frame, heights and gravity's z part: final states within 1e-9 of the
    general ABA and of the numpy batched engine, energy drift within 1e-12 or 1 % (rtol = atol = 1e-10, 1 s)."""
    model = _branched_planar_tree()
    assert _is_planar_in_the_kernel(model)
    vary = ["link1_theta=0.3,2.5", "link3_theta_dot=0,3", "tol=1e-10"]
    sweeps = [make_sweep(m, vary, ["final", "energy_drift"], t_end=1.0) for m in (model, _turned_into_xz(model))]
    flat, spatial = (run_chunk(s, 0, s.n_runs)[0] for s in sweeps)
    batched, _ = run_chunk(sweeps[0], 0, sweeps[0].n_runs, compiled=False)
    assert set(flat["engine"]) == set(spatial["engine"]) == {"compiled"} and set(batched["engine"]) == {"batched"}
    for other in (spatial, batched):
        for name in flat:
            if name.startswith("final:"):
                np.testing.assert_allclose(flat[name], other[name], rtol=0, atol=1e-9, err_msg=name)
        np.testing.assert_allclose(flat["energy_drift"], other["energy_drift"], rtol=1e-2, atol=1e-12)
    assert np.all(flat["energy_drift"] < 1e-8)


def test_members_measuring_only_crossings_stop_at_their_last_and_measure_the_same():
    """A member whose measures are all crossings stops at its last crossing (fewer right-hand sides), with the
    same crossing times, bit for bit, as the run to t_end; a member that never crosses runs to t_end."""
    crossings = ["flip_time:lower_theta", "over_top:lower_theta"]
    sweeps = [make_sweep(load_model(DOUBLE), ["upper_theta=0.5,2.9", "lower_theta=0.1,3.0"], measures, t_end=3.0)
              for measures in (crossings, [*crossings, "final"])]
    stopping, whole = (run_chunk(s, 0, s.n_runs)[0] for s in sweeps)
    for name in crossings:
        assert np.array_equal(stopping[name], whole[name], equal_nan=True), name
    assert list(stopping["failure"]) == list(whole["failure"]) == [""] * 4
    flips = whole["flip_time:lower_theta"]
    assert np.isfinite(flips).any() and np.isnan(flips).any()

    from scipy.integrate import DOP853
    from eomlab.engine.sweep.compiled_members import FlatTrees

    tree = FlatTrees().of(load_model(DOUBLE))[0]
    for start, flips_in_time in (((2.9, 3.0), True), ((-1.4, 0.1), False)):  # −π/2: hanging
        ends = []
        for until_crossed in (True, False):
            crossing = np.empty(1)
            outcome, t, _, evaluations, _, _ = kernels().run_sweep_member(
                tree, np.array([*start, 0.0, 0.0]), 3.0, 1e-9, 1e-9, 0.01, DOP853.A, DOP853.B, DOP853.E3, DOP853.E5,
                -1.0 / (DOP853.error_estimator_order + 1), np.array([1], dtype=np.int64),
                np.array([0, 1], dtype=np.int64), np.zeros(1), False, until_crossed, crossing)
            ends.append((outcome, t, evaluations, crossing[0]))
        (_, t_stop, evals_stop, cross_stop), (_, t_end, evals_end, cross_end) = ends
        assert t_end == 3.0 and np.array_equal(cross_stop, cross_end, equal_nan=True)
        if flips_in_time:
            assert cross_stop <= t_stop < 3.0 and evals_stop < evals_end
        else:
            assert np.isnan(cross_stop) and t_stop == 3.0 and evals_stop == evals_end
