"""What a run sends when (gui/runs/pacing.py): poses at the dense output's instants between the samples
as the wall clock reaches them, not one at the end of each integrator step; runs in the window go
on past t_end."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gui_helpers import run_fast

from eomlab.engine.presets import preset
from eomlab.gui.runs.pacing import FRAME_RATE, HeldBack, instant_spacing, window_run_length
from eomlab.gui.report import layout_report
from eomlab.gui.runs.run_thread import PROCESS_WORKERS, RunThread


def test_instant_spacing_follows_the_speed_and_holds_every_recorded_instant():
    assert instant_spacing(1.0, True) == pytest.approx(1 / FRAME_RATE)
    assert instant_spacing(0.1, True) == pytest.approx(0.1 / FRAME_RATE)
    assert instant_spacing(math.inf, True) is None and instant_spacing(1.0, False) is None
    for fps in (10, 15, 20, 25, 30, 50):
        for speed in (0.1, 1.0, 10.0, math.inf):
            spacing = instant_spacing(speed, True, fps)
            per_frame = round(1 / (fps * spacing))  # a whole number of instants per recorded frame
            assert 1 / fps == pytest.approx(per_frame * spacing, rel=1e-12)
            if not math.isinf(speed):
                assert spacing <= max(speed / FRAME_RATE, 1 / fps) + 1e-15


def test_held_back_rows_and_instants_leave_in_time_order():
    held = HeldBack()
    rows = np.array([[0.01, 1.0], [0.02, 2.0], [0.03, 3.0]])
    held.add(rows, [(0.005, np.zeros(1)), (0.015, np.ones(1)), (0.025, np.ones(1))])
    assert held.next_time() == 0.005
    taken_rows, instants = held.take_until(0.02)
    assert list(taken_rows[:, 0]) == [0.01, 0.02] and [t for t, _ in instants] == [0.005, 0.015]
    assert held.next_time() == 0.025 and held.first_row_from(0.025) == 0.03
    held.clear()
    assert not held and held.next_time() == math.inf


def test_a_window_run_may_go_far_past_t_end():
    settings = preset("heavy_top").settings
    assert settings.t_end == 5.0 and window_run_length(settings) >= 1e4


@pytest.mark.parametrize("process", sorted({False, PROCESS_WORKERS}))
def test_a_run_sends_poses_between_its_steps(qtbot, process):
    """The tumbling box steps about 0.27 s at a time: its poses arrive on the 1/120 s grid of
    instants, many per step, rather than one per step (counted, not timed)."""
    thread = RunThread(preset("tumbling_box").with_settings(t_end=1e5), process=process)
    thread.go_on_past_t_end = True
    poses, rows = [], []
    thread.batch.connect(lambda _id, r, frames: (rows.extend(r), poses.extend(frames)))
    thread.start()
    try:
        qtbot.waitUntil(lambda: bool(poses) and poses[-1].t > 1.2, timeout=20000)
    finally:
        thread.stop_and_join()
    times = np.array([f.t for f in poses])
    k = np.round(times * FRAME_RATE)
    assert np.allclose(times, k / FRAME_RATE, atol=1e-9)  # every pose an instant of the grid
    assert np.all(np.diff(times) > 0)  # in time order, each a new one
    # the rows came in time order too, none twice, none ahead of the pose sent after them
    t_rows = np.array([r[0] for r in rows])
    assert np.all(np.diff(t_rows) > 0)
    steps_taken = 1.2 / 0.2  # the box's steps are 0.2 to 0.33 s long
    assert len(set(k)) > 4 * steps_taken, len(set(k))


def test_a_window_run_goes_on_past_t_end_until_paused(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(t_end=0.3))
    said = []
    window.session.finished.connect(said.append)
    run_fast(window)
    qtbot.waitUntil(lambda: window.session.cursor_time() > 0.9, timeout=20000)
    assert window.state == "running" and said == [0.3]  # said once, as the instant shown passed it
    report = layout_report(window)
    assert report["t_end_passed"] is True and report["frames"]["drawn"] >= 0
    window.pause()
    qtbot.waitUntil(lambda: window.state == "paused", timeout=5000)
    assert window.session.cursor_time() > 0.9


def test_the_clock_says_when_a_run_is_past_t_end(make_window):
    window = make_window(preset("four_bar").with_settings(t_end=5.0))
    window.run_actions.show_time(4.5, 5.0)
    assert window.run_actions.time_label.text().split() == ["t", "=", "4.500", "s", "/", "5", "s"]
    window.run_actions.show_time(9.608, 5.0)
    assert window.run_actions.time_label.text().split() == ["t", "=", "9.608", "s", "(past", "5", "s)"]
