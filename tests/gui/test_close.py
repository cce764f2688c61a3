"""Closing and stopping during a run: workers joined quickly, no QThread warning."""
from __future__ import annotations

import time

from eomlab.engine.presets import preset
from eomlab.gui.main_window import MainWindow

from gui_helpers import wait_for_samples


def test_close_during_run_joins_the_worker(qtbot, qtlog, settings_store):
    window = MainWindow(preset("planar_chain", n=50), run=True, settings=settings_store)
    window.confirm_discard = lambda: True
    window.show()
    wait_for_samples(qtbot, window, 3, timeout=30000)
    threads = [h.thread for h in window.runs]
    start = time.perf_counter()
    window.close()
    assert time.perf_counter() - start < 1.0
    assert all(t.isFinished() for t in threads)
    window.deleteLater()
    qtbot.wait(50)
    assert not [m for m in qtlog.records if "QThread" in m.message]


def test_reset_joins_within_a_second(qtbot, make_window):
    window = make_window(preset("planar_chain", n=50), run=True)
    wait_for_samples(qtbot, window, 3, timeout=30000)
    old = [h.thread for h in window.runs]
    assert window.stop_runs() < 1.0
    assert all(t.isFinished() for t in old)


def test_window_stays_responsive_with_a_50_link_chain(qtbot, make_window):
    window = make_window(preset("planar_chain", n=50), run=True)
    wait_for_samples(qtbot, window, 3, timeout=30000)
    # the event loop keeps turning while the worker integrates; lenient bounds, as other
    # processes may share the two cores
    gaps = []
    frames = window.frames_drawn
    for _ in range(40):
        start = time.perf_counter()
        qtbot.wait(25)
        gaps.append(time.perf_counter() - start - 0.025)
    gaps.sort()
    assert gaps[len(gaps) // 2] < 0.1, f"the event loop lags: median {gaps[len(gaps) // 2]:.3f} s"
    assert gaps[-1] < 1.0, f"the GUI thread froze for {gaps[-1]:.3f} s"
    assert window.frames_drawn > frames
