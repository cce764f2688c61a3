"""The 2-D scene draws every body: the double pendulum in absolute coordinates (each body on its
own coordinates, joined by constraints) is drawn as in joint coordinates, lower body included."""
from __future__ import annotations

import numpy as np

from eomlab.engine.presets import preset
from eomlab.engine.simulation import initial_frame
from eomlab.gui.scene2d import Scene2D


def drawn(qtbot, model) -> dict:
    scene = Scene2D()
    qtbot.addWidget(scene)
    scene.set_model(model)
    scene.show_frame(initial_frame(model))
    centres = np.column_stack(scene.mass_centres.getData())
    return {"centres": centres, "rods": np.column_stack(scene.rods.getData()),
            "links": np.column_stack(scene.links.getData()), "box": scene.picture_box}


def test_double_pendulum_in_absolute_coordinates_draws_the_lower_body(qtbot):
    joint = drawn(qtbot, preset("double_compound_pendulum"))
    absolute = drawn(qtbot, preset("double_pendulum_absolute"))
    assert len(absolute["centres"]) == 2  # the upper rod's centre and the lower point mass
    np.testing.assert_allclose(absolute["centres"], joint["centres"], atol=1e-9)
    for key in ("rods", "links"):
        a, j = absolute[key], joint[key]
        np.testing.assert_allclose(a[np.isfinite(a)], j[np.isfinite(j)], atol=1e-9, err_msg=key)
    np.testing.assert_allclose(absolute["box"], joint["box"], atol=1e-9)
