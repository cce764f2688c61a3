"""Recording a widget as a GIF or an MP4 at its native resolution and a chosen frame rate.

`FrameRecorder` takes one picture per frame from the GUI thread (gui/actions/recording.py draws the
mechanism at each instant t0 + k / fps of the run's dense output and hands the picture over) and
gives it to an encoder thread, so that quantising (GIF, Pillow) or piping to ffmpeg (MP4,
imageio-ffmpeg's own binary) never holds up the window. A recording so has one frame per 1 / fps
of simulated time however fast the machine integrates.

ffmpeg ends when its standard input closes. A run's process forked while it records would inherit
the write end of that pipe and keep it open, and ffmpeg would never end (the window waited for
it for good on a Reset during a recording): a forked child closes the encoders' pipes at once.
"""
from __future__ import annotations

import os
import queue
import threading
import time

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

#: frame rates offered; the default
FRAME_RATES = (10, 15, 20, 25, 30, 50)
DEFAULT_FPS = 25
#: pictures waiting for the encoder at most (a 1920×1080 picture holds 6 MB): while they are
#: waiting the window grabs no more (`has_room`) and the frames' instants wait their turn
QUEUE_FRAMES = 16
#: seconds `FrameRecorder.stop` waits for the encoder to finish the file before it gives up on it
STOP_WAIT = 20.0
#: milliseconds between looks at an encoder finishing its file while the window goes on
FINISH_POLL_MS = 50
#: the file descriptors of the pipes to running encoders, closed in every forked child
_ENCODER_PIPES: set[int] = set()


def _close_encoder_pipes_in_child() -> None:
    for fd in list(_ENCODER_PIPES):
        try:
            os.close(fd)
        except OSError:
            pass
    _ENCODER_PIPES.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_encoder_pipes_in_child)


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
        from PIL import Image  # loaded when a GIF is recorded, not with the window

        self.image = Image
        self.path, self.fps = path, fps
        self.frames: list = []  # PIL images
        self.repeats: list[int] = []

    def write(self, rgb: np.ndarray, repeats: int) -> None:
        image = self.image
        self.frames.append(image.fromarray(rgb).quantize(colors=255, method=image.Quantize.FASTOCTREE))
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
        self._fds: list[int] = []

    def write(self, rgb: np.ndarray, repeats: int) -> None:
        if self.pipe is None:
            import imageio_ffmpeg

            height, width = rgb.shape[0] // 2 * 2, rgb.shape[1] // 2 * 2
            self.size = (width, height)
            self.pipe = imageio_ffmpeg.write_frames(self.path, self.size, fps=self.fps, codec="libx264",
                                                    quality=8, macro_block_size=1,
                                                    output_params=["-preset", "veryfast"])
            self.pipe.send(None)  # start ffmpeg
            # its pipes (the generator's Popen `p`): no forked child may hold them (module docstring)
            process = (self.pipe.gi_frame.f_locals if self.pipe.gi_frame is not None else {}).get("p")
            self._fds = [f.fileno() for f in (getattr(process, "stdin", None), getattr(process, "stdout", None))
                         if f is not None]
            _ENCODER_PIPES.update(self._fds)
        width, height = self.size
        frame = np.ascontiguousarray(_fit(rgb, height, width))
        for _ in range(repeats):
            self.pipe.send(frame)

    def close(self) -> None:
        if self.pipe is not None:
            _ENCODER_PIPES.difference_update(self._fds)
            self.pipe.close()


def _fit(rgb: np.ndarray, height: int, width: int) -> np.ndarray:
    """Cut or pad (white) to height × width: the widget may change size while recording."""
    out = np.full((height, width, 3), 255, dtype=np.uint8)
    h, w = min(height, rgb.shape[0]), min(width, rgb.shape[1])
    out[:h, :w] = rgb[:h, :w]
    return out


class FrameRecorder(QObject):
    """Records pictures (QImage or QPixmap, one per frame, `add`) into `writer` at `fps` until
    `stop()` (or `duration` seconds of frames). Signals: ``finished(path, frames)`` once the file
    is written, ``failed(message)`` when the encoder gave up."""

    finished = Signal(str, int)
    failed = Signal(str)
    tick = Signal(float)  # seconds recorded so far, for an indicator

    def __init__(self, writer, fps: int, duration: float | None = None, parent=None):
        super().__init__(parent)
        self.writer, self.fps = writer, fps
        self.limit = None if duration is None else max(1, round(duration * fps))
        self.frames = 0
        self.error = ""
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        self._thread = threading.Thread(target=self._encode, name="eomlab-recorder", daemon=True)
        self._active = False
        self._poll: QTimer | None = None  # looks whether the encoder has finished (`stop(wait=False)`)
        self._deadline = 0.0
        self._reported = False

    @property
    def recording(self) -> bool:
        return self._active

    @property
    def wanted(self) -> bool:
        """Whether it takes another frame."""
        return self._active and (self.limit is None or self.frames < self.limit)

    @property
    def has_room(self) -> bool:
        """Whether a picture can be handed to the encoder without waiting for it."""
        return not self._queue.full()

    def start(self) -> None:
        self._thread.start()
        self._active = True

    def add(self, picture) -> None:
        """The next frame; the recording stops by itself after its `duration`."""
        if not self.wanted:
            return
        if self.error:
            self.stop(wait=False)
            return
        image = picture.toImage() if hasattr(picture, "toImage") else picture
        self._queue.put((to_rgb(image), 1))
        self.frames += 1
        self.tick.emit(self.frames / self.fps)
        if self.limit is not None and self.frames >= self.limit:
            self.stop(wait=False)  # called while the window draws: it must not wait for ffmpeg

    @property
    def finishing(self) -> bool:
        """Stopped, the encoder still writing the end of the file."""
        return not self._active and self._poll is not None

    def stop(self, wait: bool = True) -> int:
        """Stop taking frames; returns the number of frames. With `wait` it lets the encoder finish
        the file here (at most `STOP_WAIT` s); without, the window goes on (ffmpeg takes a second or
        more to end an MP4) and ``finished``/``failed`` come once the file is done."""
        if not self._active:
            if wait and self._poll is not None:
                self._report(self._deadline - time.monotonic())
            return self.frames
        self._active = False
        self._queue.put(None)
        self._deadline = time.monotonic() + STOP_WAIT
        if wait:
            self._report(STOP_WAIT)
        else:
            self._poll = QTimer(self)
            self._poll.timeout.connect(self._look)
            self._poll.start(FINISH_POLL_MS)
        return self.frames

    def _look(self) -> None:
        if not self._thread.is_alive() or time.monotonic() > self._deadline:
            self._report(0.0)

    def _report(self, wait_s: float) -> None:
        """Wait up to `wait_s` for the encoder, then say how the file ended (once)."""
        if self._poll is not None:
            self._poll.stop()
            self._poll.deleteLater()
            self._poll = None
        elif self._reported:
            return
        self._thread.join(max(0.0, wait_s))
        self._reported = True
        if self._thread.is_alive():  # never freeze the window on an encoder that does not end
            self.error = self.error or f"the encoder did not finish {self.writer.path} within {STOP_WAIT:g} s"
        if self.error:
            self.failed.emit(self.error)
        else:
            self.finished.emit(self.writer.path, self.frames)

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

