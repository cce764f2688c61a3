"""Faults (issue 25, item 5): marker sizes and arrow lengths capped in pixels, a 1e12 kg mechanism
drawn with no frame over 100 ms, |g| never negative, the 3-D camera above its ground, round-off
not drawn as arrows, Esc leaves presentation mode, and in presentation the markers grow with the
fonts while the trail stays thinner than the links."""
from __future__ import annotations

import project_paths
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QVector3D

from eomlab.engine.modelfile import model_from_dict, model_to_dict
from eomlab.engine.presets import preset
from eomlab.engine.simulation import initial_frame
from eomlab.gui.arrows.arrow_sets import ArrowSet
from eomlab.gui.arrows.arrows_draw import LONGEST_ARROW_SHARE, FlatArrows, above_noise, capped, noise_floors
from eomlab.gui.scene.camera3d import keep_above
from eomlab.gui.scene.geometry import MAX_MASS_MARKER_PX, drawing
from eomlab.gui.scene.markers import MAX_SIZE_PX, Markers
from eomlab.gui.actions.presentation import NORMAL_FONT_PX, PRESENTATION_FONT_PX
from eomlab.gui.scene.scene2d import HINGE_PX, Scene2D

from gui_helpers import x_display_command

ROOT = str(project_paths.ROOT)
FRAMES = str(project_paths.GUI_SCRIPTS / "fault_frames.py")


def _heavy(mass: float):
    data = model_to_dict(preset("double_compound_pendulum"))
    for body in data["bodies"]:
        body["mass"] = mass
        body.pop("inertia", None)
    return model_from_dict(data)


def test_mass_markers_are_capped_in_pixels(qtbot):
    model = _heavy(1e12)  # within the limits: 7 + 5·∛m was a 50,000 px marker
    frame = initial_frame(model)
    sizes = drawing(model, frame.rotations, frame.origins, frame.mass_centres).mass_sizes
    assert np.all(sizes == MAX_MASS_MARKER_PX)
    light = drawing(_heavy(1.0), frame.rotations, frame.origins, frame.mass_centres).mass_sizes
    assert np.all(light == 12.0)  # 1 kg as before
    markers = Markers("o")
    markers.setData([0.0], [0.0], size=[1e6])
    assert markers.sizes.max() == MAX_SIZE_PX
    markers.setSize(1e9)
    assert markers.size == MAX_SIZE_PX
    scene = Scene2D()
    qtbot.addWidget(scene)
    scene.resize(400, 300)
    scene.set_model(model)
    scene.show_frame(frame)
    scene.grab()  # painted: every picture a marker made is small
    assert scene.mass_centres._sprites and max(key[0] for key in scene.mass_centres._sprites) <= MAX_SIZE_PX


@pytest.mark.xvfb
def test_a_1e12_kg_mechanism_draws_no_frame_over_100_ms_and_the_3d_camera_stays_above_ground(tmp_path):
    """Measured on a real X window (fault_frames.py): each frame of the mechanism (its pose placed
    and painted) within the issue's 100 ms of the GUI thread's own time — 5 to 8 ms alone, 8 to 43 ms
    at load 3.6; its wall time, which counts the waits for a core, reached 119 ms in a full suite on 2
    cores — and no interval between frames over 500 ms (generous: the machine is shared; the 50,000 px
    marker froze the window for 29 s). Then the heavy top orbited 400° downwards."""
    command = x_display_command()
    if command is None:
        pytest.skip("needs an X display")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(project_paths.GUI_SCRIPTS), str(project_paths.ROOT / "tests")]))
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(command + [sys.executable, FRAMES, str(tmp_path / "orbit.png")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["frames"] >= 20 and report["mass_marker_px"] == MAX_MASS_MARKER_PX, report
    assert report["worst_own_frame_ms"] <= 100, report
    assert report["worst_gap_ms"] <= 500, report
    if report["gl"]:
        assert report["camera_above_floor"] > 0, report
        scale = PRESENTATION_FONT_PX / NORMAL_FONT_PX
        assert report["presentation_hinge_px"] == pytest.approx(10 * scale) and report["normal_hinge_px"] == 10, report
        assert report["presentation_link_px"] == pytest.approx(3 * scale), report


def test_the_camera_is_lifted_above_the_ground():
    opts = {"center": QVector3D(0, 0, 1.0), "distance": 10.0, "elevation": -60.0}
    assert keep_above(opts, floor_z=0.0, clearance=0.1)
    assert opts["elevation"] == pytest.approx(np.degrees(np.arcsin(-0.09)))  # 1 + 10 sin(el) = 0.1
    opts = {"center": QVector3D(0, 0, -5.0), "distance": 2.0, "elevation": 10.0}  # panned under the ground
    assert keep_above(opts, floor_z=0.0, clearance=0.1)
    assert opts["center"].z() == pytest.approx(0.1) and opts["elevation"] >= 0.0
    opts = {"center": QVector3D(0, 0, 1.0), "distance": 10.0, "elevation": 30.0}
    assert not keep_above(opts, floor_z=0.0, clearance=0.1) and opts["elevation"] == 30.0


def test_a_negative_g_reverses_gravity_and_is_said_in_words(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(t_end=1e5))
    window.run()
    qtbot.waitUntil(lambda: bool(window.runs) and window.runs[0].series is not None, timeout=20000)
    _, _, field = window.parameter_panel.rows["gravity"]
    field.setText("-5")
    field.editingFinished.emit()
    assert window.runs[0].model.gravity == pytest.approx((0.0, 5.0, 0.0))
    assert field.text() == "5"  # |g| is a length
    message = window.statusBar().currentMessage()
    assert "reverses the direction" in message and "|g| = 5" in message and "+y" in message
    window.document.undo_stack.undo()
    assert window.runs[0].model.gravity == pytest.approx((0.0, -9.81, 0.0)) and field.text() == "9.81"


class _Scales:
    def per_pixel(self, key, pixels):
        return 1.0  # one unit a pixel


def test_round_off_is_not_drawn_as_arrows_and_arrows_are_capped(qtbot):
    model = preset("simple_pendulum")
    floors = noise_floors(model)
    assert 1e-9 < floors["N·m"] < 1e-7 and floors["N"] < 1e-7  # 1e-9 of m·g·l and m·g
    noisy = ArrowSet(points=np.zeros((2, 3)), vectors=np.array([[0, -9.81, 0], [3e-17, 0, 0]]),
                     couple_points=np.zeros((1, 3)), couples=np.array([[0, 0, 2e-17]]))
    kept = above_noise(noisy, "constraint", floors)
    assert len(kept.vectors) == 1 and len(kept.couples) == 0
    assert np.allclose(capped(np.array([[300.0, 400.0], [3.0, 4.0]]), 50.0), [[30, 40], [3, 4]])

    scene = Scene2D()
    qtbot.addWidget(scene)
    scene.resize(500, 400)
    scene.show()
    scene.set_model(model)
    scene.show_frame(initial_frame(model))
    arrows = FlatArrows(scene)
    couples_only = ArrowSet(couple_points=np.zeros((1, 3)), couples=np.array([[0, 0, 2e-17]]))
    arrows.draw({"constraint": couples_only}, _Scales())
    lines, arcs = arrows.items["constraint"][0]
    assert not arcs.isVisible()  # "couples 2e-17 N·m" drew an arc
    huge = ArrowSet(points=np.zeros((1, 3)), vectors=np.array([[1e9, 0, 0]]))
    arrows.draw({"applied": huge}, _Scales())
    x, _y = arrows.items["applied"][0][0].getData()
    px = scene.getPlotItem().getViewBox().viewPixelSize()[0]
    assert np.nanmax(np.abs(x)) <= LONGEST_ARROW_SHARE * arrows.drawn_pixels * px * 1.0001


def test_esc_leaves_presentation_and_markers_grow_with_the_fonts(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    scene = window.scene2d
    def drawn():
        window.redraw.tick()
        return scene.frame is not None
    qtbot.waitUntil(drawn, timeout=20000)
    normal_sizes = scene.mass_centres.sizes.copy()
    assert not window.presentation.leave_action.isEnabled()  # Esc is the widgets' own outside presentation
    window.presentation.enter(size=(1280, 800))
    scale = PRESENTATION_FONT_PX / NORMAL_FONT_PX
    assert scene.hinges.size == pytest.approx(HINGE_PX * scale)
    assert np.allclose(scene.mass_centres.sizes, normal_sizes * scale)
    link, trail = scene.links.opts["pen"].widthF(), scene.trail.opts["pen"].widthF()
    assert trail < link and scene.rods.opts["pen"].widthF() > link
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=10000)  # the key goes to the active window
    qtbot.keyClick(window, Qt.Key_Escape)
    assert not window.presentation.active
    assert scene.hinges.size == HINGE_PX and np.allclose(scene.mass_centres.sizes, normal_sizes)
    assert not window.presentation.leave_action.isEnabled()
