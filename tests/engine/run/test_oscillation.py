"""Period and amplitude measured from samples (engine.run.oscillation) and the small-oscillation period.

Tolerances: a sampled sine's period to 1e-4 relative, its amplitude to 1e-3; a small-amplitude
pendulum's measured period within 0.1 % of 2π√(l/g) (the amplitude correction θ₀²/16 is 2e-4).
"""
import math

import numpy as np
import pytest

from eomlab.engine.run.oscillation import measure_oscillation, small_oscillation_period
from eomlab.engine.presets import double_compound_pendulum, planar_chain, simple_pendulum
from eomlab.engine.simulation import Simulation


def test_a_sampled_sine_gives_its_period_amplitude_and_centre():
    t = np.arange(0.0, 10.0, 0.01)
    x = 0.3 + 0.7 * np.sin(2 * math.pi * t / 1.7 + 0.4)
    found = measure_oscillation(t, x)
    assert found.period == pytest.approx(1.7, rel=1e-4)
    assert found.amplitude == pytest.approx(0.7, rel=1e-3)
    assert found.centre == pytest.approx(0.3, abs=1e-3) and found.cycles >= 4


@pytest.mark.parametrize("x", [np.zeros(50), np.linspace(0.0, 1.0, 50), np.sin(np.linspace(0.0, 5.0, 50))])
def test_less_than_a_period_gives_none(x):
    assert measure_oscillation(np.linspace(0.0, 1.0, 50), x) is None


def test_a_small_swing_of_a_simple_pendulum_has_the_small_angle_period():
    model = simple_pendulum(length=1.3, theta0=0.05)
    expected = 2 * math.pi * math.sqrt(1.3 / 9.81)
    assert small_oscillation_period(model) == pytest.approx(expected, rel=1e-7)
    rows = Simulation(model, t_end=8.0, rtol=1e-10, atol=1e-10).run()
    found = measure_oscillation(rows[:, 0], rows[:, 1])
    assert found.period == pytest.approx(expected, rel=1e-3)
    assert found.amplitude == pytest.approx(0.05, rel=1e-3)


def test_the_compound_pendulum_estimate_is_the_physical_pendulum_formula():
    model = planar_chain(n=1, kind="rod", length=0.8, mass=2.0)  # a rod swinging about its end
    body = model.bodies[0]
    sim = Simulation(model, t_end=0.01)
    d = float(np.linalg.norm(sim.system.kin.com_body[0]))
    axis_inertia = float(sim.system.mass_matrix(np.zeros(1))[0, 0])  # I_O = I_c + m d²
    g = float(np.linalg.norm(model.gravity))
    assert small_oscillation_period(model) == pytest.approx(2 * math.pi * math.sqrt(axis_inertia / (body.mass * g * d)),
                                                           rel=1e-7)


def test_no_estimate_for_more_than_one_coordinate():
    assert small_oscillation_period(double_compound_pendulum()) is None
