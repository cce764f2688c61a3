"""Modelling without traps (issue 25, item 4): a rod's length carries what sits where the rod puts
it, in one undo step; new bodies hang straight down at angle 0, the inspector says what an angle
is measured from and the scene draws that direction; a bare number fills a one-element vector;
File ▸ New is an empty model with no warning and every readout reset."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel

from eomlab.engine.model import Model
from eomlab.engine.presets import preset
from eomlab.engine.simulation import initial_frame
from eomlab.gui.editing import edits
from eomlab.gui.editing.dialogs import RigidBodyDialog, chain_model

from gui_helpers import wait_for_samples


def test_a_rod_length_edit_moves_its_mass_centre_and_childs_joint_in_one_undo_step(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    before = window.model
    window.tree.select(("body", "upper"))
    steps = window.document.undo_stack.count()
    assert window.inspector.set_value(("shape", "length"), "1.2")
    upper, lower = window.model.bodies
    assert upper.com == (0.6, 0.0, 0.0) and lower.joint.at == (1.2, 0.0, 0.0) and upper.inertia_from_shape
    assert window.document.undo_stack.count() == steps + 1
    assert window.inspector.editor("com").text() == "[0.6, 0, 0]"
    window.edits.act_undo.trigger()
    assert window.model == before


def _note(window) -> QLabel:
    """The inspector's words on what the selected joint's angle is measured from."""
    inspector = window.inspector
    notes = [label for label in inspector.form_host.findChildren(QLabel, "note:joint.angle_zero")
             if inspector.grid.indexOf(label) >= 0]  # not one of an earlier layout, deleted later
    assert len(notes) == 1
    return notes[0]


def _drawn(qtbot, window) -> None:
    def shown():
        window.redraw.tick()
        return window.scene2d.frame is not None
    qtbot.waitUntil(shown, timeout=20000)


def test_new_bodies_hang_straight_down_and_the_inspector_says_from_what(qtbot, make_window):
    window = make_window(Model())
    window.edits.add_child_body()
    window.edits.add_child_body("link")
    frame = initial_frame(window.model)
    assert np.allclose(frame.rotations[:, :, 0], [[0, -1, 0], [0, -1, 0]], atol=1e-15)
    assert window.document.undo_stack.count() == 2
    window.tree.select(("body", "link"))
    note = _note(window)
    qtbot.waitUntil(lambda: note.isVisibleTo(window.inspector), timeout=5000)  # Qt shows a new row queued
    assert "from the joint frame's x axis" in note.text() and "straight down" in note.text()
    window.tree.select(("body", "link2"))
    assert "from link's x axis" in _note(window).text()


def test_the_scene_draws_a_selected_joints_zero_direction(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))  # upper at 2 rad from +x, as its file says
    scene = window.scene2d
    _drawn(qtbot, window)
    window.tree.select(("body", "upper"))
    assert scene.zero_line.isVisible()
    x, y = scene.zero_line.getData()
    assert np.allclose([x[0], y[0], x[1], y[1]], [0, 0, 1, 0], atol=1e-12)  # from the hinge along +x, a rod long
    window.tree.select(("body", "lower"))  # measured from upper's direction, at upper's end
    x, y = scene.zero_line.getData()
    upper_dir = np.array([np.cos(2.0), np.sin(2.0)])
    assert np.allclose([x[0], y[0]], upper_dir, atol=1e-9) and np.allclose([x[1], y[1]], 1.5 * upper_dir, atol=1e-9)
    window.tree.select(("settings",))
    assert not scene.zero_line.isVisible()


def test_the_chain_dialog_hangs_at_angle_0(qtbot):
    for spatial, down in ((False, [0, -1, 0]), (True, [0, 0, -1])):
        frame = initial_frame(chain_model(3, spatial, "rod", 1.0, 1.0, 0.0))
        assert np.allclose(frame.rotations[:, :, 0], [down] * 3, atol=1e-12)
    planar = chain_model(2, False, "rod", 1.0, 1.0, 0.8)
    assert planar.bodies[0].joint.q0 == (0.8,)  # the angle typed is the angle from hanging


def test_the_rigid_body_dialogs_pendulum_hangs_at_angle_0_and_a_tilted_axis_is_left_alone(qtbot):
    dialog = RigidBodyDialog(Model(), "ground")
    qtbot.addWidget(dialog)
    dialog._accept()  # its defaults: a 1 m rod on a revolute joint about z
    assert np.allclose(initial_frame(dialog.model).rotations[0][:, 0], [0, -1, 0], atol=1e-15)
    dialog = RigidBodyDialog(Model(), "ground")
    qtbot.addWidget(dialog)
    dialog.axis.setText("1, 0, 0")  # a typed axis keeps its meaning: no turned frame
    assert "rotation" not in dialog.body_dict()["joint"]


def test_a_bare_number_fills_a_one_element_vector(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    window.tree.select(("body", "upper"))
    assert window.inspector.set_value(("joint", "q0"), "-0.6")
    assert window.model.body("upper").joint.q0 == (-0.6,)
    assert window.inspector.set_value(("joint", "u0"), "1.5")
    assert window.model.body("upper").joint.u0 == (1.5,)
    assert window.inspector.set_value(("joint", "q0"), "[0.25]")  # the bracketed form still works
    assert window.model.body("upper").joint.q0 == (0.25,)
    window.edits.edit(lambda m: edits.add_item(m, "forces", {"name": "push", "type": "joint_effort", "body": "upper",
                                                             "value": ["1"]}), "effort")
    window.tree.select(("force", 0))
    assert window.inspector.set_value(("value",), "0")  # one expression for a one-coordinate joint
    assert window.model.forces[0].value == ("0",)


def test_file_new_is_an_empty_model_without_warning_and_every_readout_reset(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"), run=True)
    wait_for_samples(qtbot, window, 30)
    window.redraw.tick()
    window.findChild(QAction, "action_new_empty").trigger()
    qtbot.wait(300)  # a failed run would report by now
    window.redraw.tick()
    assert window.model.bodies == () and window.runs == [] and window.session.state == "idle"
    assert not window.message_boxes and not window.last_error
    assert window.run_actions.time_label.text().split() == ["t", "=", "0.000", "s", "/", "10", "s"]
    assert not window.plots.energy_bars.bars.opts["height"].any() and window.plots.buffer_label.text() == ""
    scene = window.scene2d
    assert not scene.rods.isVisible() and len(scene.hinges.x) == 0 and len(scene.mass_centres.x) == 0
    assert scene.time_label.text() == "" and "starts afresh" not in window.statusBar().currentMessage()
    window.edits.add_child_body()  # and it runs from there
    assert len(window.model.bodies) == 1
