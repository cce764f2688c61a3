"""gui/runs/warm_up.py: `eomlab gui` draws its first frame before the runs' modules load, and the runs
fork only once they have loaded (or when nothing holds the fork lock)."""
from __future__ import annotations

import sys

import pytest

from eomlab.engine.compiled.tree_backend import fast_path_wanted

from eomlab.engine.presets import preset
from eomlab.gui.runs import warm_up
from eomlab.gui.runs.run_thread import PROCESS_WORKERS

from gui_helpers import run_fast, wait_for_samples

needs_fork = pytest.mark.skipif(not PROCESS_WORKERS, reason="runs go to child processes only where fork exists")


def test_the_fork_lock_is_held_until_the_modules_are_loaded():
    warming = warm_up.WarmUp()
    assert warm_up.FORK_LOCK.locked() and warming.thread.is_alive()
    warming.go()
    warming.thread.join(60)
    assert not warm_up.FORK_LOCK.locked()
    assert "scipy.linalg._flapack" in sys.modules and "scipy.integrate" in sys.modules


def test_the_fork_lock_is_let_go_without_go_after_its_wait(monkeypatch):
    monkeypatch.setattr(warm_up, "GO_WAIT_S", 0.05)
    warming = warm_up.WarmUp()
    warming.thread.join(60)
    assert not warm_up.FORK_LOCK.locked()


@needs_fork
def test_runs_wait_for_the_warm_up_and_a_stop_while_waiting_ends_them(qtbot, make_window, monkeypatch):
    monkeypatch.setattr(warm_up, "GO_WAIT_S", 30.0)
    warming = warm_up.WarmUp()
    try:
        window = make_window(preset("double_compound_pendulum").with_settings(t_end=1e5))
        run_fast(window)
        qtbot.wait(300)
        thread = window.runs[0].thread
        assert thread.child_pid is None and len(window.samples()[1]) == 0  # no fork while the lock is held
        window.stop_runs()  # the waiting worker ends without forking
        assert thread.isFinished() and thread.child_pid is None
        window.reset()
        run_fast(window)
    finally:
        warming.go()
        warming.thread.join(60)
    wait_for_samples(qtbot, window, 5)  # the lock let go: the fresh run forks and runs
    assert window.runs[0].thread.child_pid is not None


def test_the_first_window_of_a_process_loads_the_run_modules_before_its_runs_fork(tmp_path):
    """In a fresh process: no scipy.linalg before the window, then the window's warm-up loads it and the
    run forks and sends samples; then it loads the compiled kernels for the later runs (when numba's cache
    holds them all: never a compilation) and lets the fork lock go."""
    import os
    import subprocess

    code = ("import os, sys\n"
            "from PySide6.QtWidgets import QApplication\n"
            "from PySide6.QtCore import QSettings\n"
            "from PySide6.QtTest import QTest\n"
            "app = QApplication([])\n"
            "from eomlab.gui.main_window import MainWindow\n"
            "from eomlab.gui.runs import warm_up\n"
            "from eomlab.engine.presets import preset\n"
            "before = 'scipy.linalg._flapack' in sys.modules\n"
            "import numba\n"
            "from eomlab.engine.compiled import compiled_step, kernel_cache\n"
            "kernel_cache.cache_by_source(numba)\n"
            "complete = kernel_cache.cache_complete(numba)  # before the window: nothing else decides it\n"
            "w = MainWindow(preset('double_compound_pendulum'), None, run=True,\n"
            "               settings=QSettings(sys.argv[1], QSettings.IniFormat))\n"
            "held = warm_up.FORK_LOCK.locked()\n"
            "w.confirm_discard = lambda: True\n"
            "w.show()\n"
            "for _ in range(300):\n"
            "    QTest.qWait(100)\n"
            "    if len(w.samples()[1]) > 2:\n"
            "        break\n"
            "moving = len(w.samples()[1]) > 2\n"
            "import threading  # then the kernels load (a complete cache) with the lock held, and let it go\n"
            "for thread in threading.enumerate():\n"
            "    if thread.name == 'eomlab-warm-up':\n"
            "        thread.join(60)\n"
            "print(before, held, warm_up.warm_modules_loaded(), moving, warm_up.FORK_LOCK.locked(),\n"
            "      compiled_step.compiled_sweep() is not None, complete, compiled_step.PREFETCH['outcome'])\n"
            "os._exit(0)\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.ini")], capture_output=True, text=True,
                          env=env, timeout=120)
    printed = done.stdout.split()
    assert printed[:5] == ["False", "True", "True", "True", "False"], done.stdout + done.stderr[-2000:]
    kernels_loaded, cache_complete, outcome = printed[5:]
    if not fast_path_wanted():  # `make test-reference`: the runs take no kernels, so the window loads none
        assert (kernels_loaded, outcome) == ("False", "None"), done.stdout
        return
    # a complete cache loads whatever other processes do (it takes no lock); an incomplete one is never compiled
    # by the window, though another process (a parallel test worker) may complete it meanwhile
    assert outcome in (("loaded",) if cache_complete == "True" else ("loaded", "cache not complete")), done.stdout
    assert kernels_loaded == str(outcome == "loaded"), done.stdout
