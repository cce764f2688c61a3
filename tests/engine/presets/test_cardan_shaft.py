"""The cardan shaft preset: its output turns as Hooke's joint says, in every formulation and both
coordinate choices; the universal joint carries the motion (the yoke's own angular velocity agrees)."""
import math

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.presets import preset
from eomlab.engine.presets.cardan import output_speed_ratio
from eomlab.engine.simulation import Simulation

#: the closed form ω_out = ω_in cos β / (1 − sin²β cos²θ_in) against the integrated output speed
#: (rtol = atol = 1e-10 in the preset): the runs stay within 3e-9
TOLERANCE = 1e-8
T_END = 2.0  # about two turns of the input at 3 rad/s: four swings of the output's speed


@pytest.fixture(scope="module")
def model():
    return preset("cardan_shaft")


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("method", list(METHODS))
def test_output_speed_follows_hookes_joint(model, method, coordinates):
    beta, rate = math.radians(30.0), 3.0
    sim = Simulation(model, method=method, coordinates=coordinates, t_end=T_END)
    rows = sim.run()
    t = rows[:, 0]
    assert t[-1] == pytest.approx(T_END)
    expected = rate * output_speed_ratio(beta, rate * t)
    output = rows[:, sim.column_index("output_theta_dot")]
    assert np.max(np.abs(output - expected)) < TOLERANCE
    np.testing.assert_allclose(rows[:, sim.column_index("input_theta")], rate * t, atol=TOLERANCE)
    # the yoke, on the universal joint, turns about a₂ at the same speed (every tenth sample)
    a2 = np.array([math.cos(beta), math.sin(beta), 0.0])
    yoke = model.bodies.index(model.body("yoke"))
    for row, want in zip(rows[::10], expected[::10]):
        omega = sim.angular_velocities(row)[yoke]
        assert abs(omega @ a2 - want) < TOLERANCE
        assert np.linalg.norm(omega - (omega @ a2) * a2) < TOLERANCE
    # the lesson: the output swings between ω_in cos β and ω_in / cos β (samples every 10 ms: within 1e-5)
    assert output.min() == pytest.approx(rate * math.cos(beta), rel=1e-5)
    assert output.max() == pytest.approx(rate / math.cos(beta), rel=1e-5)


@pytest.mark.parametrize("beta", [0.0, 0.2, 1.0])
def test_other_angles_start_consistent(beta):
    """Any angle in [0, π/2) builds a consistent start: the output's speed at t = 0 is ω_in / cos β."""
    model = preset("cardan_shaft", beta=beta, rate=2.0)
    sim = Simulation(model, t_end=0.5)
    rows = sim.run()
    expected = 2.0 * output_speed_ratio(beta, 2.0 * rows[:, 0])
    assert np.max(np.abs(rows[:, sim.column_index("output_theta_dot")] - expected)) < TOLERANCE


def test_refuses_a_right_angle():
    with pytest.raises(ValueError, match="beta"):
        preset("cardan_shaft", beta=math.pi / 2)
