"""Recording a widget as a GIF or an MP4 at its native resolution and a chosen frame rate.

`FrameRecorder` grabs a picture on a QTimer in the GUI thread and hands it to an encoder thread,
so that quantising (GIF, Pillow) or piping to ffmpeg (MP4, imageio-ffmpeg's own binary) never
holds up the window. Frames are laid on a fixed clock: frame k shows the widget at k / fps seconds
after the start. When the window was too busy to grab at a tick, the last picture stands for the
missed ticks (the GIF lengthens that frame, the MP4 repeats it), so a recording plays at the pace
it was made and holds no frame longer than it was on screen.
"""
from __future__ import annotations

import math
import queue
import threading
import time

import numpy as np
from PIL import Image
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QImage

#: frame rates offered; the default
FRAME_RATES = (10, 15, 20, 25, 30, 50)
DEFAULT_FPS = 25
#: pictures waiting for the encoder at most (then the GUI thread waits for it)
QUEUE_FRAMES = 64


def mp4_unavailable_reason() -> str:
    """'' when MP4 can be written, else why not (one line for a tooltip or the status bar)."""
    try:
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()
    except ImportError:
        return "MP4 needs the imageio-ffmpeg package (pip install imageio-ffmpeg), which is not installed"
    except RuntimeError as error:  # installed without a usable ffmpeg binary
        return f"MP4 needs an ffmpeg binary: {error}"
    return ""


def to_rgb(image: QImage) -> np.ndarray:
    """A QImage as an (h, w, 3) uint8 array (a copy)."""
    image = image.convertToFormat(QImage.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    rows = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height).reshape(height, stride)
    return rows[:, :3 * width].reshape(height, width, 3).copy()


class GifWriter:
    """Palette frames kept in memory, written as one looping GIF at the end."""

    def __init__(self, path: str, fps: int):
        self.path, self.fps = path, fps
        self.frames: list[Image.Image] = []
        self.repeats: list[int] = []

    def write(self, rgb: np.ndarray, repeats: int) -> None:
        self.frames.append(Image.fromarray(rgb).quantize(colors=255, method=Image.Quantize.FASTOCTREE))
        self.repeats.append(repeats)

    def close(self) -> None:
        if not self.frames:
            return
        durations = [round(1000 * n / self.fps) for n in self.repeats]
        self.frames[0].save(self.path, save_all=True, append_images=self.frames[1:], duration=durations, loop=0,
                            optimize=False, disposal=1)


class Mp4Writer:
    """H.264 through imageio-ffmpeg's ffmpeg; the size is fixed by the first frame, cut to even
    numbers of pixels (4:2:0 chroma needs them)."""

    def __init__(self, path: str, fps: int):
        self.path, self.fps = path, fps
        self.size: tuple[int, int] | None = None
        self.pipe = None

    def write(self, rgb: np.ndarray, repeats: int) -> None:
        if self.pipe is None:
            import imageio_ffmpeg

            height, width = rgb.shape[0] // 2 * 2, rgb.shape[1] // 2 * 2
            self.size = (width, height)
            self.pipe = imageio_ffmpeg.write_frames(self.path, self.size, fps=self.fps, codec="libx264",
                                                    quality=8, macro_block_size=1,
                                                    output_params=["-preset", "veryfast"])
            self.pipe.send(None)  # start ffmpeg
        width, height = self.size
        frame = np.ascontiguousarray(_fit(rgb, height, width))
        for _ in range(repeats):
            self.pipe.send(frame)

    def close(self) -> None:
        if self.pipe is not None:
            self.pipe.close()


def _fit(rgb: np.ndarray, height: int, width: int) -> np.ndarray:
    """Cut or pad (white) to height × width: the widget may change size while recording."""
    out = np.full((height, width, 3), 255, dtype=np.uint8)
    h, w = min(height, rgb.shape[0]), min(width, rgb.shape[1])
    out[:h, :w] = rgb[:h, :w]
    return out


class FrameRecorder(QObject):
    """Records `grab()` (a QImage or QPixmap) into `writer` at `fps` until `stop()` (or for
    `duration` seconds). Signals: ``finished(path, frames)`` once the file is written,
    ``failed(message)`` when the encoder gave up."""

    finished = Signal(str, int)
    failed = Signal(str)
    tick = Signal(float)  # seconds recorded so far, for an indicator

    def __init__(self, grab, writer, fps: int, duration: float | None = None, parent=None):
        super().__init__(parent)
        self.grab, self.writer, self.fps = grab, writer, fps
        self.limit = None if duration is None else max(1, round(duration * fps))
        self.frames = 0  # frames laid down (repeats included)
        self.error = ""
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        self._thread = threading.Thread(target=self._encode, name="eomlab-recorder", daemon=True)
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.PreciseTimer)
        self.timer.setInterval(max(1, round(1000 / fps)))
        self.timer.timeout.connect(self.capture)
        self.start_time = 0.0

    @property
    def recording(self) -> bool:
        return self.timer.isActive()

    def start(self) -> None:
        self._thread.start()
        self.start_time = time.perf_counter()
        self.timer.start()
        self.capture()  # the first frame now: nothing waits at the start

    def capture(self) -> None:
        """Grab now and lay the picture down for every tick up to now."""
        due = math.floor((time.perf_counter() - self.start_time) * self.fps) + 1
        if self.limit is not None:
            due = min(due, self.limit)
        if due <= self.frames:
            return
        if self.error:
            self.stop()
            return
        picture = self.grab()
        image = picture.toImage() if hasattr(picture, "toImage") else picture
        self._queue.put((to_rgb(image), due - self.frames))
        self.frames = due
        self.tick.emit(self.frames / self.fps)
        if self.limit is not None and self.frames >= self.limit:
            self.stop()

    def stop(self) -> int:
        """Stop, let the encoder finish the file; returns the number of frames."""
        if not self._thread.is_alive():
            return self.frames
        self.timer.stop()
        self._queue.put(None)
        self._thread.join()
        if self.error:
            self.failed.emit(self.error)
        else:
            self.finished.emit(self.writer.path, self.frames)
        return self.frames

    def _encode(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                break
            if self.error:
                continue  # drain
            try:
                self.writer.write(*item)
            except Exception as error:  # noqa: BLE001 - reported through `failed`
                self.error = f"could not write {self.writer.path}: {error}"
        try:
            self.writer.close()
        except Exception as error:  # noqa: BLE001
            self.error = self.error or f"could not finish {self.writer.path}: {error}"
