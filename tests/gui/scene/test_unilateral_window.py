"""The window and unilateral constraints (issue 28): the inspector edits limits, restitution and
contacts like any other field; both views draw the contact spheres, the ground and the impact arrow."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.presets import preset
from eomlab.engine.simulation import initial_frame


def test_inspector_edits_limits_restitution_and_a_contact(qtbot, make_window):
    window = make_window(preset("double_pendulum_limits"))
    window.tree.select(("body", "lower"))
    assert window.inspector.set_value(("joint", "limits"), "[-0.5, 0.75]")
    assert window.model.body("lower").joint.limits == (-0.5, 0.75)
    assert window.inspector.set_value(("joint", "restitution"), "0.9")
    assert window.model.body("lower").joint.restitution == 0.9
    assert not window.inspector.set_value(("joint", "restitution"), "1.5")
    assert "bodies[1].joint.restitution" in window.inspector.last_error
    assert not window.inspector.set_value(("joint", "limits"), "[1, 0]")
    assert "bodies[1].joint.limits" in window.inspector.last_error
    assert window.inspector.set_value(("joint", "limits"), "")
    assert window.model.body("lower").joint.limits == ()

    window.edits.load_model(preset("newtons_cradle", n=3), None, "cradle")
    window.tree.select(("constraint", 1))
    assert window.inspector.key == ("constraint", 1)
    assert window.inspector.set_value(("restitution",), "0.5")
    assert window.model.contacts[1].restitution == 0.5
    assert window.inspector.set_value(("a", "radius"), "0.09")
    assert window.model.contacts[1].a.radius == 0.09
    assert not window.inspector.set_value(("b", "radius"), "0")
    assert "constraints[1].b.radius" in window.inspector.last_error


def test_2d_view_draws_the_ground_the_spheres_and_flashes_an_arrow_at_a_touch(qtbot, make_window):
    model = preset("bouncing_ball", height=0.0)  # resting on the ground from t = 0: touching
    window = make_window(model)
    layer = window.scene2d.contacts
    layer.set_model(model, window.scene2d.project)
    frame = initial_frame(model)
    layer.show(frame, window.scene2d.project)
    x, y = layer.ground.getData()
    assert np.allclose(y, 0.0) and x.min() < -10 and x.max() > 10
    xs, ys = layer.spheres.getData()
    finite = np.isfinite(xs)
    assert np.allclose(np.hypot(xs[finite], ys[finite] - 0.1), 0.1)
    ax, ay = layer.arrows.getData()
    assert len(ax) == 6 and ay[0] == 0.0 and ay[1] > 0.2  # from the contact point up the normal
    later = type(frame)(frame.t + 1.0, frame.rotations, frame.origins, frame.mass_centres)
    layer.show(later, window.scene2d.project)  # still touching a second later: resting, no flash
    assert len(layer.arrows.getData()[0]) == 0
    assert math.isclose(float(layer.geometry.normal @ [0, 1, 0]), 1.0)
