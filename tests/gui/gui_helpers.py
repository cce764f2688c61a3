"""Small helpers shared by the GUI tests."""
from __future__ import annotations

import os
import shutil
import time

import numpy as np
from PySide6.QtCore import Qt

from eomlab.gui.runs.ring_buffer import RingBuffer
from eomlab.gui.runs.run_thread import AS_FAST_AS_POSSIBLE, Frame, RunInfo
from eomlab.gui.runs.session import Run, RunSeries

#: the columns of a one-coordinate run (the session's tests)
COLUMNS = ("t", "a", "a_dot", "T", "V", "E", "drift_pos", "drift_vel")
INFO = RunInfo(columns=COLUMNS, coordinate_names=("a",), speed_names=("a_dot",), body_names=(), notes=(),
               t_end=10.0, dt_out=0.1)


def frame(t: float) -> Frame:
    return Frame(t=t, rotations=np.eye(3)[None], origins=np.zeros((1, 3)), mass_centres=np.full((1, 3), t))


def run_with_samples(method: str, times, angles=None, info: RunInfo = INFO, thread=None, model=None) -> Run:
    """A run holding a sample and a frame at each of `times`, the coordinate "a" at `angles` (zero
    without); `thread` stands for its worker (None: it has none)."""
    run = Run(thread=thread, method=method, label=method, color="#000", style=Qt.SolidLine, model=model)
    run.series = RunSeries(method, info, RingBuffer(len(COLUMNS), 100))
    rows = np.zeros((len(times), len(COLUMNS)))
    rows[:, 0] = times
    if angles is not None:
        rows[:, 1] = angles
    run.series.buffer.append(rows)
    run.frames.extend(frame(t) for t in rows[:, 0])
    run.latest_frame = run.frames[-1]
    return run


def main_samples(window) -> np.ndarray:
    return window.samples()[1]


def wait_for_samples(qtbot, window, count: int, timeout: int = 20000) -> np.ndarray:
    qtbot.waitUntil(lambda: len(main_samples(window)) >= count or bool(window.last_error), timeout=timeout)
    assert not window.last_error, window.last_error
    return main_samples(window)


def settled_sample_count(qtbot, window, quiet_ms: int = 300, timeout_s: float = 10.0) -> int:
    """The window's sample count once it has not changed for `quiet_ms` (batches already on their way from a
    run process arrive late on a loaded machine); fails if it keeps changing for `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    count = len(window.samples()[1])
    while time.monotonic() < deadline:
        qtbot.wait(quiet_ms)
        now = len(window.samples()[1])
        if now == count:
            return count
        count = now
    raise AssertionError(f"the sample count still changed after {timeout_s} s ({count})")


def after_first_samples(window, delay_ms: int, then, wait_s: float = 60.0) -> None:
    """Call `then` `delay_ms` after the window's run has its first samples (the first runs fork once the run
    modules are loaded, gui/runs/warm_up.py: seconds on a loaded machine), or after `wait_s` without them."""
    from PySide6.QtCore import QTimer

    waited = time.monotonic()

    def check() -> None:
        if len(window.samples()[1]) >= 2 or time.monotonic() - waited > wait_s:
            QTimer.singleShot(delay_ms, then)
        else:
            QTimer.singleShot(50, check)

    check()


def run_fast(window) -> None:
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()


def relative_energy_drift(window) -> float:
    columns, rows = window.samples()
    energy = rows[:, columns.index("E")]
    scale = max(abs(energy[0]), rows[0, columns.index("T")] + abs(rows[0, columns.index("V")]), 1e-12)
    return float(np.max(np.abs(energy - energy[0])) / scale)


def isolated_settings():
    """A QSettings in a fresh temporary folder: a script the tests start never reads or writes the
    developer's settings (arrows switched on, plots chosen)."""
    import os
    import tempfile

    from PySide6.QtCore import QSettings

    return QSettings(os.path.join(tempfile.mkdtemp(prefix="eomlab-settings-"), "eomlab.ini"), QSettings.IniFormat)


#: the part every window script run in a process of its own shares (after its imports of sys,
#: time and QApplication): the application, the window class and spin(seconds), which runs the
#: event loop for that long
WINDOW_SCRIPT_START = r"""
app = QApplication(sys.argv[:1])
from eomlab.engine.presets import preset
from eomlab.gui.main_window import MainWindow

def spin(seconds):
    end = time.time() + seconds
    while time.time() < end:
        app.processEvents()
        time.sleep(0.01)
"""


def x_display_command() -> list[str] | None:
    """How to run a command on an X display: [] when DISPLAY is set, xvfb-run otherwise."""
    if os.environ.get("DISPLAY"):
        return []
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"]
    return None


def run_gl_script(script: str, *args: str, timeout: float = 240) -> dict:
    """Run a window script on a real X display (not offscreen) from the project's root; it must end
    cleanly with no GL error, and its last printed line is its result as JSON."""
    import json
    import subprocess
    import sys

    import project_paths  # tests/ is on pytest's path; the window scripts that import this module run without it

    root = str(project_paths.ROOT)
    env = dict(os.environ, PYTHONPATH=root)
    env.pop("QT_QPA_PLATFORM", None)  # a real display, not offscreen
    command = x_display_command() + [sys.executable, "-c", script, *args]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "GLError" not in done.stderr and "Error while drawing" not in done.stderr, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
