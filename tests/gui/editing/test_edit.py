"""Editing through the inspector, tree and dialogs: undoable, validated, saved and reopened."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QAction

from eomlab.engine.model import GROUND
from eomlab.engine.presets import preset
from eomlab.gui.editing.dialogs import ItemDialog, RigidBodyDialog


def test_mass_edit_undo_redo_then_save_and_reopen(qtbot, make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum"))
    window.tree.select(("body", "upper"))
    assert window.inspector.key == ("body", "upper")
    assert window.inspector.set_value(("mass",), "2.5")
    assert window.model.body("upper").mass == 2.5
    assert window.document.dirty and window.windowTitle().startswith("double")
    window.edits.act_undo.trigger()
    assert window.model.body("upper").mass == 1.0
    assert window.inspector.editor("mass").text() == "1"
    window.edits.act_redo.trigger()
    assert window.model.body("upper").mass == 2.5

    path = str(tmp_path / "edited.eom.json")
    assert window.files.save_as(path)
    assert not window.document.dirty
    edited = window.model
    window.edits.load_model(preset("simple_pendulum"), None, "another")
    assert window.files.open_file(path)
    assert window.model == edited
    assert window.files.recent_files()[0] == path


def test_invalid_value_is_refused_with_the_engine_message(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    before = window.model
    window.tree.select(("body", "lower"))
    assert not window.inspector.set_value(("mass",), "-1")
    assert window.model == before
    assert "bodies[1].mass" in window.inspector.last_error
    assert window.inspector.error_label.text() == window.inspector.last_error
    assert window.inspector.editor("mass").text() == "1"  # back to the model's value
    assert not window.inspector.set_value(("com",), "1, 2")
    assert "bodies[1].com" in window.inspector.last_error
    assert window.document.undo_stack.count() == 0


def test_settings_and_shape_edits(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    window.tree.select(("settings",))
    assert window.inspector.set_value(("t_end",), "3")
    assert window.model.settings.t_end == 3.0
    assert window.inspector.set_value(("stabilization", "kind"), "projection")
    assert window.model.settings.stabilization.kind == "projection"
    window.tree.select(("body", "lower"))
    assert window.inspector.set_value(("shape", "kind"), "disk")
    assert window.model.body("lower").shape.kind == "disk"
    assert ("shape", "radius") in window.inspector.editors
    assert window.inspector.set_value(("name",), "forearm")
    assert window.tree.current_key() == ("body", "forearm")
    assert window.document.undo_stack.count() == 4


def test_add_child_delete_and_reparent(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    window.tree.select(("body", "lower"))
    window.edits.add_child_body()
    assert len(window.model.bodies) == 3
    child = window.model.bodies[2]
    assert child.parent == "lower"
    assert window.tree.current_key() == ("body", child.name)

    window.tree.request_reparent(child.name, GROUND)  # what a drop on "Bodies" asks for
    assert window.model.body(child.name).parent == GROUND
    window.tree.request_reparent("upper", "lower")  # a cycle: refused, model kept
    assert window.model.body("upper").parent == GROUND
    assert "carry itself" in window.last_error

    window.tree.select(("body", "upper"))
    window.edits.delete_selected()
    assert [b.name for b in window.model.bodies] == [child.name]
    for _ in range(3):
        window.edits.act_undo.trigger()
    assert [b.name for b in window.model.bodies] == ["upper", "lower"]


def test_rigid_body_constraint_and_force_dialogs(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    dialog = RigidBodyDialog(window.model, "upper")
    qtbot.addWidget(dialog)
    dialog.shape.setCurrentText("disk")
    dialog.dimension.setText("0.3")
    dialog.inertia.setText("0.02, 0.02, 0.04")
    dialog.u0.setText("1.5")
    dialog._accept()
    assert dialog.model is not None, dialog.error.text()
    body = dialog.model.bodies[-1]
    assert body.joint.u0 == (1.5,) and body.inertia[2][2] == 0.04

    dialog.mass.setText("-3")
    dialog._accept()
    assert "mass" in dialog.error.text()

    spring = ItemDialog(window.model, "forces")
    qtbot.addWidget(spring)
    spring.kind.setCurrentText("joint_spring")
    spring._accept()
    assert spring.model is not None, spring.error.text()
    assert spring.model.forces[0].type == "joint_spring"
    window.edit(lambda _m: spring.model, "Add force")
    window.tree.select(("force", 0))
    assert window.inspector.set_value(("stiffness",), "12")
    assert window.model.forces[0].stiffness == 12.0

    constraint = ItemDialog(window.model, "constraints")
    qtbot.addWidget(constraint)
    constraint.kind.setCurrentText("prescribed")
    constraint._accept()
    assert constraint.model is not None, constraint.error.text()


def test_orientation_edit_switches_to_euler_parameters_and_runs(qtbot, make_window):
    """The inspector's orientation choice: angles → quaternion gives four Euler parameters at the
    identity (q0 and names rebuilt), hides the Euler sequence, undoes, and the edited model runs
    with its drift (the normalisation) below 1e-8."""
    from gui_helpers import run_fast, wait_for_samples

    window = make_window(preset("heavy_top"))
    window.tree.select(("body", "top"))
    assert ("joint", "sequence") in window.inspector.editors
    assert window.inspector.set_value(("joint", "orientation"), "quaternion")
    joint = window.model.body("top").joint
    assert joint.quaternion and joint.q0 == (1.0, 0.0, 0.0, 0.0) and joint.names == ("top_e0", "top_e1", "top_e2", "top_e3")
    assert ("joint", "sequence") not in window.inspector.editors
    assert window.inspector.set_value(("joint", "q0"), "[0.99, 0.14, 0, 0]")
    run_fast(window)
    rows = wait_for_samples(qtbot, window, 30)
    columns = window.samples()[0]
    assert "top_e3" in columns and max(rows[:, columns.index("drift_pos")]) < 1e-8
    window.pause()
    window.edits.act_undo.trigger()
    window.edits.act_undo.trigger()
    assert not window.model.body("top").joint.quaternion


def test_mass_change_on_a_shape_derived_body_recomputes_its_inertia_and_undo_restores_both(qtbot, make_window):
    """A rod whose inertia comes from its shape: 1 kg, 1 m → I = m L²/12 follows the mass to
    5 kg and the length to 2 m; undo restores mass and inertia together. An inertia typed in is
    kept through a mass change, and the inspector says which it is."""
    window = make_window(preset("double_compound_pendulum"))
    window.tree.select(("body", "upper"))
    inspector = window.inspector
    unit = lambda: inspector.grid.itemAtPosition(  # noqa: E731 - the unit column of the inertia row
        [f.path for f in inspector.fields].index(("inertia",)), 2).widget().text()
    assert window.model.body("upper").inertia[2][2] == pytest.approx(1 / 12, rel=1e-15)
    assert "from shape" in unit()
    assert inspector.set_value(("mass",), "5")
    body = window.model.body("upper")
    assert body.mass == 5.0 and body.inertia[1][1] == body.inertia[2][2] == pytest.approx(5 / 12, rel=1e-15)
    assert body.inertia[0][0] == 0.0 and body.inertia_from_shape
    assert inspector.set_value(("shape", "length"), "2")
    assert window.model.body("upper").inertia[2][2] == pytest.approx(5 * 4 / 12, rel=1e-15)
    window.edits.act_undo.trigger()
    window.edits.act_undo.trigger()
    body = window.model.body("upper")
    assert body.mass == 1.0 and body.inertia[2][2] == pytest.approx(1 / 12, rel=1e-15)
    assert inspector.editor("inertia").text() == "[0, 0.0833333333333, 0.0833333333333]"
    window.edits.act_redo.trigger()
    assert window.model.body("upper").inertia[2][2] == pytest.approx(5 / 12, rel=1e-15)

    assert inspector.set_value(("inertia",), "0.01, 0.3, 0.3")  # by hand: kept through a mass change
    assert "set by hand" in unit()
    assert inspector.set_value(("mass",), "7")
    assert window.model.body("upper").inertia[2][2] == 0.3
    assert inspector.set_value(("inertia",), "")  # cleared: the shape's again
    assert window.model.body("upper").inertia[2][2] == pytest.approx(7 / 12, rel=1e-15)
    assert "from shape" in unit()


def test_a_point_mass_given_a_shape_takes_the_shapes_inertia(qtbot, make_window):
    window = make_window(preset("simple_pendulum"))
    window.tree.select(("body", "bob"))
    assert window.inspector.set_value(("shape", "kind"), "sphere")  # radius 0.25 by default
    assert window.model.body("bob").inertia[0][0] == pytest.approx(0.4 * 1.0 * 0.25 ** 2, rel=1e-15)
    # the contract example's lower link: a rod's inertia without a shape, i.e. given by hand: kept
    window.edits.load_model(preset("double_compound_pendulum"), None, "another")
    window.tree.select(("body", "lower"))
    assert window.inspector.set_value(("shape", "kind"), "sphere")
    assert window.model.body("lower").inertia[2][2] == pytest.approx(1 / 12, rel=1e-15)


@pytest.mark.parametrize("joint", ["revolute", "prismatic", "spherical", "planar", "free", "fixed"])
def test_rigid_body_dialog_defaults_run_for_every_joint(qtbot, make_window, joint):
    """Only choosing the joint: the body is added and the model starts (no gimbal lock, no
    singular mass matrix); fields the joint does not use are disabled."""
    from eomlab.gui.editing.dialogs import start_problem

    window = make_window(preset("heavy_top"))
    dialog = RigidBodyDialog(window.model, "top")
    qtbot.addWidget(dialog)
    dialog.joint.setCurrentText(joint)
    assert dialog.axis.isEnabled() == (joint in ("revolute", "prismatic"))
    assert dialog.orientation.isEnabled() == (joint in ("spherical", "free"))
    assert not dialog.sequence.isEnabled()  # Euler parameters by default
    assert dialog.q0.isEnabled() == (joint != "fixed")
    dialog._accept()
    assert dialog.model is not None, dialog.error.text()
    assert start_problem(dialog.model) == ""
    if joint in ("spherical", "free"):
        dialog.orientation.setCurrentIndex(dialog.orientation.findData("angles"))
        assert dialog.sequence.isEnabled()
        dialog._accept()
        assert start_problem(dialog.model) == "", dialog.error.text()
        dialog.sequence.setText("zxz")  # singular at zero angles: refused in the dialog, with the reason
        dialog.model = None
        dialog._accept()
        assert dialog.model is None and "gimbal lock" in dialog.error.text()


def test_point_shape_has_no_size_field(qtbot, make_window):
    window = make_window(preset("simple_pendulum"))
    dialog = RigidBodyDialog(window.model, "bob")
    qtbot.addWidget(dialog)
    dialog.shape.setCurrentText("point")
    assert not dialog.dimension.isEnabled()
    dialog.shape.setCurrentText("box")
    assert dialog.dimension.isEnabled() and dialog.dimension.text() == "0.5, 0.3, 0.2"


def test_file_new_gives_an_empty_model(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    action = window.findChild(QAction, "action_new_empty")
    assert action in window.menuBar().actions()[0].menu().actions()
    action.trigger()
    assert window.model.bodies == () and window.document.path is None
    assert not window.document.dirty and window.document.undo_stack.count() == 0
    window.edits.add_child_body()  # and it grows from there
    assert [b.name for b in window.model.bodies] == ["link"]
