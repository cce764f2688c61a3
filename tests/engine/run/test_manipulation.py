"""A hand on a running mechanism (engine.run.manipulation): drag_to, pull/move_pull/release, continue_from.

Tolerances: a dragged simple pendulum points at the target to 1e-9 rad; a dragged four-bar stays
closed to 1e-12; going on from a kept sample reproduces the original run to 1e-10 (rtol = 1e-12).
"""
import math

import numpy as np
import pytest

from eomlab.engine.model import ModelError
from eomlab.engine.presets import four_bar, simple_pendulum
from eomlab.engine.mechanics.projection import _rows as constraint_rows
from eomlab.engine.simulation import Simulation

TIGHT = dict(rtol=1e-12, atol=1e-12)


def bob_point(sim):
    return sim.system.kin.com_body[0]


def test_drag_points_a_simple_pendulum_at_the_target_and_leaves_it_at_rest(method):
    sim = Simulation(simple_pendulum(), method=method, t_end=5.0)
    sim.advance(0.5)
    t = sim.sampled_until
    sim.drag_to("bob", bob_point(sim), [0.5, -0.2, 0.0])  # beyond the rod's reach: the nearest pose
    row = sim.samples()[-1]
    assert row[0] == t and len(sim.samples()) == len(sim.samples()[:, 0])
    assert row[1] == pytest.approx(math.atan2(0.5, 0.2), abs=1e-9)  # θ from the downward vertical
    assert row[2] == 0.0
    rows = sim.advance(t + 0.5)
    assert sim.failure is None and rows[0, 0] == pytest.approx(t + 0.01)
    assert rows[0, 1] < row[1]  # it falls back from the new pose


def test_drag_keeps_a_closed_loop_closed(method):
    sim = Simulation(four_bar(), method=method, t_end=5.0)
    sim.advance(0.2)
    crank = sim.system.body_names[0]
    tip = [1.5, 0.0, 0.0]  # the crank's end, in its frame
    sim.drag_to(crank, tip, [0.3, 1.45, 0.0])
    q, u = sim._sample_state(sim.samples()[-1])
    rows, _ = constraint_rows(sim.system, sim.sampled_until, q, u)
    assert np.max(np.abs(rows.position)) < 1e-12 and np.max(np.abs(rows.velocity)) < 1e-12
    ks = sim.system.kin.positions(q)
    end = ks.origin[0] + ks.R[0] @ np.array(tip)
    assert math.atan2(end[1], end[0]) == pytest.approx(math.atan2(1.45, 0.3), abs=1e-6)
    sim.advance(sim.sampled_until + 0.3)
    assert sim.failure is None, sim.failure


def test_an_unreachable_pose_is_refused_and_the_run_is_unchanged():
    sim = Simulation(simple_pendulum(), t_end=5.0)
    sim.advance(0.3)
    before = sim.samples().copy()
    for target in ([np.nan, 0.0, 0.0], [1.0, 2.0]):
        with pytest.raises(ModelError):
            sim.drag_to("bob", bob_point(sim), target)
    with pytest.raises(ModelError, match="no body named"):
        sim.drag_to("nobody", [0, 0, 0], [1, 0, 0])
    assert np.array_equal(sim.samples(), before)


def test_a_pull_adds_its_work_to_the_energy_and_ends_on_release(method):
    sim = Simulation(simple_pendulum(theta0=0.0), method=method, t_end=5.0)
    sim.advance(0.1)
    t = sim.sampled_until
    E = sim.column_index("E")
    E_before = sim.samples()[-1, E]
    sim.pull("bob", bob_point(sim), [1.0, -0.5, 0.0])
    sim.advance(t + 0.3)
    sim.move_pull([1.0, 0.0, 0.0])
    assert sim.pull_anchor()[1] == pytest.approx([1.0, 0.0, 0.0])
    sim.advance(t + 0.6)
    sim.release()
    assert sim.pull_anchor() is None
    E_released = sim.samples()[-1, E]
    rows = sim.advance(t + 1.2)
    assert sim.failure is None, sim.failure
    assert E_released > E_before + 0.5  # the hand did work on the bob
    assert np.max(np.abs(rows[:, E] - E_released)) < 1e-4 * abs(E_released)  # free again: E conserved


def test_continue_from_a_kept_sample_reproduces_the_run(method):
    sim = Simulation(simple_pendulum(), method=method, t_end=2.0, **TIGHT)
    original = sim.run()
    k = int(np.argmin(np.abs(original[:, 0] - 1.0)))
    sim.continue_from(original[k])
    assert sim.samples()[-1, 0] == original[k, 0] and not sim.finished
    again = sim.run()
    assert np.max(np.abs(again[k:, 1:3] - original[k:, 1:3])) < 1e-10
    later = original[-1].copy()
    sim.continue_from(original[k // 2])
    sim.continue_from(later)  # forward again (the window's undo of "continue from here")
    assert sim.samples()[-1, 0] == later[0] and sim.finished


def test_continue_from_refuses_a_row_of_the_wrong_size():
    sim = Simulation(simple_pendulum(), t_end=1.0)
    with pytest.raises(ModelError, match="row"):
        sim.continue_from([0.0, 1.0])


# --- the constants of effort expressions (engine.run.run_edits: set_parameter "…constants[k]") -----------


def damped_pendulum(c: str = "0.3", extra: str = " + 0.1*sin(2*bob_theta)**2"):
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    data = model_to_dict(simple_pendulum())
    data["forces"] = [{"name": "friction", "type": "joint_effort", "body": "bob", "value": [f"-{c}*bob_theta_dot{extra}"]}]
    return model_from_dict(data)


def test_the_constants_of_an_expression_are_its_literals_but_not_exponents():
    from eomlab.engine.simulation import expression_constants

    assert expression_constants("-0.3*bob_theta_dot + 0.1*sin(2*t)**2") == [0.3, 0.1, 2.0]
    assert expression_constants("1e-3*x + 4j") == [1e-3]
    assert expression_constants("(x +") == []  # unreadable: none (the model file names the error)


def test_a_constant_changed_mid_run_continues_like_a_fresh_run_with_it(method):
    from eomlab.engine.run.run_edits import model_with_parameter

    sim = Simulation(damped_pendulum(), method=method, t_end=2.0, **TIGHT)
    sim.advance(1.0)
    sim.restore(1.0)
    at_one = sim.samples()[-1].copy()
    sim.set_parameter("forces[0].value[0].constants[0]", 0.8)
    assert sim.model.forces[0].value[0].startswith("-0.8*bob_theta_dot")
    rows = sim.run()
    assert sim.failure is None and rows[-1, 0] == pytest.approx(2.0)
    fresh_model = model_with_parameter(damped_pendulum("0.8"), "bodies[0].joint.q0", [at_one[1]])
    fresh_model = model_with_parameter(fresh_model, "bodies[0].joint.u0", [at_one[2]])
    fresh = Simulation(fresh_model, method=method, t_end=1.0, **TIGHT).run()
    assert np.max(np.abs(rows[-1, 1:3] - fresh[-1, 1:3])) < 1e-10


def test_a_constant_is_refused_with_the_path_when_out_of_range():
    sim = Simulation(damped_pendulum(), t_end=1.0)
    for path, value in (("forces[0].value[0].constants[7]", 1.0), ("forces[0].value[0].constants[0]", -1.0),
                        ("bodies[0].mass.constants[0]", 1.0)):
        with pytest.raises(ModelError, match=r"forces\[0\]|bodies\[0\]"):
            sim.set_parameter(path, value)


def test_continue_from_in_absolute_coordinates_reproduces_the_run():
    from eomlab.engine.presets import double_pendulum_absolute

    sim = Simulation(double_pendulum_absolute(), t_end=1.0, **TIGHT)
    original = sim.run()
    k = int(np.argmin(np.abs(original[:, 0] - 0.5)))
    sim.continue_from(original[k])
    again = sim.run()
    assert np.max(np.abs(again[k] - original[k])) < 1e-12  # the sample itself, evaluated again
    assert np.max(np.abs(again[k:, 1:] - original[k:, 1:])) < 1e-8  # joint angles, poses, energies alike
