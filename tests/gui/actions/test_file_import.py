"""File ▸ Import: a URDF or MJCF file into the window through engine.robot_formats, its warnings
shown, a hostile or broken file refused in one line with the current model kept."""
from __future__ import annotations

import numpy as np
from gui_helpers import main_samples, run_fast, wait_for_samples

from eomlab.engine.presets import preset
from eomlab.gui.actions.robot_import import import_robot

LINK = ('<link name="{name}"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/>'
        '<inertia ixx="0.09" iyy="0.09" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<visual><geometry><box size="0.05 0.05 1"/></geometry></visual></link>')
#: the lower link's principal moments break A + B ≥ C (0.01, 0.01, 0.05): imported balanced as MuJoCo's balanceinertia does
LOPSIDED = LINK.format(name="lower").replace('ixx="0.09" iyy="0.09" izz="0.01"', 'ixx="0.01" iyy="0.01" izz="0.05"')
DOUBLE_PENDULUM = (  # two links swinging about y; a transmission and joint friction eomlab cannot map
    '<robot name="double"><link name="world"/>' + LINK.format(name="upper") + LOPSIDED
    + '<joint name="shoulder" type="continuous"><parent link="world"/><child link="upper"/><axis xyz="0 1 0"/>'
    '<origin xyz="0 0 2" rpy="0 0.5 0"/></joint>'
    '<joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/><axis xyz="0 1 0"/>'
    '<origin xyz="0 0 -1"/><limit lower="-2" upper="2" effort="1" velocity="1"/>'
    '<dynamics damping="0" friction="0.1"/></joint>'
    '<transmission name="drive"/></robot>')
EXTERNAL_ENTITY = ('<?xml version="1.0"?><!DOCTYPE mujoco [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
                   '<mujoco model="&secret;"><worldbody/></mujoco>')


def test_import_menu_entry_sits_under_file(make_window):
    window = make_window(preset("simple_pendulum"))
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert window.files.act_import in file_menu.actions()


def test_imported_urdf_double_pendulum_shows_its_bodies_its_warnings_and_runs(qtbot, make_window, tmp_path):
    path = tmp_path / "double.urdf"
    path.write_text(DOUBLE_PENDULUM, encoding="utf-8")
    window = make_window(preset("simple_pendulum"))
    warnings = import_robot(window, str(path))
    # one per unmapped kind: <transmission>, <dynamics friction> (damping is imported), and the balanced inertia
    assert warnings is not None and len(warnings) == 3
    shown = window.message_boxes[-1].text()
    assert all(w in shown for w in warnings) and "<transmission>" in shown and "<dynamics friction>" in shown
    assert 'balanceinertia' in shown and 'link "lower" 0.01, 0.01, 0.05 → 0.02333' in shown
    lower = window.model.bodies[1]
    assert np.abs(np.array(lower.inertia) - 0.07 / 3 * np.eye(3)).max() < 1e-15  # each moment the mean
    assert [b.name for b in window.model.bodies] == ["upper", "lower"]
    assert window.model.coordinate_names == ("shoulder", "elbow")
    assert {("body", "upper"), ("body", "lower")} <= set(window.tree.items)
    assert "Imported" in window.statusBar().currentMessage() and not window.last_error
    run_fast(window)
    wait_for_samples(qtbot, window, 30)
    columns, rows = window.samples()
    elbow = rows[:, columns.index("elbow")]
    assert np.all(np.isfinite(rows)) and np.ptp(elbow) > 1e-3  # it swings
    assert not window.last_error


def test_a_hostile_file_is_refused_in_one_line_and_the_model_stays(qtbot, make_window, tmp_path):
    path = tmp_path / "external_entity.xml"
    path.write_text(EXTERNAL_ENTITY, encoding="utf-8")
    window = make_window(preset("double_compound_pendulum"))
    qtbot.waitUntil(lambda: len(main_samples(window)) == 1, timeout=10000)  # the t = 0 sample
    before = window.model
    assert import_robot(window, str(path)) is None
    assert window.model is before
    message = window.last_error
    assert "\n" not in message and "ENTITY" in message and str(path) in message
    assert window.statusBar().currentMessage() == message
    assert len(main_samples(window)) == 1  # the current run is still there

