"""Recordings and figures: the mechanism with its plots as an animated GIF, the scene as PNG/SVG.

`GifRecorder` grabs a region of the window (the scene and the plots dock) at a fixed frame rate
from a QTimer on the GUI thread, keeps each frame as a small palette image (Pillow) and writes
them as one looping GIF on stop. MP4 would need Qt Multimedia, which PySide6-Essentials does
not ship: the menu action says so and stays disabled where the module does not import.
"""
from __future__ import annotations

import importlib.util
import os
import time

from PIL import Image
from PySide6.QtCore import QObject, QRect, QRectF, QTimer, Signal
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QFileDialog

#: frames per second of a recording
GIF_FPS = 12
#: frames wider than this are scaled down (GIFs of a full window get large quickly)
GIF_MAX_WIDTH = 960
MP4_UNAVAILABLE = ("MP4 needs Qt Multimedia (the PySide6-Addons package), which is not installed here; "
                   "record a GIF instead")


def multimedia_available() -> bool:
    try:
        return importlib.util.find_spec("PySide6.QtMultimedia") is not None
    except (ImportError, ValueError):
        return False


def to_pillow(image: QImage, max_width: int = GIF_MAX_WIDTH) -> Image.Image:
    """A QImage as a Pillow RGB image, at most `max_width` wide."""
    image = image.convertToFormat(QImage.Format_RGB888)
    if image.width() > max_width:
        image = image.scaledToWidth(max_width)
        image = image.convertToFormat(QImage.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    data = bytes(image.constBits())[: stride * height]
    return Image.frombuffer("RGB", (width, height), data, "raw", "RGB", stride, 1).copy()


class GifRecorder(QObject):
    """Records `grab()` (a callable returning a QImage or QPixmap) at `fps` until stopped."""

    started = Signal()
    stopped = Signal(str, int)  # path, frames

    def __init__(self, grab, fps: int = GIF_FPS, parent=None):
        super().__init__(parent)
        self.grab = grab
        self.fps = fps
        self.frames: list[Image.Image] = []
        self.times: list[float] = []  # wall time of each frame: a slow grab must not speed the GIF up
        self.timer = QTimer(self)
        self.timer.setInterval(round(1000 / fps))
        self.timer.timeout.connect(self.capture)

    @property
    def recording(self) -> bool:
        return self.timer.isActive()

    def start(self) -> None:
        self.frames, self.times = [], []
        self.capture()
        self.timer.start()
        self.started.emit()

    def capture(self) -> None:
        picture = self.grab()
        image = picture.toImage() if hasattr(picture, "toImage") else picture
        self.times.append(time.perf_counter())
        # a palette per frame now, so that stop() only writes
        self.frames.append(to_pillow(image).quantize(colors=255, method=Image.Quantize.FASTOCTREE))

    def stop(self, path: str) -> int:
        """Stop and write the GIF; returns the number of frames."""
        self.timer.stop()
        frames, self.frames = self.frames, []
        if not frames:
            return 0
        period = 1.0 / self.fps
        ends = self.times[1:] + [self.times[-1] + period]
        durations = [max(20, round(1000 * (b - a))) for a, b in zip(self.times, ends)]
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0,
                       optimize=False, disposal=1)
        self.stopped.emit(path, len(frames))
        return len(frames)


def mechanism_and_plots(window) -> QRect:
    """The part of the window a recording shows: the scene and the plots dock (and the compare
    dock when it is open), in window coordinates."""
    region = window.scene_stack.geometry()
    for dock in (window.plots_dock, getattr(getattr(window, "compare_view", None), "dock", None)):
        if dock is not None and dock.isVisible():
            region = region.united(dock.geometry())
    return region


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
        self.gif = GifRecorder(lambda: window.grab(mechanism_and_plots(window)), parent=self)
        self.path = ""

    def start_gif(self, path: str | None = None) -> None:
        self.path = path or ""
        self.gif.start()
        self.window.statusBar().showMessage("Recording a GIF… (F9 stops)")

    def stop_gif(self, path: str | None = None) -> int:
        path = path or self.path or self._ask_path("Save the recording", "GIF (*.gif)", ".gif")
        if not path:
            self.gif.timer.stop()
            self.gif.frames = []
            return 0
        frames = self.gif.stop(path)
        self.window.statusBar().showMessage(f"Wrote {frames} frames ({frames / self.gif.fps:.1f} s) to {path}", 8000)
        return frames

    def toggle_gif(self) -> None:
        self.stop_gif() if self.gif.recording else self.start_gif()

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
        """Into the File menu: the scene exports and the MP4 action (disabled without Qt Multimedia)."""
        from PySide6.QtGui import QAction

        menu.addSeparator()
        for kind in ("png", "svg"):
            action = QAction(f"Export mechanism as {kind.upper()}…", self.window)
            action.triggered.connect(lambda _c=False, k=kind: self.export_scene_dialog(k))
            menu.addAction(action)
        self.mp4_action = QAction("Record MP4…", self.window)
        self.mp4_action.setObjectName("action_record_mp4")
        if not multimedia_available():
            self.mp4_action.setEnabled(False)
            self.mp4_action.setToolTip(MP4_UNAVAILABLE)
            self.mp4_action.setStatusTip(MP4_UNAVAILABLE)
        else:  # not written yet: the module exists but no encoder is wired up
            self.mp4_action.setEnabled(False)
            self.mp4_action.setToolTip("MP4 recording is not implemented yet; record a GIF instead")
        menu.addAction(self.mp4_action)
        menu.setToolTipsVisible(True)
