"""The 2-D scene draws every body: the double pendulum in absolute coordinates (each body on its
own coordinates, joined by constraints) is drawn as in joint coordinates, lower body included; a
slide's ground marker stays where the model fixes the slide."""
from __future__ import annotations

import numpy as np

from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation, initial_frame
from eomlab.gui.scene.scene2d import Scene2D


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


def test_a_slide_on_the_ground_keeps_its_ground_marker_at_the_slides_anchor(qtbot):
    # the acceleration-constraint particle: a massless slider on a prismatic joint at the origin
    # along x; the marker was drawn on the slider, 26 m away after 3 s
    model = preset("acceleration_constraint_particle")
    anchor = np.asarray(model.bodies[0].joint.at, dtype=float)[:2]
    sim = Simulation(model)
    sim.advance(1.0)
    row = sim.samples()[-1]
    frame = sim.frame(row[sim.state_columns[0]], float(row[0]))
    slider = frame.origins[0][:2]
    assert np.linalg.norm(slider - anchor) > 0.5  # it has slid away from its anchor
    scene = Scene2D()
    qtbot.addWidget(scene)
    scene.set_model(model)
    scene.show_frame(frame)
    markers = np.column_stack(scene.ground_hinges.getData())
    np.testing.assert_allclose(markers, [anchor], atol=1e-12)
    # the rail: a thin line from the anchor to the slider
    links = np.column_stack(scene.links.getData())
    segments = [links[i:i + 2] for i in range(0, len(links) - 1) if np.all(np.isfinite(links[i:i + 2]))]
    assert any(np.allclose(seg, [anchor, slider], atol=1e-9) for seg in segments), links
