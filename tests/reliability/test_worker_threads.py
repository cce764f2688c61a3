"""Workers end quickly and cleanly: Stop joins within a second, Reset does not wait for the old worker (it ends
within a second on its own), closing the window
during a run leaves no thread behind and no "QThread: Destroyed while thread is still running"."""
from __future__ import annotations

import time


from eomlab.engine.presets import preset
from eomlab.gui.main_window import MainWindow
from eomlab.gui.runs.run_thread import AS_FAST_AS_POSSIBLE

JOIN_SECONDS = 1.0


def _busy_window(qtbot, make_window, compare=False):
    window = make_window(preset("planar_chain", n=30).with_settings(t_end=1000.0), compare=compare)
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()
    qtbot.waitUntil(lambda: len(window.samples()[1]) >= 3, timeout=30000)
    return window


def test_stop_joins_every_worker_within_a_second(qtbot, make_window):
    window = _busy_window(qtbot, make_window)
    threads = [h.thread for h in window.runs]
    assert window.stop_runs() < JOIN_SECONDS
    assert all(t.isFinished() for t in threads)


def test_reset_joins_the_old_worker_and_starts_from_t0(qtbot, make_window):
    window = _busy_window(qtbot, make_window)
    old = [h.thread for h in window.runs]
    assert old
    start = time.perf_counter()
    window.reset()
    assert time.perf_counter() - start < JOIN_SECONDS  # the window does not wait for the old worker to end
    assert window.session.ending == len(old) or not window.session.ending
    qtbot.waitUntil(lambda: window.session.ending == 0, timeout=int(1000 * JOIN_SECONDS))  # ended and let go of
    qtbot.waitUntil(lambda: window.runs[0].series is not None, timeout=20000)
    assert window.samples()[1][-1, 0] == 0.0 and window.state == "idle"  # back at t = 0, not running


def test_closing_during_a_compare_run_joins_all_workers_without_qthread_warnings(qtbot, qtlog, settings_store):
    window = MainWindow(preset("double_compound_pendulum").with_settings(t_end=1000.0), run=True, compare=True,
                        settings=settings_store)
    window.confirm_discard = lambda: True
    window.confirm_restore = None
    window.show()
    window.set_speed(AS_FAST_AS_POSSIBLE)
    qtbot.waitUntil(lambda: len(window.samples()[1]) >= 3, timeout=30000)
    threads = [h.thread for h in window.runs]
    assert len(threads) > 1
    start = time.perf_counter()
    window.close()
    assert time.perf_counter() - start < JOIN_SECONDS
    assert all(t.isFinished() for t in threads)
    window.deleteLater()
    qtbot.wait(50)
    assert not [r for r in qtlog.records if "QThread" in r.message]


def test_closing_after_a_failed_run_is_clean(qtbot, qtlog, make_window):
    from dataclasses import replace

    from eomlab.engine.model import JointEffort

    model = preset("simple_pendulum").with_settings(t_end=5.0)
    model = replace(model, forces=(JointEffort("pole", "bob", ("tan(5*t)",)),))
    window = make_window(model)
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()
    qtbot.waitUntil(lambda: bool(window.last_error), timeout=20000)
    assert "step size collapsed" in window.last_error and "samples so far are kept" in window.last_error
    assert len(window.samples()[1]) == 32  # up to t = 0.31, the pole at π/10
    threads = [h.thread for h in window.runs]
    window.close()
    assert all(t.isFinished() for t in threads)
    assert not [r for r in qtlog.records if "QThread" in r.message]


def test_a_worker_let_go_of_while_it_runs_is_freed_on_the_gui_thread_once_it_ends(qtbot):
    """Nothing but the worker itself holds it (a session dropped without a stop): its run() returning
    must not free the QThread on its own thread, where Qt aborts the whole process (it did: a test's
    session, freed after the test, took the suite's worker down)."""
    import gc
    import weakref

    from eomlab.gui.runs import run_thread

    thread = run_thread.RunThread(preset("simple_pendulum").with_settings(t_end=0.2), speed=AS_FAST_AS_POSSIBLE)
    thread.start()
    worker = weakref.ref(thread)
    del thread
    gc.collect()
    assert worker() is not None  # kept while it runs
    qtbot.waitUntil(lambda: worker() is None, timeout=20000)  # freed once it ended, by the GUI thread's event loop
    assert not getattr(run_thread, "STARTED", ())
