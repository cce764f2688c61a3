"""Recordings and figures: the mechanism view (or the whole window) as GIF or MP4, the scene as
PNG/SVG.

The File menu records GIF or MP4 (start, then the same action stops), of the mechanism view alone
(the default: what a slide needs) or of the whole window, at the view's native resolution and the
frame rate chosen under "Recording options" (both remembered). A red "● REC" in the status bar
and the window title shows while it records; neither is in the picture. The grabbing and the
encoders are in `gui.video`. Where imageio-ffmpeg is missing, the MP4 action stays in the menu and
says why when hovered or chosen.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QObject, QRect, QRectF
from PySide6.QtGui import QAction, QActionGroup, QPainter
from PySide6.QtWidgets import QFileDialog, QLabel

from eomlab.gui.video import DEFAULT_FPS, FRAME_RATES, FrameRecorder, GifWriter, Mp4Writer, mp4_unavailable_reason

#: what a recording shows: the mechanism view, or the window without its status bar
TARGETS = {"view": "The mechanism view", "window": "The whole window"}
FPS_KEY, TARGET_KEY = "recording/fps", "recording/target"


def recorded_region(window, target: str):
    """A callable grabbing what a recording shows: the mechanism view (the scene stack, so the
    compare tiles too), or the window down to its status bar (which holds the REC indicator)."""
    if target == "view":
        return lambda: window.scene_stack.grab()
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

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Close and self.recording:
            self.stop()
        return False

    @property
    def recording(self) -> bool:
        return self.recorder is not None and self.recorder.recording

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
        self.recorder = FrameRecorder(recorded_region(self.window, self.target), writer, self.fps, duration, self)
        self.recorder.tick.connect(self._show_progress)
        self.recorder.finished.connect(self._written)
        self.recorder.failed.connect(lambda message: self.window.show_problem("Recording failed", message))
        self.recorder.finished.connect(lambda *_: self._indicate(False))
        self.recorder.failed.connect(lambda *_: self._indicate(False))
        self._indicate(True)
        self.recorder.start()
        what = TARGETS[self.target].lower()
        self.window.statusBar().showMessage(f"Recording {what} as {kind.upper()} at {self.fps} fps… "
                                            f"(the same menu entry, or F9 for GIF, stops)", 5000)
        return True

    def stop(self) -> int:
        """Stop and write the file; returns the number of frames."""
        if self.recorder is None:
            return 0
        frames = self.recorder.stop()
        self._indicate(False)
        return frames

    def start_gif(self, path: str | None = None, duration: float | None = None) -> bool:
        return self.start("gif", path, duration)

    def stop_gif(self) -> int:
        return self.stop()

    def toggle(self, kind: str) -> None:
        self.stop() if self.recording else self.start(kind)

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
        why = mp4_unavailable_reason()
        tip = why or "H.264 video (imageio-ffmpeg's ffmpeg) of the view, at its size and the chosen frame rate"
        self.mp4_action.setToolTip(tip)
        self.mp4_action.setStatusTip(tip)
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
