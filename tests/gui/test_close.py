"""Closing and stopping during a run: workers joined quickly, no QThread warning; a closed window
keeps no OpenGL view alive."""
from __future__ import annotations

import project_paths
import json
import os
import subprocess
import sys
import time

import pytest

from eomlab.engine.presets import preset
from eomlab.gui.main_window import MainWindow

from gui_helpers import x_display_command
from gui_helpers import WINDOW_SCRIPT_START, wait_for_samples

ROOT = str(project_paths.ROOT)


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


GL_SCRIPT = r"""
import json, sys, time
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtOpenGL import QOpenGLWindow
from PySide6.QtOpenGLWidgets import QOpenGLWidget
from PySide6.QtWidgets import QApplication
QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)  # as gui/app.py
""" + WINDOW_SCRIPT_START + r"""
def gl_alive():
    # the 3-D view: a GL window embedded in the main window (gui/scene/scene3d_view.py)
    return sum(isinstance(w, QOpenGLWidget) for w in QApplication.allWidgets()) + \
        sum(isinstance(w, QOpenGLWindow) for w in QGuiApplication.allWindows())

out = []
for _ in range(2):
    window = MainWindow(preset("heavy_top"), run=False, settings=QSettings(sys.argv[1], QSettings.IniFormat))
    window.confirm_discard = lambda: True
    window.resize(1000, 700)
    window.show()
    spin(0.4)
    # 3-D -> 2-D -> 3-D, and in and out of compare mode: one GL view per window, reused
    window.document.load(preset("double_compound_pendulum"), None, "a planar model")
    spin(0.2)
    window.document.load(preset("spatial_chain"), None, "a 3-D model")
    window.set_compare(True)
    spin(0.4)
    window.set_compare(False)
    spin(0.3)
    window.redraw.redraw_all()
    image = window.scene.grab().toImage()
    colours = len({image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)})
    open_views = gl_alive()
    window.close()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    out.append(dict(colours=colours, open_views=open_views, after_close=gl_alive()))
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.xvfb
def test_a_closed_window_keeps_no_3d_view_alive_and_the_next_one_paints(tmp_path):
    """A window reuses its one 3-D view across 2-D/3-D models and compare mode; closing it deletes
    the view at once (it stayed alive, context and all, until Python collected the window)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("QT_QPA_PLATFORM", None)  # a real display: OpenGL
    done = subprocess.run(x_display_command() + [sys.executable, "-c", GL_SCRIPT, str(tmp_path / "s.ini")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]  # a SIGSEGV shows as -11
    rounds = json.loads([line for line in done.stdout.splitlines() if line.startswith("[")][-1])
    for r in rounds:
        assert r["open_views"] == 1, rounds
        assert r["after_close"] == 0, rounds
        assert r["colours"] > 30, rounds  # the next window's 3-D view painted (lit solids on a ground)
