"""engine.symbolic.state_jacobian against a closed form: the simple pendulum (a point mass m on a massless
rod of length l, θ measured from the hanging pose) moves by θ̈ = −(g/l) sin θ, so A = [[0, 1], [−(g/l) cos θ, 0]]."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.engine.symbolic import derive
from eomlab.engine.symbolic.state_jacobian import state_jacobian


@pytest.mark.parametrize("theta", [0.0, 0.7, 2.5])
def test_simple_pendulum_state_jacobian_is_the_closed_form(theta):
    model = preset("simple_pendulum")
    eq = derive(model, "kane")
    (q_name,), (u_name,) = eq.coordinates, eq.speeds
    A = state_jacobian(eq, {q_name: theta}, {u_name: 0.3})
    length = float(np.linalg.norm(model.bodies[0].com))  # the bob's distance from the pivot
    g = float(np.linalg.norm(model.gravity))
    expected = np.array([[0.0, 1.0], [-(g / length) * math.cos(theta), 0.0]])
    np.testing.assert_allclose(A, expected, rtol=0, atol=1e-12)
