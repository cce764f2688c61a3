"""engine.model's facts about a body: the solid ellipsoid of a body's mass and inertia (what the 3-D view draws
for a body the model gives no shape, e.g. the benchmark bicycle's rear frame with its rider)."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.model import inertia_ellipsoid


def ellipsoid_inertia(mass: float, semi_axes, axes) -> np.ndarray:
    """A uniform solid ellipsoid's inertia about its centre: m/5 (b² + c², a² + c², a² + b²) in its own axes."""
    a2 = np.asarray(semi_axes) ** 2
    principal = mass / 5.0 * np.array([a2[1] + a2[2], a2[0] + a2[2], a2[0] + a2[1]])
    return axes @ np.diag(principal) @ axes.T


@pytest.mark.parametrize("mass, moments, turn", [(85.0, (9.2, 11.0, 2.8), 0.4), (2.0, (0.1, 0.1, 0.2), 0.0),
                                                 (1.0, (1.0, 1.0, 1.0), 1.1)])
def test_the_ellipsoid_has_the_bodys_inertia(mass, moments, turn):
    c, s = np.cos(turn), np.sin(turn)
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    inertia = R @ np.diag(moments) @ R.T
    semi_axes, axes = inertia_ellipsoid(mass, tuple(map(tuple, inertia)))
    np.testing.assert_allclose(ellipsoid_inertia(mass, semi_axes, axes), inertia, rtol=0, atol=1e-12 * max(moments))


def test_no_ellipsoid_without_mass_or_inertia():
    zero = ((0.0,) * 3,) * 3
    assert inertia_ellipsoid(0.0, ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0))) is None
    assert inertia_ellipsoid(1.0, zero) is None
    assert inertia_ellipsoid(1.0, ((np.inf, 0, 0), (0, 1.0, 0), (0, 0, 1.0))) is None


@pytest.mark.parametrize("mass, moment", [(5e-324, 1.0), (1e-300, 1e10), (1.0, 1e308)])
def test_an_ellipsoid_too_large_for_floats_is_none_and_warns_nothing(mass, moment):
    """Issue 31's monkey (four-bar, seed 13): a mass of 5e-324 typed in the inspector made 2.5/m
    infinite and inf · 0 warned (invalid value in multiply) while the 3-D view drew the body."""
    with np.errstate(all="raise"):
        assert inertia_ellipsoid(mass, ((moment, 0, 0), (0, moment, 0), (0, 0, moment))) is None
