"""Edits of a running Simulation (engine.run.run_edits): restore, set_state, set_parameter, push.

Tolerances: runs at rtol = atol = 1e-12 agree with their reference runs to 1e-10; projections
reach 1e-12; the work of a push matches the energy change to 1e-9.
"""
import math

import numpy as np
import pytest

from eomlab.engine.model import ModelError
from eomlab.engine.presets import double_compound_pendulum, four_bar, simple_pendulum
from eomlab.engine.mechanics.projection import _rows as constraint_rows
from eomlab.engine.run.run_edits import model_with_parameter
from eomlab.engine.simulation import Simulation

TIGHT = dict(rtol=1e-12, atol=1e-12)


def state_columns(sim, rows):
    n = 1 + sim.system.n_q + len(sim.system.speed_names)
    return rows[..., 1:n]


def row_at(rows, t):
    k = int(np.argmin(np.abs(rows[:, 0] - t)))
    assert abs(rows[k, 0] - t) < 1e-9
    return rows[k]


def with_initial_state(model, sim, row):
    """`model` started from the sample `row` of `sim` (joint coordinates: one q0, u0 per joint)."""
    q, u = sim._sample_state(row)
    for i, jl in enumerate(sim.system.kin.joints):
        model = model_with_parameter(model, f"bodies[{i}].joint.q0", list(q[jl.q_slice]))
        model = model_with_parameter(model, f"bodies[{i}].joint.u0", list(u[jl.u_slice]))
    return model


def test_parameter_change_continues_like_a_fresh_run(method):
    model = double_compound_pendulum()
    sim = Simulation(model, method=method, t_end=2.0, **TIGHT)
    sim.advance(1.0)
    sim.restore(1.0)  # the last step may have carried the samples past 1 s
    at_one = sim.samples()[-1].copy()
    assert at_one[0] == pytest.approx(1.0, abs=1e-12)
    sim.set_parameter("bodies[1].mass", 2.5)
    rows = sim.run()
    assert sim.failure is None, sim.failure
    assert np.all(np.diff(rows[:, 0]) > 0) and rows[-1, 0] == pytest.approx(2.0)
    assert np.allclose(np.diff(rows[:, 0]), 0.01, atol=1e-9)  # one time axis: no reset, no gap

    heavier = model_with_parameter(model, "bodies[1].mass", 2.5)
    fresh = Simulation(with_initial_state(heavier, sim, at_one), method=method, t_end=1.0, **TIGHT)
    fresh_rows = fresh.run()
    assert fresh.failure is None, fresh.failure
    diff = state_columns(sim, row_at(rows, 2.0)) - state_columns(fresh, row_at(fresh_rows, 1.0))
    assert np.max(np.abs(diff)) < 1e-10
    # the state did not jump at the edit, the motion did change
    assert np.allclose(state_columns(sim, row_at(rows, 1.0)), state_columns(sim, at_one), atol=1e-14)
    unchanged = Simulation(model, method=method, t_end=2.0, **TIGHT).run()
    assert np.max(np.abs(state_columns(sim, row_at(unchanged, 2.0) - row_at(rows, 2.0)))) > 1e-3


def test_restore_reproduces_the_run(method):
    sim = Simulation(double_compound_pendulum(), method=method, t_end=2.0, **TIGHT)
    original = sim.run().copy()
    sim.restore(1.0)
    assert sim.samples()[-1, 0] == pytest.approx(1.0) and sim.t == pytest.approx(1.0)
    rows = sim.run()
    assert sim.failure is None, sim.failure
    assert rows.shape == original.shape
    assert np.array_equal(rows[:, 0], original[:, 0]) or np.allclose(rows[:, 0], original[:, 0], atol=1e-12)
    assert np.max(np.abs(state_columns(sim, rows - original))) < 1e-10


def test_set_state_off_the_constraints_is_projected(method):
    sim = Simulation(four_bar(), method=method, t_end=0.3)
    sim.advance(0.1)
    t = sim.samples()[-1, 0]
    q, u = sim._sample_state(sim.samples()[-1])
    sim.set_state(q + np.array([0.05, -0.03, 0.02]), np.array([1.0, 0.0, 0.0]))
    q1, u1 = sim._sample_state(sim.samples()[-1])
    assert sim.samples()[-1, 0] == t
    rows, _ = constraint_rows(sim.system, t, q1, u1)
    assert np.max(np.abs(rows.position)) < 1e-12
    assert np.max(np.abs(rows.velocity)) < 1e-12
    assert abs(q1[0] - q[0]) > 1e-3  # moved, not put back where it was
    later = sim.run()
    assert sim.failure is None, sim.failure
    assert np.all(np.diff(later[:, 0]) > 0) and later[-1, 0] == pytest.approx(0.3)


def test_push_changes_energy_by_its_work(method):
    sim = Simulation(simple_pendulum(theta0=0.6), method=method, t_end=1.2, **TIGHT)
    sim.advance(0.5)
    before = sim.samples()[-1].copy()
    theta, omega = before[sim.column_index("bob_theta")], before[sim.column_index("bob_theta_dot")]
    along_velocity = np.sign(omega) * np.array([math.cos(theta), math.sin(theta), 0.0])
    force = 3.0 * along_velocity
    sim.push("bob", [1.0, 0.0, 0.0], force, 0.2)
    rows = sim.run()
    assert sim.failure is None, sim.failure
    t_stop = before[0] + 0.2  # the push acts from the latest sample on
    after = row_at(rows, t_stop)
    E, pos = sim.column_index("E"), [sim.column_index(f"bob.{a}") for a in "xyz"]
    work = float(force @ (after[pos] - before[pos]))
    assert work > 0 and after[E] > before[E]  # pushing along the velocity adds energy
    assert after[E] - before[E] == pytest.approx(work, abs=1e-9)
    assert np.max(np.abs(rows[rows[:, 0] >= t_stop - 1e-9, E] - after[E])) < 1e-9  # released: conserved again


def test_restore_before_a_push_forgets_it():
    sim = Simulation(simple_pendulum(theta0=0.6), t_end=1.0, **TIGHT)
    plain = sim.run().copy()
    sim.restore(0.5)
    sim.push("bob", [1.0, 0.0, 0.0], [0.0, 4.0, 0.0], 0.3)
    pushed = sim.run().copy()
    assert abs(pushed[-1, sim.column_index("E")] - plain[-1, sim.column_index("E")]) > 1e-3
    sim.restore(0.4)
    again = sim.run()
    assert np.max(np.abs(again - plain)[:, :3]) < 1e-10


def rod_pull(sim, row) -> float:
    """The pivot's pull on the bob along the rod at sample `row` (engine: its joint force)."""
    bob = row[[sim.column_index(f"bob.{a}") for a in "xyz"]]
    return float(sim.joint_forces(row)[0] @ (-bob / np.linalg.norm(bob)))


def test_samples_before_a_parameter_change_keep_their_parameters(method):
    """A mass change at t = 1 s: the rod force of the t = 0.5 s sample is the one computed before
    the change (to 1e-12), that of t = 1.5 s is m_new (g cos θ + l θ̇²) (1e-9); going back before
    the change brings the old mass back and reproduces the unchanged run (1e-10); going back to the
    change's own sample keeps the new mass."""
    m, heavier, length, g = 1.5, 4.0, 0.8, 9.81
    model = simple_pendulum(length=length, mass=m, theta0=2.0)
    sim = Simulation(model, method=method, t_end=2.0, **TIGHT)
    sim.advance(0.5)
    early = row_at(sim.samples(), 0.5).copy()
    pull_before = rod_pull(sim, early)
    sim.advance(1.0)
    sim.restore(1.0)
    sim.set_parameter("bodies[0].mass", heavier)
    sim.advance(1.5)
    rows = sim.samples()
    assert rod_pull(sim, row_at(rows, 0.5)) == pytest.approx(pull_before, abs=1e-12)
    late = row_at(rows, 1.5)
    theta, omega = late[sim.column_index("bob_theta")], late[sim.column_index("bob_theta_dot")]
    assert rod_pull(sim, late) == pytest.approx(heavier * (g * math.cos(theta) + length * omega**2), abs=1e-9)
    sim.restore(1.0)  # the change's own sample: its row is the new mass's
    assert sim.model.bodies[0].mass == heavier
    sim.restore(0.5)
    assert sim.model.bodies[0].mass == m and sim.system.kin.mass[0] == m
    rows = sim.run()
    unchanged = Simulation(model, method=method, t_end=2.0, **TIGHT).run()
    assert sim.failure is None and rows.shape == unchanged.shape
    assert np.max(np.abs(state_columns(sim, rows - unchanged))) < 1e-10


def test_continuing_from_a_sample_before_a_change_takes_its_parameters():
    """`continue_from` a kept row before the change: the old mass; with `model`: that model's."""
    model = simple_pendulum(mass=1.5, theta0=1.0)
    sim = Simulation(model, t_end=2.0, **TIGHT)
    sim.advance(1.0)
    early = row_at(sim.samples(), 0.5).copy()
    sim.set_parameter("bodies[0].mass", 4.0)
    heavy = sim.model
    sim.advance(1.5)
    late = sim.samples()[-1].copy()
    sim.continue_from(early)
    assert sim.model.bodies[0].mass == 1.5 and sim.samples()[-1, 0] == pytest.approx(0.5)
    sim.continue_from(late, model=heavy)  # the window puts the dropped samples back
    assert sim.model is heavy and sim.samples()[-1, 0] == pytest.approx(late[0])
    assert rod_pull(sim, late) == pytest.approx(4.0 / 1.5 * rod_pull(Simulation(model), late), rel=1e-12)


def test_inertia_from_the_shape_follows_the_mass():
    sim = Simulation(double_compound_pendulum(), t_end=1.0)
    before = np.array(sim.model.bodies[0].inertia)
    sim.set_parameter("bodies[0].mass", 2.0)
    assert np.allclose(np.array(sim.model.bodies[0].inertia), 2.0 * before)
    sim.set_parameter("gravity", [0.0, -1.62, 0.0])
    assert sim.model.gravity == (0.0, -1.62, 0.0)
    assert sim.system.gravity[1] == -1.62


@pytest.mark.parametrize("path, value", [
    ("bodies[9].mass", 1.0),
    ("bodies[0].mass", -1.0),
    ("bodies[0].mass", "heavy"),
    ("bodies[0].mass", float("nan")),
    ("forces[0].stiffness", 10.0),
    ("bodies[0].joint.type", 1.0),
    ("settings.rtol", 1e-6),
    ("gravity", [0.0, 1.0]),
    ("bodies[0]].mass", 1.0),
])
def test_bad_parameter_is_refused_naming_the_path(path, value):
    sim = Simulation(double_compound_pendulum(), t_end=1.0)
    sim.advance(0.2)
    count = len(sim.samples())
    with pytest.raises(ModelError) as err:
        sim.set_parameter(path, value)
    assert str(err.value).startswith(path.split("]]")[0])
    assert len(sim.samples()) == count and sim.model == double_compound_pendulum()
    sim.advance(0.3)  # the run goes on untouched
    assert sim.failure is None and sim.samples()[-1, 0] >= 0.3 - 1e-12


def test_bad_restore_state_and_push_are_refused():
    sim = Simulation(simple_pendulum(), t_end=1.0)
    sim.advance(0.2)
    with pytest.raises(ModelError, match="^t: no stored sample"):
        sim.restore(0.5)
    with pytest.raises(ModelError, match="^q: "):
        sim.set_state([0.1, 0.2], [0.0])
    with pytest.raises(ModelError, match="^body: no body named 'rod'"):
        sim.push("rod", [0, 0, 0], [1, 0, 0], 0.1)
    with pytest.raises(ModelError, match="^duration: "):
        sim.push("bob", [0, 0, 0], [1, 0, 0], -0.1)
    with pytest.raises(ModelError, match="^force: "):
        sim.push("bob", [0, 0, 0], [1, 0], 0.1)


def test_continuing_with_a_history_taken_back_evaluates_each_sample_with_its_parameters():
    """`continue_from(row, models=...)`: the parameter history handed back (the window undoing a
    "continue from here") is the run's again — its latest model goes on, and a sample between the
    change and the row (one the window puts back) is evaluated with the mass of its stretch, not
    the one in force before (the rod's pull scales with the mass, 1e-12)."""
    model = simple_pendulum(mass=1.5, theta0=1.0)
    sim = Simulation(model, t_end=2.0, **TIGHT)
    sim.advance(1.0)
    early, t_edit = row_at(sim.samples(), 0.5).copy(), sim.sampled_until
    sim.set_parameter("bodies[0].mass", 4.0)
    sim.advance(1.5)
    middle, late, history = row_at(sim.samples(), 1.2).copy(), sim.samples()[-1].copy(), sim.model_history()
    assert [m.bodies[0].mass for _t, m in history] == [1.5, 4.0] and history[1][0] == t_edit
    sim.continue_from(early)
    assert len(sim.model_history()) == 1 and sim.model.bodies[0].mass == 1.5
    sim.continue_from(late, models=history)
    assert [m.bodies[0].mass for _t, m in sim.model_history()] == [1.5, 4.0] and sim.model.bodies[0].mass == 4.0
    assert sim.model_history()[1][0] == t_edit and sim.samples()[-1, 0] == pytest.approx(late[0])
    light = Simulation(model)
    assert rod_pull(sim, middle) == pytest.approx(4.0 / 1.5 * rod_pull(light, middle), rel=1e-12)
    assert rod_pull(sim, early) == pytest.approx(rod_pull(light, early), rel=1e-12)
