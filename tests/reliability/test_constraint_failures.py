"""Constraints that cannot hold, redundant ones, and singular configurations reached in a run:
each named, with the formulations that handle them, the time and the condition number."""
from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.model import Coincident, ExpressionConstraint, PointRef, Prescribed, Stabilization
from eomlab.engine.modelfile import loads_model
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation
from eomlab.engine.model import ModelError

from reliability_helpers import asset_dict

REDUNDANT_OK = ["udwadia_kalaba", "maggi", "kane"]


def _with(model, *constraints):
    return replace(model, constraints=model.constraints + tuple(constraints))


def _refusal(model, **options) -> ModelError:
    with pytest.raises(ModelError) as info:
        Simulation(model, **options)
    return info.value


def test_two_different_motions_for_one_coordinate_are_refused_when_loading():
    data = asset_dict("simple_pendulum")
    data["constraints"] = [{"type": "prescribed", "name": "slow", "coordinate": "bob_theta", "motion": "2.5 + t"},
                           {"type": "prescribed", "name": "fast", "coordinate": "bob_theta", "motion": "2.5 + 2*t"}]
    with pytest.raises(ModelError) as info:
        loads_model(json.dumps(data), "servo.eom.json")
    error = info.value
    assert error.path == "constraints[1].motion" and "inconsistent constraints" in error.message
    assert "'slow'" in error.message and "bob_theta" in error.message


def test_two_different_motions_built_in_code_are_named_by_the_simulation():
    model = _with(preset("simple_pendulum"), Prescribed("slow", "bob_theta", "2.5 + t"),
                  Prescribed("fast", "bob_theta", "2.5 + 2*t"))
    error = _refusal(model)
    assert error.path == "constraints" and "slow[0]" in error.message and "fast[0]" in error.message
    assert "cannot all hold" in error.message


def test_the_same_motion_twice_is_redundant_not_inconsistent():
    data = asset_dict("simple_pendulum")
    data["constraints"] = [{"type": "prescribed", "coordinate": "bob_theta", "motion": "2.5 + t"},
                           {"type": "prescribed", "coordinate": "bob_theta", "motion": "t + 2.5"}]
    model = loads_model(json.dumps(data))
    sim = Simulation(model, method="kane", t_end=0.1)
    sim.run()
    assert sim.failure is None and any("redundant" in note for note in sim.notes)


def test_coincident_points_out_of_reach_are_named_and_projection_says_it_did_not_converge():
    far = Coincident("far", PointRef("bob", (1.0, 0.0, 0.0)), PointRef("ground", (5.0, 0.0, 0.0)))
    error = _refusal(_with(preset("simple_pendulum"), far))
    assert error.path == "constraints" and "far[0]" in error.message and "cannot all hold" in error.message
    assert "did not converge" in error.message


def test_contradicting_expression_constraints_are_named():
    model = _with(preset("simple_pendulum"), ExpressionConstraint("at_one", "bob_theta - 1"),
                  ExpressionConstraint("at_two", "bob_theta - 2"))
    error = _refusal(model)
    assert "at_one[0]" in error.message and "at_two[0]" in error.message


def _four_bar_twice_closed():
    model = preset("four_bar")
    again = Coincident("again", PointRef("rocker", (3.0, 0.0, 0.0)), PointRef("ground", (4.0, 0.0, 0.0)), dims=("x",))
    return _with(model, again)


def test_redundant_rows_make_lagrange_refuse_naming_them_and_who_handles_them():
    error = _refusal(_four_bar_twice_closed(), method="lagrange")
    assert "redundant constraint rows" in error.message and "again[0]" in error.message
    assert all(name in error.message for name in REDUNDANT_OK)


@pytest.mark.parametrize("method", REDUNDANT_OK)
def test_redundant_rows_run_with_a_note(method):
    sim = Simulation(_four_bar_twice_closed(), method=method, t_end=0.3)
    rows = sim.run()
    assert sim.failure is None and abs(rows[-1, 0] - 0.3) < 1e-12
    notes = " ".join(sim.notes)
    assert "redundant constraint rows" in notes and "again[0]" in notes and f"{method} handles them" in notes


def _driven_non_grashof():
    """Equal 3 m links on a 4 m base cannot let the crank turn round: driven at 1 rad/s from 90°,
    the coupler and rocker stretch into a line (the limit) at t ≈ 0.476 s."""
    model = preset("four_bar", ground=4.0, crank=3.0, coupler=3.0, rocker=3.0, crank_angle=math.pi / 2)
    return _with(model, Prescribed("drive", "crank_theta", f"{math.pi / 2!r} + t"))


def _stop_time(failure: str) -> float:
    return float(re.match(r"run stopped at t = ([0-9.e+-]+) s", failure).group(1))


@pytest.mark.parametrize("method", ["kane", "udwadia_kalaba"])
def test_linkage_driven_into_its_limit_pauses_naming_time_rows_and_condition(method):
    sim = Simulation(_driven_non_grashof(), method=method, t_end=2.0)
    rows = sim.run()
    assert sim.failure is not None, "the run went through the limit"
    assert abs(_stop_time(sim.failure) - 0.4761) < 1e-3
    assert "singular configuration" in sim.failure and "closure[" in sim.failure and "drive[0]" in sim.failure
    condition = float(re.search(r"condition number ([0-9.e+]+)", sim.failure).group(1))
    assert condition > 1e4
    assert 40 <= len(rows) <= 48 and np.all(np.isfinite(rows))  # the samples before the limit are kept


def test_condition_watch_raises_above_its_threshold_naming_the_rows():
    """The per-sample watch itself: rows whose second singular value vanishes."""
    sim = Simulation(preset("four_bar"), t_end=0.1)
    good = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    sim._watch_condition(good)
    from eomlab.engine.formulations import ConstraintFailure

    nearly_dependent = np.array([[1.0, 0.0, 0.0], [1.0, 1e-9, 0.0]])
    with pytest.raises(ConstraintFailure, match=r"singular configuration: the constraint rows closure\[\d\]"):
        sim._watch_condition(nearly_dependent)
    assert sim.max_condition > 1e8


def test_falling_four_bar_without_a_limit_runs_through():
    sim = Simulation(preset("four_bar"), t_end=1.0)
    sim.run()
    assert sim.failure is None and sim.max_condition < 1e3


def test_projection_that_cannot_reach_the_constraints_says_so():
    model = _driven_non_grashof().with_settings(stabilization=Stabilization(kind="projection"))
    sim = Simulation(model, method="kane", t_end=2.0)
    sim.run()
    assert sim.failure is not None and abs(_stop_time(sim.failure) - 0.4761) < 1e-3
    assert "singular configuration" in sim.failure or "did not converge" in sim.failure
