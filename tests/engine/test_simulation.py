"""Simulation: integrators, samples, cost counters, and runs that stop with a message."""
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.model import BodyTorque, INTEGRATORS, JointEffort
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from engine_helpers import column


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_every_integrator_reproduces_the_pendulum(integrator):
    """Each integrator at rtol = atol = 1e-10 (RK4 at dt = 1e-3) agrees with DOP853 to 1e-5 at 1 s."""
    model = preset("simple_pendulum", theta0=1.0)
    ref = Simulation(model, t_end=1.0, rtol=1e-12, atol=1e-12).run()
    sim = Simulation(model, integrator=integrator, t_end=1.0, rtol=1e-10, atol=1e-10, dt=1e-3)
    rows = sim.run()
    assert sim.failure is None
    assert rows.shape == ref.shape
    assert np.max(np.abs(rows[:, 1:3] - ref[:, 1:3])) < 1e-5
    assert sim.stats["rhs_evals"] > 0 and sim.stats["steps"] > 0


def test_samples_every_dt_out_and_advance_in_pieces():
    model = preset("double_compound_pendulum")
    whole = Simulation(model, t_end=1.0, dt_out=0.05).run()
    sim = Simulation(model, t_end=1.0, dt_out=0.05)
    parts = [sim.samples()]
    for t in (0.3, 0.31, 0.7, 1.0):
        parts.append(sim.advance(t))
    pieces = np.vstack(parts)
    assert np.allclose(pieces[:, 0], np.arange(21) * 0.05, atol=1e-12)
    assert np.max(np.abs(pieces - whole)) < 1e-7
    assert sim.finished and sim.stats["wall_per_sim_second"] > 0


def _with_effort(model, body, values):
    return replace(model, forces=model.forces + (JointEffort("push", body, tuple(values)),))


def test_singular_effort_stops_the_run_and_keeps_its_samples():
    model = _with_effort(preset("simple_pendulum"), "bob", ["1/(0.3 - t)**3"])
    sim = Simulation(model, t_end=1.0, dt_out=0.01)
    rows = sim.run()
    assert sim.failure is not None and "t = 0.2" in sim.failure or "t = 0.3" in sim.failure
    assert 20 <= len(rows) <= 31
    assert np.all(np.isfinite(rows))


def test_exponential_blow_up_is_reported():
    model = _with_effort(preset("simple_pendulum"), "bob", ["exp(40*t)"])
    sim = Simulation(model, t_end=5.0)
    rows = sim.run()
    assert sim.failure is not None and ("blew up" in sim.failure or "failed" in sim.failure)
    assert len(rows) > 10


def test_gimbal_lock_with_euler_rate_speeds_names_the_angle():
    model = preset("rigid_body_fixed_point")
    b = model.bodies[0]
    joint = replace(b.joint, speeds="euler", q0=(0.0, 0.2, 0.0), u0=(0.0, -1.0, 0.0))
    model = replace(model, bodies=(replace(b, joint=joint),))
    sim = Simulation(model, method="lagrange", t_end=2.0)
    rows = sim.run()
    assert sim.failure is not None
    assert "gimbal" in sim.failure and "body_theta" in sim.failure and "body-rate" in sim.failure
    assert rows[-1, 0] < 0.25


def test_body_rate_speeds_pass_the_same_attitude_without_trouble():
    model = preset("rigid_body_fixed_point")
    sim = Simulation(model, method="kane", t_end=2.0)
    sim.run()
    assert sim.failure is None


def test_body_torque_does_the_work_it_should():
    """A constant torque τ on a free rotor: θ = τ t² / (2 I)."""
    model = preset("simple_pendulum")
    model = replace(model, gravity=(0.0, 0.0, 0.0), forces=(BodyTorque("tq", "bob", ("0", "0", "2.0")),))
    sim = Simulation(model, t_end=1.0, rtol=1e-12, atol=1e-12)
    rows = sim.run()
    t = rows[:, 0]
    assert np.max(np.abs(column(sim, rows, "bob_theta") - (2.5 + 2.0 * t * t / 2))) < 1e-9
