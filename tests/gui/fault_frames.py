"""Child process of test_faults (a real X display): the window on a double pendulum of 1e12 kg,
run for RUN_MS of wall time, printing how long each frame of the mechanism took (placing the
pose, then painting it on the screen) and the intervals between frames (the 1e12 kg marker once
froze the window for 29 s); then a 3-D model orbited far under its ground, printing the camera's
height above the ground.

    PYTHONPATH=tests:tests/gui xvfb-run -a -s "-screen 0 1600x1000x24" python tests/gui/fault_frames.py
"""
from __future__ import annotations

import gc
import json
import os
import sys
import time

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import QApplication
from thread_time import run_queue_wait

#: wall time the heavy pendulum runs, and the frames before it that do not count (start-up)
RUN_MS, WARM_UP_FRAMES = 3000, 3
START_WAIT_S = 60.0  # at most this long for the run's first samples


class FrameTimes:
    """Time of each frame of the mechanism (the scene's show_frame plus the redraw's paint): its wall time, and
    that less the GUI thread's wait for a core (the machine's load, not the frame's cost)."""

    def __init__(self, window):
        self.durations: list[float] = []
        self.own: list[float] = []
        self.ends: list[float] = []
        self._begin = self._queued = 0.0
        scene, redraw = window.scene2d, window.redraw
        show_frame, paint_now = scene.show_frame, redraw._paint_now

        def timed_show(frame):
            self._begin, self._queued = time.perf_counter(), run_queue_wait()
            show_frame(frame)

        def timed_paint(widget):
            paint_now(widget)
            end = time.perf_counter()
            self.durations.append(end - self._begin)
            self.own.append(end - self._begin - (run_queue_wait() - self._queued))
            self.ends.append(end)

        scene.show_frame, redraw._paint_now = timed_show, timed_paint  # the redraw calls them on the instances


def main() -> None:
    QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication(sys.argv[:1])
    from eomlab.gui.app import collect_garbage_on_the_gui_thread

    # the window as `eomlab gui` sets it up (gui/app.py run_gui): garbage collected by a timer on the GUI
    # thread, what lives as long as the process frozen out of the collector's sight. Without them a full
    # collection over every module's objects (140-260 ms) fell inside a frame now and then
    collect_garbage_on_the_gui_thread(app)
    from eomlab.engine.modelfile import model_from_dict, model_to_dict
    from eomlab.engine.presets import preset
    from eomlab.gui.main_window import MainWindow

    from gui_helpers import after_first_samples, isolated_settings

    data = model_to_dict(preset("double_compound_pendulum"))
    for body in data["bodies"]:
        body["mass"] = float(os.environ.get("FAULT_MASS", "1e12"))  # within the limits; inertia follows
        body.pop("inertia", None)
    model = model_from_dict(data)
    window = MainWindow(model, None, run=True, settings=isolated_settings())
    gc.freeze()
    window.confirm_discard = lambda: True
    window.show()
    frames = FrameTimes(window)
    report = {}

    def heavy_done() -> None:
        durations, ends = frames.durations[WARM_UP_FRAMES:], frames.ends[WARM_UP_FRAMES:]
        own = frames.own[WARM_UP_FRAMES:]
        gaps = [b - a for a, b in zip(ends, ends[1:])]
        report["frames"] = len(durations)
        report["worst_frame_ms"] = 1000 * max(durations) if durations else None
        report["worst_own_frame_ms"] = 1000 * max(own) if own else None
        report["worst_gap_ms"] = 1000 * max(gaps) if gaps else None
        report["mass_marker_px"] = float(window.scene2d.mass_centres.sizes.max())
        window.stop_runs()
        window.edits.load_model(preset("heavy_top"), None, "3-D")
        QTimer.singleShot(1500, orbit_low)

    def orbit_low() -> None:
        scene = window.scene3d
        report["gl"] = scene is not None and window.scene is scene
        if report["gl"]:
            for _ in range(40):  # far under the ground, as a student dragging the view down would
                scene.orbit(3.0, -10.0)
            report["camera_above_floor"] = scene.cameraPosition().z() - scene.floor_z
            report["elevation"] = scene.opts["elevation"]
            window.grab().save(sys.argv[1]) if len(sys.argv) > 1 else None
            window.presentation.enter(size=(1280, 800))  # hinges and links grow with the fonts
            report["presentation_hinge_px"] = float(scene.hinges.size)
            report["presentation_link_px"] = float(scene.links.width)
            window.presentation.leave()
            report["normal_hinge_px"] = float(scene.hinges.size)
        print(json.dumps(report), flush=True)
        window.close()
        app.quit()

    after_first_samples(window, RUN_MS, heavy_done, START_WAIT_S)  # the clock starts with the run's samples
    app.exec()


if __name__ == "__main__":
    main()
