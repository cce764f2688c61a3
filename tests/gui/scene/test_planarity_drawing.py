"""The window draws in the plane exactly the models the engine runs in the plane (engine.model.is_planar):
a pendulum whose joint frame flips z is run in 3-D, so it is not drawn as a flat x–y picture."""
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.gui.scene.scene2d import Scene2D

XY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def flipped_pendulum():
    """A compound pendulum on a joint frame turned half round x (tests/engine/test_planarity.py)."""
    model = preset("planar_chain", n=1, kind="rod", angles=0.5)
    body = model.bodies[0]
    flip = ((1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, -1.0))
    return replace(model, bodies=(replace(body, joint=replace(body.joint, rotation=flip)),))


@pytest.mark.parametrize("model, flat", [(preset("double_compound_pendulum"), True), (flipped_pendulum(), False)])
def test_scene_draws_flat_only_what_the_engine_runs_flat(qtbot, model, flat):
    scene = Scene2D()
    qtbot.addWidget(scene)
    scene.set_model(model)
    assert np.array_equal(scene.project.matrix, XY) == flat


def test_window_scene_for_the_flipped_pendulum_is_not_the_flat_one(make_window):
    window = make_window(flipped_pendulum())
    flat = window.scene is window.scene2d and np.array_equal(window.scene.project.matrix, XY)
    assert not flat
