"""Read-outs that tell the truth (issue #25, item 3): the energy bars, the arrows and the compare
table show the instant the timeline holds, not the latest sample; an edit that changes the model
(a drag, gravity) restarts the drift and is no work (W = 0 for a conservative model)."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.presets import double_compound_pendulum, four_bar
from eomlab.engine.simulation import RunQuantities
from eomlab.gui.compare.compare_identical import group_words, identical_groups, widths
from eomlab.gui.compare.compare_math import largest_drifts
from eomlab.gui.compare.compare_panel import COST_COLUMNS
from eomlab.gui.plots.plot_data import LOG_FLOOR, curve_values
from eomlab.gui.runs.run_thread import AS_FAST_AS_POSSIBLE
from eomlab.gui.runs.run_messages import DragTo

from gui_helpers import main_samples, run_with_samples, wait_for_samples


def _until_still(qtbot, window) -> None:
    """Paused: until the batches already on their way have arrived (the latest time stays put)."""
    seen = []

    def still() -> bool:
        seen.append(main_samples(window)[-1, 0])
        return len(seen) > 3 and seen[-1] == seen[-4]

    qtbot.waitUntil(still, timeout=10000)


def _bar_heights(window) -> np.ndarray:
    return np.asarray(window.plots.energy_bars.bars.opts["height"], dtype=float)


@pytest.mark.usefixtures("runs_end_at_t_end")  # they wait for the end of the run
def test_scrubbed_back_the_bars_arrows_and_compare_table_show_that_instant(qtbot, make_window):
    window = make_window(four_bar().with_settings(t_end=2.0), compare=True)
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()
    qtbot.waitUntil(lambda: all(run.ended for run in window.runs), timeout=60000)
    window.plots.choose(["energy", "energy_bars"])
    window.arrows.set_enabled("velocity", True)
    window.redraw.redraw_all()
    columns, rows = window.samples()
    latest = rows[-1]
    k = int(np.searchsorted(rows[:, 0], 0.5))  # an instant well before the end
    window.session.set_cursor(float(rows[k, 0]))
    window.redraw.redraw_all()
    row = rows[k]
    T, V, E = (row[columns.index(c)] for c in ("T", "V", "E"))
    assert abs(latest[columns.index("T")] - T) > 1.0  # the instants differ by joules of T
    # the bars: that sample's T, V, E, and W = 0 (nothing does work on the four-bar)
    np.testing.assert_allclose(_bar_heights(window), [T, V, E, 0.0], rtol=0, atol=1e-12)
    # the arrows: the engine's mass-centre velocities at that sample, at its mass centres
    run = window.runs[0]
    velocities = RunQuantities(run.model).mass_centre_velocities(row)
    arrows = window.arrows.sets["velocity"]
    centres = np.array([[row[columns.index(f"{b}.{a}")] for a in "xyz"] for b in run.series.info.body_names])
    moving = np.linalg.norm(velocities, axis=1) > 0
    np.testing.assert_allclose(arrows.points, centres[moving], atol=1e-12)
    np.testing.assert_allclose(arrows.vectors, velocities[moving], rtol=1e-9, atol=1e-12)
    # the compare table: each method's largest drifts up to that instant, not over the whole run
    table = window.compare_view.panel.cost_table
    energy_column = next(i for i, name in enumerate(COST_COLUMNS) if "ΔE" in name)
    assert table.rowCount() == 2 * len(METHODS)
    changed = 0
    for i, each in enumerate(window.runs):
        until = largest_drifts(each.series, each.series.rows_until(row[0]))[0]
        overall = largest_drifts(each.series)[0]
        assert table.item(2 * i, energy_column).text() == f"{until:.2e}", each.method
        changed += f"{until:.2e}" != f"{overall:.2e}"
    assert changed >= 1  # the instant's figures are not the whole run's


def test_a_drag_and_a_change_of_gravity_restart_the_drift_and_are_no_work(qtbot, make_window):
    window = make_window(double_compound_pendulum().with_settings(t_end=1e5))
    window.plots.choose(["energy_drift", "energy_bars"])
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()
    wait_for_samples(qtbot, window, 30)
    window.pause()
    qtbot.waitUntil(lambda: window.state == "paused", timeout=5000)
    columns = window.samples()[0]
    iE = columns.index("E")
    # a drag while paused: the lower body's tip to a new place (the run goes on from that pose at rest)
    before = main_samples(window)[-1].copy()
    window.session.edit(DragTo("lower", [1.0, 0.0, 0.0], [0.3, -1.6, 0.0]))
    qtbot.waitUntil(lambda: abs(main_samples(window)[-1, iE] - before[iE]) > 0.5, timeout=5000)
    t_drag = main_samples(window)[-1, 0]
    window.run()
    qtbot.waitUntil(lambda: main_samples(window)[-1, 0] > t_drag + 0.3, timeout=10000)
    # gravity halved while it runs
    window.session.set_parameter("gravity", [0.0, -4.905, 0.0])
    qtbot.waitUntil(lambda: len(window.runs[0].series.account.stretches) == 3, timeout=5000)
    t_gravity = window.runs[0].series.account.stretches[-1].t0
    qtbot.waitUntil(lambda: main_samples(window)[-1, 0] > t_gravity + 0.3, timeout=10000)
    window.pause()
    qtbot.waitUntil(lambda: window.state == "paused", timeout=5000)
    window.redraw.redraw_all()
    rows = main_samples(window)
    series = window.runs[0].series
    energy = rows[:, iE]
    assert np.max(np.abs(np.diff(energy))) > 1.0  # both edits changed E by joules
    starts = [s.t0 for s in series.account.stretches]
    assert starts[0] == 0.0 and starts[1] == pytest.approx(t_drag) and starts[2] > starts[1]
    # W: a conservative model, so no work whatever the edits — the bar and the account agree
    assert _bar_heights(window)[3] == 0.0
    work, drift = series.account.balance(rows[:, 0], energy)
    assert np.all(work == 0.0)
    # the drift curve restarts at each edit (LOG_FLOOR: exactly zero there) and stays small (rtol 1e-9)
    curve = curve_values(series, rows, "drift_E")
    for t0 in starts:
        assert curve[int(np.flatnonzero(np.abs(rows[:, 0] - t0) < 1e-9)[0])] == LOG_FLOOR
    assert np.max(curve) < 1e-5, np.max(curve)
    # the drag is marked on the time plots as the gravity change is (by the parameter panel)
    assert any(text == "drag" and t == pytest.approx(t_drag) for t, text in window.plot_marks.changes)


def test_identical_runs_are_grouped_said_with_their_difference_and_drawn_one_inside_the_other():
    times = np.arange(0.0, 1.0, 0.1)
    angles = np.sin(times)
    runs = [run_with_samples("kane", times, angles), run_with_samples("lagrange", times, angles + 3e-16),
            run_with_samples("maggi", times, angles - 2e-16), run_with_samples("udwadia_kalaba", times, angles + 1e-6),
            run_with_samples("gibbs_appell", times, angles + 1e-6)]
    groups = identical_groups(runs)
    assert [methods for methods, _ in groups] == [["kane", "lagrange", "maggi"], ["udwadia_kalaba", "gibbs_appell"]]
    assert groups[0][1] == pytest.approx(5e-16, abs=2e-16) and groups[1][1] == 0.0  # (sin's rounding)
    assert group_words(groups) == (f"Kane = Lagrange multipliers = Maggi to {groups[0][1]:.1e}; "
                                   "Udwadia–Kalaba = Gibbs–Appell exactly")
    wide = widths(groups, 2.0)
    assert wide["kane"] > wide["lagrange"] > wide["maggi"] == 2.0 and wide["udwadia_kalaba"] > wide["gibbs_appell"]
    assert identical_groups(runs[2:4]) == []  # 1e-6 apart: two curves a plot tells apart


@pytest.mark.usefixtures("runs_end_at_t_end")  # they wait for the end of the run
def test_compare_mode_says_which_methods_agree_on_the_unconstrained_double_pendulum(qtbot, make_window):
    window = make_window(double_compound_pendulum().with_settings(t_end=1.0), compare=True)
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()
    qtbot.waitUntil(lambda: all(run.ended for run in window.runs), timeout=60000)
    window.redraw.redraw_all()
    panel = window.compare_view.panel
    words = panel.identical_label.text()
    assert panel.identical_label.isVisibleTo(window) and " = " in words, words
    groups = identical_groups(window.runs, window.session.cursor_time())
    assert all(worst <= 1e-12 for _, worst in groups) and group_words(groups) in words
    for methods, _ in groups:  # each curve of a group stays visible: a different width each
        shown = {m: panel.difference_curves[m].opts["pen"].widthF() for m in methods if m in panel.difference_curves}
        assert len(set(shown.values())) == len(shown), shown
    for i in range(0, panel.cost_table.rowCount(), 2):  # no constraint drift talk for an unconstrained model
        text = panel.cost_table.item(i + 1, 0).text()
        assert "no constraints" in text and "holonomic" not in text, text


def test_an_undone_drag_starts_its_stretch_again_from_the_state_put_back(qtbot, make_window):
    window = make_window(double_compound_pendulum().with_settings(t_end=1e5))
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()
    wait_for_samples(qtbot, window, 30)
    window.pause()
    qtbot.waitUntil(lambda: window.state == "paused", timeout=5000)
    iE = window.samples()[0].index("E")
    _until_still(qtbot, window)
    window.session.follow_latest()  # as gui/scene/drag.py does: the drag acts at the latest sample
    before = window.session.rows_at(window.session.latest_common_time())  # what DragPose.undo puts back
    window.session.edit(DragTo("lower", [1.0, 0.0, 0.0], [0.3, -1.6, 0.0]))
    qtbot.waitUntil(lambda: abs(main_samples(window)[-1, iE] - before[0][iE]) > 0.5, timeout=5000)
    window.session.continue_from(before)
    qtbot.waitUntil(lambda: abs(main_samples(window)[-1, iE] - before[0][iE]) < 1e-6, timeout=5000)
    series = window.runs[0].series
    last = series.account.stretches[-1]
    rows = main_samples(window)
    assert last.t0 == pytest.approx(before[0][0]) and last.e0 == rows[-1, iE]  # from the state put back
    assert np.max(curve_values(series, rows, "drift_E")) < 1e-5  # no jump booked as drift
