"""Recordings and figures: GIF and MP4 of the mechanism view (or the window) read back, scene and plot exports."""
from __future__ import annotations

import time

import pytest
from gui_helpers import wait_for_samples
from PIL import Image
from PySide6.QtSvg import QSvgRenderer

from eomlab.engine.presets import preset
from eomlab.gui.runs.run_thread import AS_FAST_AS_POSSIBLE
from eomlab.gui.actions.video import mp4_unavailable_reason


@pytest.mark.parametrize("kind", ["mp4", "gif"])
def test_recording_reads_back_with_the_frames_and_resolution_asked(qtbot, make_window, tmp_path, kind):
    """One second at 20 fps of the double pendulum's view: 20 frames (the MP4 has them all; the
    GIF merges repeated pictures but lasts exactly 1 s), at the view's own size."""
    window = make_window(preset("double_compound_pendulum"), run=True)
    wait_for_samples(qtbot, window, 2)
    recording = window.recording
    recording.set_fps(20)
    path = tmp_path / f"run.{kind}"
    assert recording.start(kind, str(path), duration=1.0)
    assert recording.recording and recording.indicator.isVisible()
    assert window.windowTitle().startswith("● REC")
    qtbot.waitUntil(lambda: not recording.recording, timeout=10000)
    assert recording.stop() == 20
    assert not recording.indicator.isVisible() and not window.windowTitle().startswith("● REC")
    width, height = window.scene_stack.width(), window.scene_stack.height()
    if kind == "mp4":
        import imageio_ffmpeg

        reader = imageio_ffmpeg.read_frames(str(path))
        meta = next(reader)
        frames = sum(1 for _ in reader)
        assert frames == 20
        assert tuple(meta["size"]) == (width // 2 * 2, height // 2 * 2)
        assert meta["fps"] == pytest.approx(20)
    else:
        with Image.open(path) as gif:
            assert gif.size == (width, height)
            assert 2 <= gif.n_frames <= 20 and gif.info["loop"] == 0
            total = 0
            for i in range(gif.n_frames):
                gif.seek(i)
                total += gif.info["duration"]
            assert total == 1000  # 20 frames of 50 ms, the first not held


def test_whole_window_recording_leaves_out_the_status_bar(qtbot, make_window, tmp_path):
    window = make_window(preset("simple_pendulum"), run=True)
    recording = window.recording
    recording.set_target("window")
    recording.set_fps(10)
    assert recording.start("gif", str(tmp_path / "window.gif"), duration=0.3)
    qtbot.waitUntil(lambda: not recording.recording, timeout=10000)
    recording.stop()
    with Image.open(tmp_path / "window.gif") as gif:
        assert gif.size == (window.width(), window.statusBar().geometry().top())
    assert window.settings_store.value("recording/target") == "window"


def test_scene_and_plot_figures_as_svg_and_png(qtbot, make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=0.3), run=True)
    wait_for_samples(qtbot, window, 10)
    window.redraw.mark_dirty()
    window.redraw.tick()
    from eomlab.gui.actions.recording import export_scene

    export_scene(window, str(tmp_path / "scene.svg"))
    export_scene(window, str(tmp_path / "scene.png"))
    window.files.export_plot("energy", str(tmp_path / "energy.svg"))
    for name in ("scene.svg", "energy.svg"):
        renderer = QSvgRenderer(str(tmp_path / name))
        assert renderer.isValid(), name
        assert renderer.defaultSize().width() > 100
    assert "<path" in (tmp_path / "scene.svg").read_text() or "<polyline" in (tmp_path / "scene.svg").read_text()
    with Image.open(tmp_path / "scene.png") as png:
        assert png.size[0] > 200


def test_mp4_action_says_why_when_the_encoder_is_missing(make_window, monkeypatch, tmp_path):
    import eomlab.gui.actions.recording as recording_module

    why = "MP4 needs the imageio-ffmpeg package (pip install imageio-ffmpeg), which is not installed"
    monkeypatch.setattr(recording_module, "mp4_unavailable_reason", lambda: why)
    window = make_window(preset("simple_pendulum"))
    action = window.recording.mp4_action
    window.menuBar().actions()[0].menu().aboutToShow.emit()  # the File menu opens: ffmpeg is asked then
    assert action.isEnabled() and action.toolTip() == why
    assert not window.recording.start("mp4", str(tmp_path / "x.mp4"))
    assert window.last_error == why and not (tmp_path / "x.mp4").exists()
    assert window.binding_actions["record"].shortcut().toString() == "F9"


def test_mp4_encoder_ships_with_the_package():
    assert mp4_unavailable_reason() == ""


def test_closing_the_window_finishes_the_recording(qtbot, make_window, tmp_path):
    window = make_window(preset("simple_pendulum"), run=True)
    recording = window.recording
    recording.set_fps(10)
    assert recording.start("mp4", str(tmp_path / "closed.mp4"))
    qtbot.waitUntil(lambda: recording.recorder.frames >= 1, timeout=10000)  # 300 ms got none on a loaded machine
    window.close()
    assert not recording.recording
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(tmp_path / "closed.mp4"))
    next(reader)
    assert sum(1 for _ in reader) == recording.recorder.frames >= 1


def gif_frames(path) -> int:
    """Frames in a GIF file: Pillow merges a picture equal to the one before into it, so these are
    the distinct frames."""
    with Image.open(path) as gif:
        return gif.n_frames


@pytest.mark.parametrize("speed", [1.0, AS_FAST_AS_POSSIBLE])
def test_a_recording_has_a_distinct_frame_at_every_instant_whatever_the_speed(qtbot, make_window, tmp_path, speed):
    """1.5 s of simulated time at 20 fps from the dense output: 30 frames, each a different pose,
    at the pace of the wall clock and as fast as the machine integrates alike."""
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=1e5), run=True)
    window.set_speed(speed)
    qtbot.waitUntil(lambda: window.session.cursor_time() > 0.2, timeout=10000)  # swinging fast enough
    recording = window.recording
    recording.set_fps(20)
    path = tmp_path / "instants.gif"
    assert recording.start("gif", str(path), duration=1.5)
    qtbot.waitUntil(lambda: not recording.busy, timeout=30000)  # the file written
    assert recording.recorder.frames == 30 and not recording.recorder.error
    assert gif_frames(path) == 30
    assert window.session.cursor_time() >= recording.t0 + 29 / 20 - 1e-9


def test_a_recording_lasts_the_models_t_end_unless_told(qtbot, make_window, tmp_path):
    window = make_window(preset("simple_pendulum").with_settings(t_end=0.5), run=True)
    window.set_speed(AS_FAST_AS_POSSIBLE)
    recording = window.recording
    recording.set_fps(10)
    assert recording.start("gif", str(tmp_path / "t_end.gif"))
    qtbot.waitUntil(lambda: not recording.busy, timeout=30000)  # the file written
    assert recording.recorder.frames == 5


def test_stopping_an_mp4_recording_after_a_reset_finishes_the_file(qtbot, make_window, tmp_path):
    """Issue #31: Record MP4, Reset (a run's process forked while ffmpeg's pipe is open), wait
    1.5 s, stop. The forked run held ffmpeg's standard input open, ffmpeg never ended and stop()
    waited for it for good; stop() now waits at most video.STOP_WAIT and would say so."""
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5), run=True)
    recording = window.recording
    recording.set_fps(10)
    path = tmp_path / "reset.mp4"
    assert recording.start("mp4", str(path))
    qtbot.waitUntil(lambda: recording.recorder.frames >= 2, timeout=10000)  # ffmpeg runs
    window.run_actions.reset()
    window.run()
    qtbot.wait(1500)
    started = time.monotonic()
    frames = recording.stop()
    assert time.monotonic() - started < 2.0  # the stop the issue asks for: within 2 s, not STOP_WAIT's 20
    assert recording.recorder.error == "" and frames >= 2
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    next(reader)
    assert sum(1 for _ in reader) == frames


def test_closing_the_window_while_recording_mp4_after_a_reset_finishes_the_file(qtbot, make_window, tmp_path):
    """Issue #31: the same fork of a run holding ffmpeg's standard input froze the window at close.
    Record MP4, Reset, run 1.5 s, close: the window closes within 2 s and the file is complete."""
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5), run=True)
    recording = window.recording
    recording.set_fps(10)
    path = tmp_path / "close.mp4"
    assert recording.start("mp4", str(path))
    qtbot.waitUntil(lambda: recording.recorder.frames >= 2, timeout=10000)
    window.run_actions.reset()
    window.run()
    qtbot.wait(1500)
    started = time.monotonic()
    window.close()  # closing finishes the file being recorded (Recording.eventFilter)
    assert time.monotonic() - started < 2.0
    assert not recording.recording and recording.recorder.error == ""
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    next(reader)
    assert sum(1 for _ in reader) == recording.recorder.frames


def test_each_recording_lets_the_one_before_go(qtbot, make_window, tmp_path):
    """The soak test (issue 31): every recording's encoder (its finished thread, queue and writer)
    stayed a child of the window for good. Only the latest is kept, for its figures."""
    from eomlab.gui.actions.video import FrameRecorder

    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5), run=True)
    recording = window.recording
    recording.set_fps(10)
    for k in range(4):
        assert recording.start("gif", str(tmp_path / f"r{k}.gif"))
        qtbot.waitUntil(lambda: recording.recorder.frames >= 1, timeout=10000)
        recording.stop()
        qtbot.wait(50)  # the one before goes at the next turn of the event loop
    assert recording.findChildren(FrameRecorder) == [recording.recorder] and recording.recorder.frames >= 1


def test_stopping_from_the_menu_lets_the_window_go_on_while_ffmpeg_finishes(qtbot, make_window, tmp_path):
    """Issue #31 (the soak's stalls of 2.1–2.8 s): File ▸ Stop recording MP4 joined the encoder
    thread on the GUI thread while ffmpeg wrote the end of the file. The menu's stop now returns
    at once (the file is reported through `finished` from a later turn of the event loop, never
    inside the call) and the file is complete when it is reported."""
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5), run=True)
    recording = window.recording
    recording.set_fps(10)
    path = tmp_path / "menu.mp4"
    recording._ask_path = lambda *_a: str(path)
    recording.mp4_action.trigger()
    assert recording.recording
    ended = []
    recording.recorder.finished.connect(lambda p, frames: ended.append(frames))
    recording.recorder.failed.connect(lambda message: ended.append(message))
    qtbot.waitUntil(lambda: recording.recorder.frames >= 3, timeout=15000)
    recording.mp4_action.trigger()  # the same entry, now "Stop recording MP4"
    assert not recording.recording and ended == []  # not waited for inside the call
    assert "Finishing" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: bool(ended), timeout=25000)
    assert ended == [recording.recorder.frames] and recording.recorder.frames >= 3
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    next(reader)
    assert sum(1 for _ in reader) == recording.recorder.frames
    assert "Wrote" in window.statusBar().currentMessage()


def test_a_slow_encoder_never_holds_the_window_and_every_instant_is_recorded(qtbot, make_window, tmp_path,
                                                                           monkeypatch):
    """Issue 31's soak and monkey: with the encoder behind (ffmpeg on a loaded machine) the GUI
    thread waited in the queue's put for 7.5 s, and grabbing four 3-D frames a tick held it 17 s.
    The window now grabs only while the encoder's queue has room and within a tick's budget; the
    instants wait, so the file still has one frame per 1/fps of simulated time."""
    import threading

    from eomlab.gui.actions import video

    release = threading.Event()
    written = []

    class HeldWriter:
        path, size = str(tmp_path / "held.gif"), None

        def write(self, rgb, repeats):
            release.wait(60)
            written.append(rgb.shape)

        def close(self):
            pass

    window = make_window(preset("double_compound_pendulum").with_settings(t_end=1e5), run=True)
    window.set_speed(AS_FAST_AS_POSSIBLE)
    recording = window.recording
    recording.set_fps(20)
    recording._ask_path = lambda *_a: HeldWriter.path
    import eomlab.gui.actions.recording as recording_module

    monkeypatch.setattr(recording_module, "GifWriter", lambda path, fps: HeldWriter())
    assert recording.start("gif", duration=2.0)
    # the encoder takes one picture and holds it: the queue fills, then the window grabs no more
    full = video.QUEUE_FRAMES + 1  # one in the encoder's hands, the queue full
    qtbot.waitUntil(lambda: not recording.recorder.has_room and recording.recorder.frames == full, timeout=30000)
    for _ in range(10):
        window.redraw.tick()  # returns: no put waits for the encoder
    assert recording.recorder.frames == full
    release.set()
    qtbot.waitUntil(lambda: not recording.busy, timeout=60000)
    assert recording.recorder.frames == 40 and len(written) == 40 and not recording.recorder.error
