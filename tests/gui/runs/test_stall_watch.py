"""A run that makes no progress for 2 s (a four-bar at its dead centre: the integrator's steps
shrink to nothing and the clock stands) says so in the status bar and offers Pause and Reset.

The watch reads a clock of its own: these tests step it by hand (2 s = STALL_SECONDS), and hold
the runs still by leaving their workers paused while the session says it runs."""
from __future__ import annotations

from project_paths import MODELS
import re

from eomlab.engine.modelfile import load_model
from eomlab.gui.runs.run_state import RunState
from eomlab.gui.runs.stall_watch import STALL_SECONDS, StallWatch

PAUSED, RUNNING = RunState.PAUSED, RunState.RUNNING

FOUR_BAR = MODELS / "four_bar.eom.json"


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def stuck_window(qtbot, make_window):
    """The four-bar's window 'running' while its run stands at its first sample."""
    window = make_window(load_model(FOUR_BAR))
    qtbot.waitUntil(lambda: window.session.latest_common_time() is not None, timeout=10000)
    clock = Clock()
    watch = StallWatch(window, clock=clock)
    watch.timer.stop()  # checked by hand
    window.session._set_state(RUNNING)  # the workers stay paused: no progress
    return window, watch, clock


def test_a_run_without_progress_for_two_seconds_says_so_and_offers_pause_and_reset(qtbot, make_window):
    window, watch, clock = stuck_window(qtbot, make_window)
    watch.check()
    clock.now += STALL_SECONDS - 0.25
    watch.check()
    assert not watch.stalled  # 1.75 s: not yet
    clock.now += 0.25
    watch.check()
    assert watch.stalled and watch.widget.isVisibleTo(window)
    text = watch.label.text()
    assert text.startswith("No progress for 2 s at t = 0.000 s") and "dead-centre" in text
    assert watch.pause_button.isVisibleTo(window) and watch.reset_button.isVisibleTo(window)
    watch.pause_button.click()
    assert window.session.state == PAUSED and not watch.stalled


def test_reset_from_the_stall_notice_starts_afresh_and_takes_it_away(qtbot, make_window):
    window, watch, clock = stuck_window(qtbot, make_window)
    watch.check()
    clock.now += STALL_SECONDS
    watch.check()
    assert watch.stalled
    runs = list(window.session.runs)
    watch.reset_button.click()
    assert window.session.runs != runs and not watch.stalled


def test_progress_takes_the_notice_away(qtbot, make_window):
    window, watch, clock = stuck_window(qtbot, make_window)
    watch.check()
    clock.now += STALL_SECONDS
    watch.check()
    assert watch.stalled
    for run in window.session.runs:
        run.thread.set_running(True)  # the run moves again
    qtbot.waitUntil(lambda: window.session.latest_common_time() > 0.05, timeout=10000)
    watch.check()
    assert not watch.stalled


def test_a_run_that_crawls_is_called_stuck(qtbot, make_window):
    """A real run that makes no visible progress: gravity 1e12 m/s² (the limit) makes DOP853 take
    steps of about 3e-8 s, so even the compiled step needs about a second for the first 0.01 s."""
    from dataclasses import replace

    from eomlab.engine.presets import preset

    window = make_window(replace(preset("simple_pendulum").with_settings(t_end=1e5), gravity=(0.0, -1e12, 0.0)))
    qtbot.waitUntil(lambda: window.session.latest_common_time() is not None, timeout=10000)
    clock = Clock()
    watch = StallWatch(window, clock=clock)
    watch.timer.stop()
    window.run()
    qtbot.wait(100)  # the run integrates: thousands of tiny steps, no new pose
    watch.check()
    clock.now += STALL_SECONDS
    watch.check()
    assert watch.stalled and window.session.latest_common_time() < 0.01
    # the instant the run has reached: under 0.01 s, but how far under depends on the machine's pace
    assert re.match(r"No progress for 2 s at t = 0\.00\d s: the run is stuck", watch.label.text())

