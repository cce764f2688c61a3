"""Direct manipulation in the window (gui/scene/drag.py, gui/timeline.py, gui/editing/parameter_panel.py,
gui/plots/readouts.py), driven with QTest's mouse as a student would.

Tolerances: a dragged bob within 1° of the mouse's angle (the mouse moves in whole pixels); the
measured period of a 0.05 rad swing within 0.5 % of 2π√(l/g).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from eomlab.engine.presets import preset
from eomlab.gui.runs.run_messages import DragTo
from gui_helpers import main_samples, run_fast, wait_for_samples


def _pixel(window, world):
    return window.drags[0].view.pixel(np.asarray(world, float))[0]


def _drag(qtbot, window, start, end, steps: int = 4, pause_ms: int = 40):
    viewport = window.scene2d.viewport()
    QTest.mousePress(viewport, Qt.LeftButton, Qt.NoModifier, QPoint(int(start[0]), int(start[1])))
    for k in range(1, steps + 1):
        p = start + (end - start) * k / steps
        QTest.mouseMove(viewport, QPoint(int(round(p[0])), int(round(p[1]))))
        qtbot.wait(pause_ms)
    QTest.mouseRelease(viewport, Qt.LeftButton, Qt.NoModifier, QPoint(int(round(end[0])), int(round(end[1]))))


def _line_points(window) -> int:
    x = window.drags[0].line.getData()[0]
    return 0 if x is None else len(x)


def _bob_pixel(window):
    window.redraw.redraw_all()
    return _pixel(window, window.scene2d.frame.mass_centres[0])


def test_dragging_the_bob_while_paused_poses_it_at_the_mouse_angle_and_the_run_goes_on(qtbot, make_window):
    window = make_window(preset("simple_pendulum"))
    wait_for_samples(qtbot, window, 1)
    target = np.array([0.6, -0.8, 0.0])  # 36.9° from the downward vertical
    _drag(qtbot, window, _bob_pixel(window), _pixel(window, target))
    qtbot.waitUntil(lambda: window.document.undo_stack.count() == 1, timeout=5000)
    qtbot.waitUntil(lambda: abs(main_samples(window)[-1, 1] - math.atan2(0.6, 0.8)) < math.radians(1), timeout=5000)
    posed = main_samples(window)[-1].copy()
    assert posed[2] == 0.0  # at rest
    run_fast(window)
    qtbot.waitUntil(lambda: main_samples(window)[-1, 0] > posed[0] + 0.3, timeout=10000)
    rows = main_samples(window)
    later = rows[rows[:, 0] > posed[0]]
    assert later[0, 0] == pytest.approx(posed[0] + 0.01) and later[0, 1] < posed[1]  # falls from the pose
    window.pause()
    window.document.undo_stack.undo()  # back to the pose before the drag (2.5 rad), at the latest time
    qtbot.waitUntil(lambda: main_samples(window)[-1, 1] == pytest.approx(2.5), timeout=5000)


def test_dragging_while_running_pulls_the_bob_and_adds_energy(qtbot, make_window):
    window = make_window(preset("simple_pendulum", theta0=0.2).with_settings(t_end=1e5))
    window.run()  # real time: the mouse has time to pull
    rows = wait_for_samples(qtbot, window, 5)
    E = window.samples()[0].index("E")
    E_before = rows[-1, E]
    start, end = _bob_pixel(window), _pixel(window, [1.0, -0.3, 0.0])
    viewport = window.scene2d.viewport()
    QTest.mousePress(viewport, Qt.LeftButton, Qt.NoModifier, QPoint(*map(int, start)))
    QTest.mouseMove(viewport, QPoint(*map(int, end)))
    qtbot.waitUntil(lambda: _line_points(window) == 2, timeout=3000)
    qtbot.wait(700)
    QTest.mouseRelease(viewport, Qt.LeftButton, Qt.NoModifier, QPoint(*map(int, end)))
    qtbot.wait(300)
    assert main_samples(window)[-1, E] > E_before + 0.5
    assert _line_points(window) == 0  # released: no spring drawn
    assert np.all(np.isfinite(main_samples(window)))


@pytest.mark.parametrize("name", ["double_compound_pendulum", "double_pendulum_absolute"])
@pytest.mark.usefixtures("runs_end_at_t_end")
def test_scrubbing_the_timeline_draws_the_mechanism_at_that_sample(qtbot, make_window, name):
    window = make_window(preset(name).with_settings(t_end=2.0))
    run_fast(window)
    qtbot.waitUntil(lambda: window.state == "ended", timeout=20000)
    rows = main_samples(window)
    window.timeline.slider.setValue(50)
    assert window.session.cursor_time() == pytest.approx(rows[50, 0])
    window.redraw.redraw_all()
    frame = window.scene2d.frame
    run = window.runs[0]
    expected = run.pose_of_row(rows[50])
    assert frame.t == pytest.approx(rows[50, 0]) and np.allclose(frame.mass_centres, expected.mass_centres)
    last = run.series.info.body_names[-1]
    com = [window.samples()[0].index(f"{last}.{a}") for a in "xy"]
    assert np.allclose(frame.mass_centres[-1, :2], rows[50, com], atol=1e-9)
    assert window.plot_marks.cursor_lines["motion"].isVisible()
    QTest.keyClick(window.scene2d, Qt.Key_Right)
    assert window.session.cursor_time() == pytest.approx(rows[51, 0])
    window.timeline.continue_here()  # later samples dropped, and the run goes on
    qtbot.waitUntil(lambda: window.state == "ended", timeout=20000)
    again = main_samples(window)
    assert np.all(np.diff(again[:, 0]) > 0) and again[-1, 0] == pytest.approx(2.0)
    assert np.allclose(again[51, 1:5], rows[51, 1:5])


def test_a_slider_change_during_a_run_goes_on_in_time_and_is_one_undo_step(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5))
    window.run()
    wait_for_samples(qtbot, window, 20)
    panel = window.parameter_panel
    _, slider, _ = panel.rows["gravity"]
    stack = window.document.undo_stack
    count = stack.count()
    t_before = main_samples(window)[-1, 0]
    slider.setSliderDown(True)
    for value in range(slider.value(), slider.value() - 200, -20):  # one drag, many values
        slider.setValue(value)
        qtbot.wait(20)
    slider.setSliderDown(False)
    assert stack.count() == count + 1
    qtbot.waitUntil(lambda: len(window.plot_marks.changes) == 1, timeout=5000)
    qtbot.wait(300)
    rows = main_samples(window)
    assert rows[-1, 0] > t_before and np.all(np.diff(rows[:, 0]) > 0)  # no reset to t = 0
    assert rows[0, 0] == 0.0
    g = np.linalg.norm(window.runs[0].model.gravity)
    assert g < 9.81 and g == pytest.approx(float(panel.rows["gravity"][2].text()), rel=1e-3)
    assert np.linalg.norm(window.model.gravity) == pytest.approx(g)  # what Save writes, Reset starts with
    stack.undo()
    assert np.linalg.norm(window.runs[0].model.gravity) == pytest.approx(9.81)
    assert np.linalg.norm(window.model.gravity) == pytest.approx(9.81) and main_samples(window)[-1, 0] > t_before


@pytest.mark.usefixtures("runs_end_at_t_end")
def test_the_period_read_out_of_a_small_swing_is_the_small_angle_period(qtbot, make_window):
    window = make_window(preset("simple_pendulum", length=1.0, theta0=0.05).with_settings(t_end=12.0))
    run_fast(window)
    qtbot.waitUntil(lambda: window.state == "ended", timeout=20000)
    readout = window.oscillation_readout
    readout.measure()
    expected = 2 * math.pi * math.sqrt(1.0 / 9.81)
    assert readout.period.period == pytest.approx(expected, rel=5e-3)
    assert f"{expected:.4f}" in readout.estimate.text()


def test_an_unreachable_drag_is_refused_with_a_message(qtbot, make_window):
    window = make_window(preset("simple_pendulum"))
    wait_for_samples(qtbot, window, 1)
    window.session.edit(DragTo("bob", [1.0, 0.0, 0.0], [float("nan"), 0.0, 0.0]))
    qtbot.waitUntil(lambda: "Refused" in window.statusBar().currentMessage(), timeout=5000)
    assert np.all(np.isfinite(main_samples(window)))


def test_the_constant_of_an_effort_expression_has_a_slider(qtbot, make_window):
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    data = model_to_dict(preset("simple_pendulum"))
    data["forces"] = [{"name": "friction", "type": "joint_effort", "body": "bob", "value": ["-0.3*bob_theta_dot"]}]
    window = make_window(model_from_dict(data))
    wait_for_samples(qtbot, window, 1)
    panel = window.parameter_panel
    p, _slider, field = panel.rows["forces[0].value[0].constants[0]"]
    assert float(field.text()) == pytest.approx(0.3)
    field.setText("0.9")
    field.editingFinished.emit()
    qtbot.waitUntil(lambda: bool(window.plot_marks.changes), timeout=5000)
    assert window.runs[0].model.forces[0].value[0] == "-0.9*bob_theta_dot"
    window.document.undo_stack.undo()
    assert window.runs[0].model.forces[0].value[0] == "-0.3*bob_theta_dot"


@pytest.mark.usefixtures("runs_end_at_t_end")
def test_a_finished_run_posed_by_the_mouse_reports_its_end_again(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(t_end=0.3))
    run_fast(window)
    qtbot.waitUntil(lambda: window.state == "ended", timeout=20000)
    states = []
    window.session.state_changed.connect(states.append)
    window.session.edit(DragTo("bob", [1.0, 0.0, 0.0], [1.0, -1.0, 0.0]))
    qtbot.waitUntil(lambda: abs(main_samples(window)[-1, 1] - math.pi / 4) < 1e-9, timeout=5000)
    qtbot.waitUntil(lambda: states == ["paused", "ended"], timeout=5000)  # posed at t_end: ended again
    assert main_samples(window)[-1, 0] == pytest.approx(0.3)


def test_a_typed_mass_shows_in_the_tree_without_a_restart(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5))
    window.run()
    wait_for_samples(qtbot, window, 10)
    _, _, field = window.parameter_panel.rows["bodies[0].mass"]
    thread = window.runs[0].thread
    field.setText("2.5")
    field.editingFinished.emit()
    qtbot.waitUntil(lambda: "2.5 kg" in window.tree.items[("body", "bob")].text(1), timeout=3000)
    assert window.model.bodies[0].mass == 2.5
    assert window.runs[0].thread is thread  # the same run went on (an edit of the model would restart it)
    field.setText("-1")
    field.editingFinished.emit()  # refused in the status bar; nothing changes
    assert "Refused" in window.statusBar().currentMessage() and window.model.bodies[0].mass == 2.5
    assert field.text() == "2.5"


@pytest.mark.parametrize("text", ["Infinity", "-Infinity", "inf", "NaN"])
def test_a_non_finite_parameter_is_refused_without_a_warning(qtbot, make_window, recwarn, text):
    """Issue 31: `Infinity` typed for |g| (a vector with zero components) printed numpy's
    RuntimeWarning (0·inf) before being refused."""
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5))
    window.run()
    wait_for_samples(qtbot, window, 10)
    before = window.model
    _, _, field = window.parameter_panel.rows["gravity"]
    shown = field.text()
    field.setText(text)
    field.editingFinished.emit()
    assert "Refused" in window.statusBar().currentMessage() and "finite" in window.statusBar().currentMessage()
    assert window.model == before and field.text() == shown
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_undoing_every_parameter_change_gives_the_original_model_exactly(qtbot, make_window):
    """Issue 31's monkey: the panel's undo recomputed the old value (a vector scaled back to its
    length, a rod's followers moved back) and the model after undoing everything differed from
    the original in its last bits; |g| = 1e-308 made the way back overflow."""
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=1e5))
    window.run()
    wait_for_samples(qtbot, window, 10)
    original = window.model
    panel = window.parameter_panel
    paths = [path for path in panel.rows if path == "gravity" or path.endswith("shape.length")]
    assert "gravity" in paths and len(paths) >= 2
    for path in paths:
        for text in ("3.3", "1e-308", "7.77", "0.1"):
            _, _, field = panel.rows[path]
            field.setText(text)
            field.editingFinished.emit()
    stack = window.document.undo_stack
    while stack.canUndo():
        stack.undo()
    assert window.model == original
