"""Recordings and figures: the mechanism view (or the whole window) as GIF or MP4, the scene as
PNG/SVG.

The File menu records GIF or MP4 (start, then the same action stops), of the mechanism view alone
(the default: what a slide needs) or of the whole window, at the view's native resolution and the
frame rate chosen under "Recording options" (both remembered). A recording is a fixed stretch of
simulated time (the model's t_end unless given) from the instant shown: frame k is the mechanism
at t0 + k / fps, posed from the run's dense output (the runs send a pose at each of those
instants, gui/runs/run_thread.py), so its frames are as many and as distinct however fast the machine
integrates; a recording waits for a slow run, a fast run waits for nothing (its poses are kept
until drawn). A red "● REC" in the status bar and the window title shows while it records;
neither is in the picture. The encoders are in `gui.actions.video`. Where imageio-ffmpeg is missing, the
MP4 action stays in the menu and says why when hovered or chosen.
"""
from __future__ import annotations

import math
import time
import os

from PySide6.QtCore import QEvent, QObject, QRect, QRectF
from PySide6.QtGui import QAction, QActionGroup, QPainter
from PySide6.QtWidgets import QFileDialog, QLabel

from eomlab.gui.actions.video import DEFAULT_FPS, FRAME_RATES, FrameRecorder, GifWriter, Mp4Writer, mp4_unavailable_reason

#: frames a recording grabs per redraw tick at most (a run ahead of it waits in `pending`)
GRABS_PER_TICK = 4
#: seconds of grabbing a tick may spend beyond its first frame (the 3-D view in software GL at
#: full size took seconds a frame on a loaded machine, and four of them held the window 17 s)
GRAB_BUDGET_S = 0.05
#: what a recording shows: the mechanism view, or the window without its status bar
TARGETS = {"view": "The mechanism view", "window": "The whole window"}
FPS_KEY, TARGET_KEY = "recording/fps", "recording/target"


def recorded_region(window, target: str):
    """A callable grabbing what a recording shows: the mechanism view (the scene stack, so the
    compare tiles too), or the window down to its status bar (which holds the REC indicator)."""
    if target == "view":
        return lambda: window.scene_stack.currentWidget().grab()  # the 3-D view's grab paints its GL in
    return lambda: window.grab(QRect(0, 0, window.width(), window.statusBar().geometry().top()))


def export_scene(window, path: str) -> None:
    """The mechanism as PNG (a picture of the view) or SVG (vector for the 2-D scene; the 3-D
    view is a raster picture inside the SVG)."""
    scene = window.scene_stack.currentWidget()
    if not path.lower().endswith(".svg"):
        if not scene.grab().save(path):
            raise OSError(f"cannot write {path}")
        return
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setTitle("eomlab mechanism")
    generator.setDescription(window.model.name)
    size = scene.size()
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    painter = QPainter(generator)
    try:
        graphics_scene = getattr(scene, "scene", None)
        if callable(graphics_scene) and hasattr(scene, "getPlotItem"):  # a pyqtgraph view: vector
            painter.fillRect(QRectF(0, 0, size.width(), size.height()), scene.backgroundBrush())
            scene.scene().render(painter, QRectF(0, 0, size.width(), size.height()), scene.sceneRect())
        else:  # GL or tiles: paint what the widget shows
            painter.drawPixmap(0, 0, scene.grab())
    finally:
        painter.end()


class Recording(QObject):
    """The window's File-menu actions for recordings and figures."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.recorder: FrameRecorder | None = None
        self.kind = ""
        self.indicator = QLabel("")
        self.indicator.setObjectName("recording_indicator")
        self.indicator.setStyleSheet("color: white; background: #c62828; font-weight: bold; padding: 1px 8px;")
        self.indicator.hide()
        window.statusBar().addPermanentWidget(self.indicator)
        settings = window.settings_store
        self.fps = int(settings.value(FPS_KEY, DEFAULT_FPS))
        self.target = str(settings.value(TARGET_KEY, "view"))
        if self.fps not in FRAME_RATES:
            self.fps = DEFAULT_FPS
        if self.target not in TARGETS:
            self.target = "view"
        window.installEventFilter(self)  # closing the window finishes the file being recorded
        self.t0 = 0.0  # the simulated instant of the first frame
        self.pending: dict[int, dict[int, object]] = {}  # frame index → {run index: pose} sent, not yet drawn
        self._seen: list[float] = []  # per run: the latest pose looked at
        self.session = window.session
        self.session.advanced.connect(self._take_poses)
        self.session.runs_started.connect(self._runs_started)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Close and self.busy:
            self.stop()  # and wait for the file
        return False

    @property
    def recording(self) -> bool:
        return self.recorder is not None and self.recorder.recording

    @property
    def busy(self) -> bool:
        """Recording, or its encoder still finishing the file."""
        return self.recorder is not None and (self.recorder.recording or self.recorder.finishing)

    # --- starting and stopping -----------------------------------------------------------------

    def start(self, kind: str, path: str | None = None, duration: float | None = None) -> bool:
        """Record `kind` ("gif" or "mp4") to `path` (asked when None); True if it started."""
        if self.recording:
            self.stop()
        if kind == "mp4" and (why := mp4_unavailable_reason()):
            self.window.show_problem("Cannot record MP4", why)
            return False
        path = path or self._ask_path("Record to", "GIF (*.gif)" if kind == "gif" else "MP4 video (*.mp4)",
                                      "." + kind)
        if not path:
            return False
        writer = GifWriter(path, self.fps) if kind == "gif" else Mp4Writer(path, self.fps)
        self.kind = kind
        duration = self.window.model.settings.t_end if duration is None else duration
        self.grab = recorded_region(self.window, self.target)
        if self.recorder is not None:  # the last recording's, kept until now for its figures
            self.recorder.stop(wait=True)  # an encoder still finishing its file ends first
            self.recorder.deleteLater()
        self.recorder = FrameRecorder(writer, self.fps, duration, self)
        self.recorder.tick.connect(self._show_progress)
        self.recorder.finished.connect(self._written)
        self.recorder.failed.connect(lambda message: self.window.show_problem("Recording failed", message))
        self.recorder.finished.connect(lambda *_: self._indicate(False))
        self.recorder.failed.connect(lambda *_: self._indicate(False))
        self.recorder.finished.connect(lambda *_: self._tell_runs(None))
        self.recorder.failed.connect(lambda *_: self._tell_runs(None))
        self._indicate(True)
        self.recorder.start()
        self._from(self.session.cursor_time())
        self.window.redraw.before_draw = self._catch_up
        what = TARGETS[self.target].lower()
        self.window.statusBar().showMessage(f"Recording {what} as {kind.upper()}: {duration:g} s of simulated "
                                            f"time at {self.fps} fps… (the same menu entry, or F9 for GIF, "
                                            "stops)", 5000)
        return True

    # --- the frames: the runs' poses at t0 + k / fps ------------------------------------------------

    def _from(self, t0: float) -> None:
        """Frames at t0 + k / fps (a start, or fresh runs after a Reset), from the first instant
        every run sends on (a run may have integrated past the instant shown)."""
        self.t0, self.next_frame = t0, None
        self.pending.clear()
        # the poses sent from now on (a fresh run's from its first)
        self._seen = [run.latest_shown if run.latest_shown is not None else -math.inf for run in self.session.runs]
        self._tell_runs(self.fps)

    def _tell_runs(self, fps) -> None:
        for run in self.session.runs:
            run.thread.record(fps, self.t0)

    def _runs_started(self) -> None:
        if self.recording:
            self._from(0.0)

    def _index_of(self, t: float) -> int | None:
        k = round((t - self.t0) * self.fps)
        return k if k >= (self.next_frame or 0) and abs(t - (self.t0 + k / self.fps)) < 1e-9 else None

    def _take_poses(self) -> None:
        """Keep the poses the runs sent at the recording's instants until they are drawn (a run as
        fast as possible sends them faster than they can be drawn)."""
        if not self.recording:
            return
        for i, run in enumerate(self.session.runs[:len(self._seen)]):
            new = []
            for frame in reversed(run.frames):
                if frame.t <= self._seen[i]:
                    break
                new.append(frame)
            if new:
                self._seen[i] = new[0].t
            for frame in new:
                k = self._index_of(frame.t)
                if k is not None and (self.recorder.limit is None or len(self.pending) <= self.recorder.limit):
                    self.pending.setdefault(k, {})[i] = frame

    def _catch_up(self) -> None:
        """Before a tick's picture: draw and grab the frames whose poses every run has sent, as many as
        the tick's budget and the encoder's queue allow (the rest at the next ticks: a recording holds
        every instant, and the window never waits for the encoder)."""
        runs = self.session.runs
        started = time.monotonic()
        for grabbed in range(GRABS_PER_TICK):
            if not self.recording or not self.recorder.has_room:  # the encoder behind: the instants wait
                return
            if grabbed and time.monotonic() - started > GRAB_BUDGET_S:
                return
            poses = self.pending.get(self.next_frame) if self.next_frame is not None else None
            if poses is None or len(poses) < len(runs):
                # an instant every run had passed before it was asked for never comes: go on from
                # the first one every run sent (at the start, or past a Reset)
                later = [k for k, p in self.pending.items() if len(p) == len(runs)
                         and (self.next_frame is None or k > self.next_frame)]
                t = self.t0 + (self.next_frame or 0) / self.fps
                if not later or (self.next_frame is not None
                                 and not all((run.latest_shown or -math.inf) > t + 1e-9 for run in runs)):
                    return
                self.next_frame = min(later)
                self.pending = {k: p for k, p in self.pending.items() if k >= self.next_frame}
                poses = self.pending[self.next_frame]
            del self.pending[self.next_frame]
            t = self.t0 + self.next_frame / self.fps
            self.window.redraw.draw_frames(t, [(run, poses[i]) for i, run in enumerate(runs)])
            self.recorder.add(self.grab())
            self.next_frame += 1

    def stop(self, wait: bool = True) -> int:
        """Stop and write the file; returns the number of frames. Without `wait` the window goes on
        while the encoder finishes the file (the status bar says when it is written)."""
        if self.recorder is None:
            return 0
        self._tell_runs(None)
        frames = self.recorder.stop(wait)
        self._indicate(False)
        if self.recorder.finishing:
            self.window.statusBar().showMessage(f"Finishing {self.recorder.writer.path}…", 20000)
        return frames

    def start_gif(self, path: str | None = None, duration: float | None = None) -> bool:
        return self.start("gif", path, duration)

    def stop_gif(self) -> int:
        return self.stop()

    def toggle(self, kind: str) -> None:
        self.stop(wait=False) if self.recording else self.start(kind)

    def toggle_gif(self) -> None:
        self.toggle("gif")

    def _indicate(self, on: bool) -> None:
        self.indicator.setVisible(on)
        self.indicator.setText(f"● REC {self.kind.upper()}")
        title = self.window.windowTitle().removeprefix("● REC — ")
        self.window.setWindowTitle(f"● REC — {title}" if on else title)
        for kind, action in getattr(self, "record_actions", {}).items():
            action.setText(f"Stop recording {kind.upper()}" if on and kind == self.kind else f"Record {kind.upper()}…")

    def _show_progress(self, seconds: float) -> None:
        self.indicator.setText(f"● REC {self.kind.upper()} {int(seconds) // 60}:{int(seconds) % 60:02d}")

    def _written(self, path: str, frames: int) -> None:
        size = ""
        writer = self.recorder.writer if self.recorder is not None else None
        if getattr(writer, "size", None):
            size = f", {writer.size[0]}×{writer.size[1]}"
        self.window.statusBar().showMessage(f"Wrote {frames} frames ({frames / self.fps:.1f} s at {self.fps} fps"
                                            f"{size}) to {path}", 10000)

    # --- options ---------------------------------------------------------------------------------

    def set_fps(self, fps: int) -> None:
        self.fps = int(fps)
        self.window.settings_store.setValue(FPS_KEY, self.fps)

    def set_target(self, target: str) -> None:
        self.target = target
        self.window.settings_store.setValue(TARGET_KEY, target)

    # --- figures -----------------------------------------------------------------------------------

    def export_scene_dialog(self, kind: str) -> None:
        path = self._ask_path("Export the mechanism", "PNG (*.png)" if kind == "png" else "SVG (*.svg)", "." + kind)
        if path:
            try:
                export_scene(self.window, path)
            except Exception as error:  # noqa: BLE001 - shown, not raised
                self.window.show_problem("Could not export", f"{path}: {error}")
                return
            self.window.statusBar().showMessage(f"Wrote {path}", 8000)

    def _ask_path(self, title: str, file_filter: str, suffix: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self.window, title, os.getcwd(), file_filter)
        if path and not path.lower().endswith(suffix):
            path += suffix
        return path

    def describe_mp4(self) -> None:
        """The MP4 action's tooltip: what it writes, or why it cannot."""
        why = mp4_unavailable_reason()
        tip = why or "H.264 video (imageio-ffmpeg's ffmpeg) of the view, at its size and the chosen frame rate"
        self.mp4_action.setToolTip(tip)
        self.mp4_action.setStatusTip(tip)

    def add_actions(self, menu) -> None:
        """Into the File menu: the scene exports, GIF and MP4 recording and their options."""
        menu.addSeparator()
        for kind in ("png", "svg"):
            action = QAction(f"Export mechanism as {kind.upper()}…", self.window)
            action.triggered.connect(lambda _c=False, k=kind: self.export_scene_dialog(k))
            menu.addAction(action)
        self.record_actions = {}
        for kind in ("gif", "mp4"):
            action = QAction(f"Record {kind.upper()}…", self.window)
            action.setObjectName(f"action_record_{kind}")
            action.triggered.connect(lambda _c=False, k=kind: self.toggle(k))
            menu.addAction(action)
            self.record_actions[kind] = action
        self.mp4_action = self.record_actions["mp4"]
        # whether ffmpeg runs is asked when the menu opens, not while the window is made: the check starts
        # the ffmpeg binary (0.1–0.3 s) and would hold back the window's first frame
        menu.aboutToShow.connect(self.describe_mp4)
        options = menu.addMenu("Recording options")
        targets = QActionGroup(options)
        for key, text in TARGETS.items():
            action = QAction(text, options, checkable=True, checked=key == self.target)
            action.triggered.connect(lambda _c=False, k=key: self.set_target(k))
            targets.addAction(action)
            options.addAction(action)
        options.addSeparator()
        rates = QActionGroup(options)
        for fps in FRAME_RATES:
            action = QAction(f"{fps} frames per second", options, checkable=True, checked=fps == self.fps)
            action.triggered.connect(lambda _c=False, f=fps: self.set_fps(f))
            rates.addAction(action)
            options.addAction(action)
        menu.setToolTipsVisible(True)
