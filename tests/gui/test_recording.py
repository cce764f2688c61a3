"""Recordings and figures: a 3-second GIF of the mechanism and its plots, scene and plot exports."""
from __future__ import annotations

from gui_helpers import wait_for_samples
from PIL import Image
from PySide6.QtSvg import QSvgRenderer

from eomlab.engine.presets import preset
from eomlab.gui.recording import MP4_UNAVAILABLE, multimedia_available


def test_three_second_gif_reads_back_with_its_frames(qtbot, make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum"), run=True)
    wait_for_samples(qtbot, window, 2)
    path = tmp_path / "run.gif"
    recording = window.recording
    recording.start_gif(str(path))
    assert recording.gif.recording
    qtbot.wait(3000)
    frames = recording.stop_gif()
    assert not recording.gif.recording and frames >= 20
    with Image.open(path) as gif:
        assert 1 < gif.n_frames <= frames  # Pillow merges identical neighbours
        assert gif.info["loop"] == 0
        total = 0
        for i in range(gif.n_frames):
            gif.seek(i)
            total += gif.info["duration"]
        assert 2700 <= total <= 3600  # three seconds of motion, at the pace it was recorded
        assert gif.size[0] <= 960 and gif.size[1] > 200


def test_scene_and_plot_figures_as_svg_and_png(qtbot, make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=0.3), run=True)
    wait_for_samples(qtbot, window, 10)
    window.redraw.mark_dirty()
    window.redraw.tick()
    from eomlab.gui.recording import export_scene

    export_scene(window, str(tmp_path / "scene.svg"))
    export_scene(window, str(tmp_path / "scene.png"))
    window.export_plot("energy", str(tmp_path / "energy.svg"))
    for name in ("scene.svg", "energy.svg"):
        renderer = QSvgRenderer(str(tmp_path / name))
        assert renderer.isValid(), name
        assert renderer.defaultSize().width() > 100
    assert "<path" in (tmp_path / "scene.svg").read_text() or "<polyline" in (tmp_path / "scene.svg").read_text()
    with Image.open(tmp_path / "scene.png") as png:
        assert png.size[0] > 200


def test_mp4_action_says_why_it_is_disabled(make_window):
    window = make_window(preset("simple_pendulum"))
    action = window.recording.mp4_action
    if not multimedia_available():
        assert not action.isEnabled() and action.toolTip() == MP4_UNAVAILABLE
    assert window.binding_actions["record"].shortcut().toString() == "F9"
