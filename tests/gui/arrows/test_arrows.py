"""View ▸ Arrows (gui/arrows/arrows_view.py): each kind draws at the right points of the pose shown — checked
against the engine at the same sample — with no NaN, nothing for a kind that does not apply, a
legend of units away from the mechanism, and a length control."""
from __future__ import annotations

import project_paths
import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.model import ExpressionConstraint
from eomlab.engine.presets import double_compound_pendulum, driven_crank, four_bar, heavy_top, simple_pendulum
from eomlab.engine.run.run_edits import model_with_parameter
from eomlab.engine.simulation import Simulation
from eomlab.gui.arrows.arrow_sets import KINDS, Scales, nice_ceiling

from gui_helpers import x_display_command
from gui_helpers import run_fast, wait_for_samples


def paused_after(qtbot, window, samples: int):
    run_fast(window)
    wait_for_samples(qtbot, window, samples)
    window.pause()
    # (a free tree's run may reach its t_end of 10 s before the pause: the compiled step is that fast)
    qtbot.waitUntil(lambda: window.state in ("paused", "ended"), timeout=5000)
    window.redraw.redraw_all()


def shown_row(window):
    """The sample row of the pose the scene shows, and that pose."""
    frame = window.scene.frame
    _columns, rows = window.samples()
    return rows[np.searchsorted(rows[:, 0], frame.t + 1e-9) - 1], frame


def drawn_xy(window, kind):
    """(x, y) the 2-D scene's arrow item of `kind` holds (shafts and heads, as pairs)."""
    lines, _arcs = window.arrows._painters[id(window.scene)].items[kind][0]
    x, y = lines.getData()
    return np.zeros((0, 2)) if x is None else np.column_stack((x, y))


def legend_of(window) -> str:
    """The 2-D scene's legend: its title row while arrows are shown ("" when hidden)."""
    label = window.scene.getPlotItem().titleLabel
    return label.text if label.isVisible() else ""


def same_points(a, b, tol=1e-9) -> bool:
    a, b = np.asarray(a, float).reshape(-1, 3), np.asarray(b, float).reshape(-1, 3)
    return len(a) == len(b) and all(np.min(np.linalg.norm(b - p, axis=1)) < tol for p in a)


def test_four_bar_pin_forces_at_the_pins(qtbot, make_window):
    model = four_bar()
    window = make_window(model)
    paused_after(qtbot, window, 30)
    window.arrows.set_enabled("constraint", True)
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    engine = Simulation(model).constraint_forces(row)  # the engine at the same sample
    drawn = window.arrows.sets["constraint"]
    closure = model.constraints[0]
    rocker = model.body_index(closure.a.body if closure.a.body != "ground" else closure.b.body)
    end = frame.origins[rocker] + frame.rotations[rocker] @ np.array(
        closure.a.point if closure.a.body != "ground" else closure.b.point)
    assert same_points(drawn.points, [*frame.origins, end])  # three pins and the closure
    assert same_points(drawn.points, [a.at for a in engine])
    for action in engine:
        k = int(np.argmin(np.linalg.norm(drawn.points - action.at, axis=1)))
        assert np.allclose(drawn.vectors[k, :2], action.force[:2], rtol=1e-12, atol=1e-12)
    xy = drawn_xy(window, "constraint")
    assert len(xy) and np.all(np.isfinite(xy))
    assert same_points(np.column_stack((xy[:8:2], np.zeros(4))), np.column_stack((drawn.points[:, :2], np.zeros(4))))
    assert "N per px" in legend_of(window)


def test_each_kind_draws_where_it_applies_and_nothing_where_it_does_not(qtbot, make_window):
    model = double_compound_pendulum()
    window = make_window(model)
    paused_after(qtbot, window, 20)
    for kind in KINDS:
        window.arrows.set_enabled(kind, True)
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    sets, problems = window.arrows.sets, window.arrows.problems
    assert same_points(sets["velocity"].points, frame.mass_centres)
    sim = Simulation(model)
    assert np.allclose(sets["velocity"].vectors, sim.mass_centre_velocities(row), atol=1e-12)
    assert same_points(sets["applied"].points, frame.mass_centres)  # gravity at each mass centre
    assert np.allclose(sets["applied"].vectors, [[0.0, -9.81, 0.0]] * 2)
    assert same_points(sets["constraint"].points, frame.origins)
    for kind in ("omega", "momentum"):  # a planar model: ω and H lie along z, no arrows
        assert sets[kind].empty and "planar" in problems[kind] and not len(drawn_xy(window, kind))
    for kind in ("velocity", "applied", "constraint"):
        xy = drawn_xy(window, kind)
        assert len(xy) and np.all(np.isfinite(xy)), kind
    for kind in KINDS:
        window.arrows.set_enabled(kind, False)
    window.redraw.redraw_all()
    assert all(not len(drawn_xy(window, kind)) for kind in KINDS)
    assert not legend_of(window)


def test_absolute_coordinates_draw_the_same_joint_forces(qtbot, make_window):
    """A run in absolute coordinates: its rows hold the joint columns first, the poses after; the
    pins' forces still sit at the pins and equal the joint-coordinate ones at the same state."""
    model = double_compound_pendulum().with_settings(coordinates="absolute")
    window = make_window(model)
    paused_after(qtbot, window, 20)
    window.arrows.set_enabled("constraint", True)
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    assert not window.arrows.problems
    drawn = window.arrows.sets["constraint"]
    assert same_points(drawn.points, frame.origins)
    engine = Simulation(model).constraint_forces(row)
    assert np.allclose(sorted(np.linalg.norm(drawn.vectors, axis=1)),
                       sorted(np.linalg.norm([a.force[:2] for a in engine], axis=1)), rtol=1e-12, atol=1e-12)


def test_spatial_bodies_get_omega_and_momentum(qtbot, make_window):
    """Offscreen (no OpenGL) the heavy top is drawn in the 2-D oblique projection: ω and H_G
    arrows start at its mass centre."""
    model = heavy_top()
    window = make_window(model)
    paused_after(qtbot, window, 20)
    window.arrows.set_enabled("omega", True)
    window.arrows.set_enabled("momentum", True)
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    sim = Simulation(model)
    for kind, expected in (("omega", sim.angular_velocities(row)), ("momentum", sim.angular_momenta(row))):
        arrow_set = window.arrows.sets[kind]
        assert same_points(arrow_set.points, frame.mass_centres)
        assert np.allclose(arrow_set.vectors, expected, atol=1e-12)
        xy = drawn_xy(window, kind)
        assert len(xy) and np.all(np.isfinite(xy))
        tail = window.scene.project(frame.mass_centres)[0]
        assert np.allclose(xy[0], tail)


def test_arrows_follow_the_cursor(qtbot, make_window):
    window = make_window(double_compound_pendulum())
    paused_after(qtbot, window, 40)
    window.arrows.set_enabled("velocity", True)
    window.session.set_cursor(0.5 * window.session.cursor_time())
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    assert frame.t <= 0.5 * window.session.latest_common_time() + 1e-9
    assert same_points(window.arrows.sets["velocity"].points, frame.mass_centres)


def test_arrows_are_computed_once_per_sample_and_redrawn_only_where_they_changed(qtbot, make_window, monkeypatch):
    """A repaint of the same sample asks the engine nothing and sets no item again; another sample
    is computed and drawn at its own pose; a kind switched off empties its item alone, and on
    again is drawn at the sample shown."""
    import eomlab.gui.arrows.arrows_view as arrows_module

    computed = []
    real = arrows_module.arrow_sets
    monkeypatch.setattr(arrows_module, "arrow_sets", lambda *a: computed.append(a[1][0]) or real(*a))
    window = make_window(double_compound_pendulum())
    paused_after(qtbot, window, 40)
    for kind in ("velocity", "applied", "constraint"):
        window.arrows.set_enabled(kind, True)
    window.redraw.redraw_all()
    assert len(computed) == 1
    items = window.arrows._painters[id(window.scene)].items
    held = {kind: items[kind][0][0].getData()[0] for kind in ("velocity", "applied", "constraint")}
    window.redraw.redraw_all()  # the same sample again (a pan, a repaint)
    assert len(computed) == 1
    assert all(items[kind][0][0].getData()[0] is held[kind] for kind in held)
    window.session.set_cursor(0.5 * window.session.cursor_time())
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    assert computed[-1] == row[0] and len(computed) == 2
    assert same_points(window.arrows.sets["velocity"].points, frame.mass_centres)
    assert np.allclose(drawn_xy(window, "velocity")[0], window.scene.project(frame.mass_centres)[0])
    held = {kind: items[kind][0][0].getData()[0] for kind in held}
    window.arrows.set_enabled("applied", False)
    window.redraw.redraw_all()
    assert not len(drawn_xy(window, "applied")) and "applied" not in window.arrows.sets
    assert items["velocity"][0][0].getData()[0] is held["velocity"]  # unchanged: not set again
    window.arrows.set_enabled("applied", True)
    window.redraw.redraw_all()
    gravity = Simulation(double_compound_pendulum()).applied_forces(row)
    assert same_points(window.arrows.sets["applied"].points, [a.at for a in gravity])
    assert len(drawn_xy(window, "applied")) == 6 * len(gravity)  # a shaft and two barbs each


def test_length_control_and_legend_outside_the_view(qtbot, make_window):
    window = make_window(four_bar())
    paused_after(qtbot, window, 20)
    window.arrows.set_enabled("applied", True)
    window.redraw.redraw_all()
    before = drawn_xy(window, "applied")
    window.arrows.set_length_step(4)  # ×2
    window.redraw.redraw_all()
    after = drawn_xy(window, "applied")
    shaft = lambda xy: np.linalg.norm(xy[1::2][:3] - xy[0::2][:3], axis=1)  # noqa: E731
    assert np.allclose(shaft(after), 2 * shaft(before), rtol=1e-6)
    plot = window.scene.getPlotItem()  # the legend is the title row, above the view: never over the mechanism
    assert "applied force" in legend_of(window)
    assert not plot.titleLabel.sceneBoundingRect().intersects(plot.getViewBox().sceneBoundingRect())


def test_a_constraint_without_a_point_is_named_in_the_legend(qtbot, make_window):
    model = replace(double_compound_pendulum(), constraints=(
        ExpressionConstraint("level", "upper_theta + lower_theta - 2.5", order=0),))
    window = make_window(model)
    paused_after(qtbot, window, 10)
    window.arrows.set_enabled("constraint", True)
    window.arrows.set_enabled("applied", True)
    window.redraw.redraw_all()
    assert window.arrows.sets["constraint"].empty and "'level'" in window.arrows.problems["constraint"]
    assert len(window.arrows.sets["applied"].points) == 2
    assert "'level'" in legend_of(window)


def test_couples_are_arcs_round_their_joint(qtbot, make_window):
    """The driven slider-crank: the servo's drive torque at the crank's pin is a z couple, drawn as
    an arc (one polyline and two barbs, NaN-separated) with its scale in the legend."""
    model = driven_crank()
    window = make_window(model)
    paused_after(qtbot, window, 20)
    window.arrows.set_enabled("constraint", True)
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    arrow_set = window.arrows.sets["constraint"]
    engine = [a for a in Simulation(model).constraint_forces(row) if abs(a.torque[2]) > 1e-9 * max(
        np.linalg.norm(b.force) for b in Simulation(model).constraint_forces(row))]
    assert len(arrow_set.couples) == len(engine) >= 1  # the drive torque (a point-mass slider needs no couple)
    assert same_points(arrow_set.couple_points, [a.at for a in engine])
    _lines, arcs = window.arrows._painters[id(window.scene)].items["constraint"][0]
    x, y = arcs.getData()
    breaks = np.flatnonzero(np.isnan(x))
    assert len(breaks) == 3 * len(engine) and np.all(np.isfinite(y[~np.isnan(y)]))
    assert "couples" in legend_of(window) and "N·m per px" in legend_of(window)


def test_scales_follow_the_typical_magnitude_in_simulated_time():
    """A short peak does not set the scale; frames weigh by the simulated time they stand for."""
    scales = Scales()
    for k in range(100):
        scales.see("constraint", np.array([[400.0 if 50 <= k < 55 else 50.0, 0.0, 0.0]]), 0.01)
    assert scales.per_pixel("constraint", 500.0) == pytest.approx(nice_ceiling(50.0 / 150.0))
    for _ in range(10):  # ten frames standing for 10 s of peak each (the scale is revised every tenth frame)
        scales.see("constraint", np.array([[400.0, 0.0, 0.0]]), 10.0)
    assert scales.per_pixel("constraint", 500.0) == pytest.approx(nice_ceiling(400.0 / 150.0))


def test_a_settled_scale_is_revised_less_often_but_follows_a_lasting_change():
    """After SETTLED frames a kind's quantile (a sort) is taken every REVISE_LATER-th frame: within
    that many frames a lasting change still sets the scale."""
    from eomlab.gui.arrows.arrow_sets import REVISE_LATER, SETTLED

    scales = Scales()
    for _ in range(SETTLED + 50):
        scales.see("velocity", np.array([[1.0, 0.0, 0.0]]), 0.01)
    assert scales.per_pixel("velocity", 500.0) == pytest.approx(nice_ceiling(1.0 / 150.0))
    for _ in range(REVISE_LATER):
        scales.see("velocity", np.array([[10.0, 0.0, 0.0]]), 1.0)
    assert scales.per_pixel("velocity", 500.0) == pytest.approx(nice_ceiling(10.0 / 150.0))


@pytest.mark.parametrize("x, expected", [(0.0031, 0.004), (0.7, 0.8), (1.0, 1.0), (12.0, 15.0), (48.0, 50.0), (0.09, 0.1)])
def test_scales_read_well(x, expected):
    assert nice_ceiling(x) == pytest.approx(expected)


@pytest.mark.xvfb
def test_heavy_top_arrows_in_the_3d_view(tmp_path):
    """On a real display the heavy top is drawn with OpenGL: ω, H_G, the pivot's force and gravity
    each draw one arrow, and the picture is saved."""
    root = str(project_paths.ROOT)
    shot = tmp_path / "top.png"
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)
    command = x_display_command() + [sys.executable, os.path.join(root, "tests", "gui", "arrows_shots.py"),
                                     "heavy_top", str(shot), "omega", "momentum", "constraint", "applied"]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "GLError" not in done.stderr and "Error while drawing" not in done.stderr, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["scene"] == "scene3d" and report["saved"] and not report["problems"]
    assert report["drawn"] == {"omega": 1, "momentum": 1, "constraint": 1, "applied": 1}


def test_arrow_choices_come_back_in_the_next_window(qtbot, make_window, settings_store):
    """View ▸ Arrows' kinds and length are kept in the window's QSettings (the test's own file)."""
    first = make_window(double_compound_pendulum())
    assert first.arrows.enabled == []
    first.arrows.actions["constraint"].trigger()  # as the menu does
    first.arrows.length_slider.setValue(3)
    first.close()
    second = make_window(double_compound_pendulum())
    assert second.arrows.enabled == ["constraint"] and second.arrows.actions["constraint"].isChecked()
    assert second.arrows.length_slider.value() == 3 and second.arrows.scales.factor == pytest.approx(2 ** 0.75)
    second.arrows.actions["velocity"].trigger()
    second.arrows.actions["constraint"].trigger()
    second.close()
    third = make_window(double_compound_pendulum())
    assert third.arrows.enabled == ["velocity"] and not third.arrows.actions["constraint"].isChecked()
    third.arrows.actions["velocity"].trigger()
    third.close()
    assert make_window(double_compound_pendulum()).arrows.enabled == []


def test_scrubbing_back_across_a_parameter_change_shows_the_arrows_of_before(qtbot, make_window):
    """The bob's mass goes 1.5 → 4 kg mid-run: a sample before the change shows the pivot's pull of
    1.5 kg, one after it that of 4 kg (the engine's at each sample, 1e-12); "Continue from here"
    before the change takes the old mass back (runs, panel and document), and its undo the new one."""
    model = simple_pendulum(mass=1.5, theta0=1.0).with_settings(t_end=1e5)  # never ends before the pause
    heavier = model_with_parameter(model, "bodies[0].mass", 4.0)
    window = make_window(model)
    paused_after(qtbot, window, 30)
    window.arrows.set_enabled("constraint", True)
    edits = []
    window.session.edited.connect(lambda _run, name, t: edits.append((name, t)))
    field = window.parameter_panel.rows["bodies[0].mass"][2]
    field.setText("4")  # typed in the panel: the runs and the document take it
    field.editingFinished.emit()
    qtbot.waitUntil(lambda: bool(edits), timeout=5000)
    assert window.document.model.bodies[0].mass == 4.0
    t_edit = edits[0][1]
    run_fast(window)
    # 30 samples after the edit (not 30 more kept: with the compiled step the 20,000-row buffer may be full)
    qtbot.waitUntil(lambda: np.count_nonzero(window.samples()[1][:, 0] > t_edit + 1e-9) >= 30, timeout=20000)
    window.pause()
    qtbot.waitUntil(lambda: window.state == "paused", timeout=5000)
    rows = window.samples()[1]
    before, after = rows[rows[:, 0] < t_edit - 1e-9][-5], rows[rows[:, 0] > t_edit + 1e-9][5]
    for row, in_force, other in ((before, model, heavier), (after, heavier, model)):
        window.session.set_cursor(float(row[0]))
        window.redraw.redraw_all()
        shown, _frame = shown_row(window)
        assert shown[0] == row[0]
        drawn = window.arrows.sets["constraint"].vectors[0]
        assert np.allclose(drawn[:2], Simulation(in_force).constraint_forces(row)[0].force[:2], rtol=1e-12, atol=1e-12)
        assert not np.allclose(drawn[:2], Simulation(other).constraint_forces(row)[0].force[:2], rtol=1e-3)
    window.session.set_cursor(float(before[0]))
    window.timeline.continue_here()
    run = window.runs[0]
    qtbot.waitUntil(lambda: len(edits) == 2, timeout=5000)
    assert run.model.bodies[0].mass == 1.5 and len(run.models) == 1
    assert window.parameter_panel.rows["bodies[0].mass"][2].text() == "1.5"  # the panel shows it
    assert window.document.model.bodies[0].mass == 1.5  # Save and Reset take the mass the run goes on with
    window.document.undo_stack.undo()
    qtbot.waitUntil(lambda: len(edits) == 3, timeout=5000)
    assert window.document.model.bodies[0].mass == 4.0
    assert run.model.bodies[0].mass == 4.0 and run.model_at(float(after[0])) is run.model
    assert run.model_at(float(before[0])).bodies[0].mass == 1.5


def test_while_a_run_goes_its_own_process_computes_what_the_arrows_read(qtbot, make_window, monkeypatch):
    """The engine's part of the arrows is done by the run's process at each batch's last sample
    (off the GUI thread); the window draws those values, equal to the engine's reading of the same
    row in the window (1e-12), and reads rows itself only for a sample the run did not send."""
    model = double_compound_pendulum().with_settings(t_end=1e5)
    window = make_window(model)
    for kind in ("velocity", "applied", "constraint"):
        window.arrows.set_enabled(kind, True)
    assert set(window.session.quantities_wanted) == {"mass_centre_velocities", "applied_force_arrays",
                                                       "constraint_force_arrays"}  # no ω, H: planar
    read_here = []
    original = type(window.arrows)._quantities_for
    monkeypatch.setattr(type(window.arrows), "_quantities_for",
                        lambda self, m: read_here.append(1) or original(self, m))
    run_fast(window)
    wait_for_samples(qtbot, window, 100)
    read_here.clear()
    frames = window.redraw.frames_drawn
    qtbot.waitUntil(lambda: window.redraw.frames_drawn >= frames + 30, timeout=10000)
    assert not read_here
    window.pause()
    qtbot.waitUntil(lambda: window.state == "paused", timeout=5000)
    qtbot.wait(100)
    window.redraw.redraw_all()
    row, frame = shown_row(window)
    sent = window.runs[0].sent_quantities[row[0]]
    sim = Simulation(model)  # the engine reading the same row
    np.testing.assert_allclose(sent["mass_centre_velocities"], sim.mass_centre_velocities(row), atol=1e-12)
    np.testing.assert_allclose(sent["constraint_force_arrays"].force, sim.constraint_force_arrays(row).force,
                               atol=1e-12)
    drawn = window.arrows.sets["velocity"]
    np.testing.assert_allclose(drawn.vectors, sim.mass_centre_velocities(row), atol=1e-12)


def test_what_a_run_could_not_compute_reaches_the_legend_as_the_engine_said_it():
    """A reader the engine refused in the run's process travels as plain data (ModelError does not
    pickle) and is reported by arrow_sets as a problem, the others drawn."""
    import pickle

    from eomlab.engine.model import ModelError
    from eomlab.gui.arrows.arrow_sets import arrow_sets, moving_and_spinning
    from eomlab.gui.runs.sent_quantities import Refused, SentQuantities

    model = double_compound_pendulum()
    sim = Simulation(model)
    row = sim.advance(0.2)[-1]
    frame = sim.frame(row[sim.state_columns[0]], float(row[0]))
    sent = {"mass_centre_velocities": sim.mass_centre_velocities(row),
            "constraint_force_arrays": Refused.of(ModelError("constraints[0]", "no reaction here"))}
    sent = pickle.loads(pickle.dumps(sent))
    sets, problems = arrow_sets(SentQuantities(sent), row, frame, moving_and_spinning(model), True,
                                ["velocity", "constraint"])
    np.testing.assert_allclose(sets["velocity"].vectors, sim.mass_centre_velocities(row), atol=1e-12)
    assert sets["constraint"].empty and problems["constraint"] == "no reaction here"
