"""gui.scene.view_region: the region the 2-D view fits a tree to — the energy ceiling cuts the
discs, and without one (no gravity in the plane) the discs stay whole."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eomlab.engine.modelfile import load_model
from eomlab.gui.scene.geometry import Projection
from eomlab.gui.scene.view_region import swept_region

from project_paths import ROOT

MODELS = ROOT / "assets" / "models"
UP = np.array([0.0, 1.0])


def test_the_cradle_is_fitted_to_its_swing():
    """Ball 1 (1 m, let go at 0.6 rad) swings to ±sin(arccos(cos 0.6)) = ±sin 0.6 about its hinge at x = 0; ball 5
    the same about x = 0.8; the balls' radius (0.1 m) around that; the hinges at y = 0 on top. To 1e-12."""
    model = load_model(MODELS / "newtons_cradle.eom.json")
    radius = model.bodies[0].shape.radius
    x0, y0, x1, y1 = swept_region(model, Projection(True, model.gravity), UP)
    assert x0 == pytest.approx(-math.sin(0.6) - radius, abs=1e-12)
    assert x1 == pytest.approx(0.8 + math.sin(0.6) + radius, abs=1e-12)
    assert y0 == pytest.approx(-1.0 - radius, abs=1e-12)
    assert y1 == pytest.approx(0.0, abs=1e-12)


def test_without_gravity_in_the_plane_the_discs_stay_whole():
    model = load_model(MODELS / "newtons_cradle.eom.json")
    radius = model.bodies[0].shape.radius
    x0, y0, x1, y1 = swept_region(model, Projection(True, model.gravity), None)
    assert (x0, y1) == (pytest.approx(-1.0 - radius), pytest.approx(1.0 + radius))


def test_a_pendulum_with_energy_to_go_over_the_top_keeps_its_whole_disc():
    """The double compound pendulum (its lower body, shapeless, has its mass centre 1.5 m down the chain)
    has the energy to pass above its hinge: the square ±1.5 m, to 1e-12."""
    model = load_model(MODELS / "double_compound_pendulum.eom.json")
    x0, y0, x1, y1 = swept_region(model, Projection(True, model.gravity), UP)
    assert (x0, y0, x1, y1) == tuple(pytest.approx(v, abs=1e-12) for v in (-1.5, -1.5, 1.5, 1.5))
