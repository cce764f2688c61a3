"""The linearized equations page (engine.symbolic.linearized_equations): M, C and K of a tree about the point the
numeric linearization finds, against closed forms and against engine.linearize's own M, C, K."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.linearize import linearize
from eomlab.engine.model import ModelError
from eomlab.engine.presets import preset
from eomlab.engine.symbolic import derive


def matrix(eq, symbol: str) -> np.ndarray:
    return np.array(eq.item(symbol).evalf(), dtype=complex if symbol == "s" else float)


def test_double_pendulum_of_point_masses_has_its_normal_modes():
    """Equal point masses and lengths: ω² = (2 ∓ √2) g/l, so s = ±i ω (to the page's six digits)."""
    model = preset("double_pendulum_points")
    eq = derive(model, "linearized")
    numeric = linearize(model, about="equilibrium", method="lagrange")
    np.testing.assert_allclose(matrix(eq, "M"), numeric.M, rtol=1e-6)
    np.testing.assert_allclose(matrix(eq, "K"), numeric.K, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(matrix(eq, "C"), 0.0, atol=1e-12)
    g = float(np.linalg.norm(model.gravity))
    length = float(np.linalg.norm(model.bodies[0].com))
    omegas = np.sqrt(np.array([2 - np.sqrt(2), 2 + np.sqrt(2)]) * g / length)
    s = matrix(eq, "s").ravel()
    np.testing.assert_allclose(np.sort(np.abs(s.imag)), np.sort(np.concatenate((omegas, omegas))), rtol=1e-5)
    np.testing.assert_allclose(s.real, 0.0, atol=1e-12)


def test_the_sleeping_top_has_gyroscopic_terms_and_names_its_cyclic_coordinate():
    eq = derive(preset("sleeping_top"), "linearized")
    C = matrix(eq, "C")
    np.testing.assert_allclose(C, -C.T, atol=1e-12)  # gyroscopic: skew
    assert np.abs(C).max() > 0
    words = " ".join(item.value for section in eq.sections for item in section.items if isinstance(item.value, str))
    assert "Cyclic coordinates" in words


def test_a_constrained_model_is_refused_in_one_line():
    with pytest.raises(ModelError, match="trees without constraints") as refusal:
        derive(preset("four_bar"), "linearized")
    assert "\n" not in str(refusal.value)
