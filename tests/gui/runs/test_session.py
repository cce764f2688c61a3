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


def _common_instant_over_whole_histories(runs, bound):
    """The rule common_instant keeps, on every kept pose of every run."""
    from eomlab.gui.runs.session import _EPS

    def instants(run):
        frames = list(run.frames) + ([run.latest_frame] if run.latest_frame is not None else [])
        return {round(f.t / _EPS): f.t for f in frames if f.t <= bound + _EPS}

    first = instants(runs[0])
    common = set(first).intersection(*(instants(run) for run in runs[1:]))
    return first[max(common)] if common else bound


def test_the_common_instant_looks_at_the_latest_poses_first_and_agrees_with_the_whole_histories():
    """Compare mode's runs pace themselves, so their dense-output instants differ between samples; the
    common instant is taken from each run's latest poses first (the whole 256-pose histories, at every batch
    of five runs, held the soak's GUI thread ~1 s), from the whole histories when those share none."""
    from eomlab.gui.runs.session import RECENT_INSTANTS, common_instant

    rng = np.random.default_rng(7)
    grid = np.round(np.arange(0.0, 6.0, 0.01), 10)  # the common sample grid
    for _ in range(300):
        runs = []
        for method in ("lagrange", "maggi", "kane", "udwadia_kalaba", "gibbs_appell"):
            times = np.concatenate([grid[: rng.integers(50, 600)], rng.uniform(0.0, 6.0, rng.integers(0, 400))])
            runs.append(run_with_samples(method, np.sort(times)[-256:]))
        bound = min(run.latest_frame.t for run in runs)
        assert common_instant(runs, bound) == _common_instant_over_whole_histories(runs, bound)
    # the common instant far back: only the grid's 0.5 s is shared, each run having many instants of its own after it
    runs = [run_with_samples(m, np.concatenate([[0.5], 0.5 + np.arange(1, 3 * RECENT_INSTANTS) * shift]))
            for m, shift in (("kane", 0.0031), ("maggi", 0.0071))]
    assert common_instant(runs, 0.6) == 0.5 == _common_instant_over_whole_histories(runs, 0.6)
