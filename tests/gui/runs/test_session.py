"""The run controller (gui/runs/session.py): state changes, and the time cursor that shows every run at
one instant — following the slowest run, or held where a scrubber puts it."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.gui.runs.run_thread import AS_FAST_AS_POSSIBLE
from gui_helpers import COLUMNS, frame, run_with_samples


def test_the_cursor_follows_the_slowest_run_and_every_run_is_posed_there(session):
    moved = []
    session.cursor_moved.connect(moved.append)
    session.runs = [run_with_samples("kane", [0.0, 0.1, 0.2, 0.3]), run_with_samples("maggi", [0.0, 0.1])]
    session._update_cursor()
    assert session.cursor_time() == 0.1 and moved == [0.1]
    assert [f.t for _run, f in session.frames_at_cursor()] == [0.1, 0.1]
    assert len(session.runs[0].series.rows_until(session.cursor_time())) == 2


def test_a_held_cursor_stays_until_it_follows_again(session):
    session.runs = [run_with_samples("kane", [0.0, 0.1, 0.2, 0.3])]
    session.set_cursor(0.2)
    row = np.zeros((1, len(COLUMNS)))
    row[0, 0] = 0.4
    session.runs[0].series.buffer.append(row)
    session.runs[0].frames.append(frame(0.4))
    session.runs[0].latest_frame = session.runs[0].frames[-1]
    session._update_cursor()
    assert session.cursor_time() == 0.2 and not session.following
    assert session.frames_at_cursor()[0][1].t == 0.2
    session.set_cursor(99.0)  # clamped to what every run has
    assert session.cursor_time() == 0.4
    session.set_cursor(0.25)  # between samples: the sample at or before it
    assert session.frames_at_cursor()[0][1].t == 0.2
    session.follow_latest()
    assert session.following and session.cursor_time() == 0.4


@pytest.mark.usefixtures("runs_end_at_t_end")
def test_states_from_idle_through_running_paused_and_ended(qtbot, session):
    states = []
    session.state_changed.connect(states.append)
    session.model = preset("simple_pendulum").with_settings(t_end=0.3)
    session.start(running=False)
    try:
        assert session.state == "idle"
        session.step()
        assert session.state == "paused"
        session.set_speed(AS_FAST_AS_POSSIBLE)
        session.run()
        qtbot.waitUntil(lambda: session.state == "ended", timeout=20000)
        assert states == ["paused", "running", "ended"]
        assert session.cursor_time() == pytest.approx(0.3)
    finally:
        session.stop()
