"""The window's first frame (issue #30, item 4): `eomlab gui` paints the mechanism before the modules a
run needs and the window does not show are loaded, and a constrained model's first frame is its
assembled pose, drawn before any run sample. Not a timed test (bench/bench_startup.py measures)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from eomlab.engine.presets import preset

#: what the first frame must not wait for: LAPACK and scipy's ODE solvers, the tree dynamics (pinocchio),
#: the symbolic engine, numba's kernels, OpenGL (a planar model has no 3-D view), the MP4 encoder's
#: check (it starts the ffmpeg binary) and PIL (GIF recording). `sympy` and `scipy.linalg` are lazy
#: module objects until first used (engine.lazy_imports): their submodules show whether they ran.
HEAVY_MODULES = ("scipy.linalg._flapack", "scipy.integrate", "pinocchio", "sympy.core", "numba", "OpenGL",
                 "pyqtgraph.opengl", "imageio_ffmpeg", "PIL.Image")

#: `eomlab gui` as the command runs it, the loaded modules noted at the first paint of the scene that
#: shows the mechanism (the window then closes)
FIRST_FRAME = r"""
import json, os, sys
from PySide6.QtCore import QEvent, QObject, QTimer
import eomlab.gui.main_window as main_window

seen = {}

class FirstFrame(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint and "modules" not in seen and self.window.scene.frame is not None:
            seen["modules"] = sorted(sys.modules)
            seen["plot_paints_before"] = self.plot_paints
            QTimer.singleShot(0, self.window.close)
        return False

class PlotPaints(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint and "modules" not in seen:
            clock.plot_paints += 1
        return False

clock, plot_paints = FirstFrame(), PlotPaints()
clock.plot_paints = 0
shown = main_window.MainWindow.show

def show(window):
    clock.window = window
    window.confirm_discard = lambda: True
    window.confirm_restore = None
    window.scene.viewport().installEventFilter(clock)
    for plot in window.plots.plots.values():
        plot.viewport().installEventFilter(plot_paints)
    shown(window)

main_window.MainWindow.show = show
import eomlab.cli
eomlab.cli.main(["gui", *sys.argv[1:]])
print(json.dumps({"plot_paints_before": seen.get("plot_paints_before"),
                  "heavy": [m for m in json.loads(os.environ["HEAVY"]) if m in seen.get("modules", ())],
                  "painted": "modules" in seen}))
"""


def test_the_first_frame_comes_before_the_heavy_modules(tmp_path):
    """In a fresh `eomlab gui` (the default model, running): at the first paint of the mechanism none of
    HEAVY_MODULES is loaded and no plot has painted yet (the plots come on the next frame)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HEAVY=json.dumps(HEAVY_MODULES),
               XDG_CONFIG_HOME=str(tmp_path))  # the window's settings and recovery files: the test's own
    done = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True, text=True, env=env,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"plot_paints_before": 0, "heavy": [], "painted": True}, done.stderr[-3000:]


@pytest.mark.parametrize("name", ["four_bar", "double_compound_pendulum"])
def test_the_first_frame_is_the_pose_the_run_starts_from(make_window, name):
    """Before any run sample (the window paused): a tree's q0 as given, a constrained model's q0 projected
    onto its constraints as the run's start makes it (engine.run.start_checks), to 1e-9 m."""
    from eomlab.engine.mechanics.system import MechanicalSystem
    from eomlab.engine.run.frames import frame_at
    from eomlab.engine.run.start_checks import consistent_initial_state

    model = preset(name)
    window = make_window(model)
    assert window.scene.frame is not None and len(window.samples()[1]) == 0
    system = MechanicalSystem(model, compiled=False)
    start = frame_at(system.kin, consistent_initial_state(system, [])[0])
    assert np.allclose(window.scene.frame.origins, start.origins, atol=1e-9, rtol=0)
    assert np.allclose(window.scene.frame.mass_centres, start.mass_centres, atol=1e-9, rtol=0)


def test_the_plots_paint_once_the_first_frame_is_painted(qtbot, make_window, monkeypatch):
    """The window's first paint, not the fallback timer (made a minute here), lets the plots paint."""
    import eomlab.gui.main_window as main_window

    monkeypatch.setattr(main_window, "WARM_UP_MS", 60_000)
    window = make_window(preset("double_compound_pendulum"))  # shown
    qtbot.waitUntil(lambda: window.plots.updatesEnabled(), timeout=30_000)


def test_after_first_paint_falls_back_for_a_widget_never_shown(qtbot):
    from PySide6.QtWidgets import QWidget

    from eomlab.gui.runs.first_paint import after_first_paint

    widget, called = QWidget(), []
    after_first_paint([widget], lambda: called.append(1), 50)
    qtbot.waitUntil(lambda: called == [1], timeout=10_000)
    qtbot.wait(100)
    assert called == [1]  # once
