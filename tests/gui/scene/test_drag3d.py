"""Dragging in the 3-D view (gui/scene/drag.py, OpenGL on a real X display): Shift + drag poses the
paused mechanism towards the mouse (one undo step), a plain drag still turns the camera."""
from __future__ import annotations

import pytest

from gui_helpers import run_gl_script
from gui_helpers import WINDOW_SCRIPT_START

SCRIPT = r"""
import json, sys, time
import numpy as np
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
""" + WINDOW_SCRIPT_START + r"""
window = MainWindow(preset("spatial_chain"), run=False, settings=QSettings(sys.argv[1], QSettings.IniFormat))
window.confirm_discard = lambda: True
window.resize(1400, 900)
window.show()
spin(1.5)
window.redraw.redraw_all()
scene = window.scene
scene.user_camera = True  # the camera stays put: pixels before and after compare
drag = next(d for d in window.drags if d.scene is scene)
last = len(scene.frame.mass_centres) - 1
start = drag.view.pixel(scene.frame.mass_centres)[last]
target = start + np.array([60.0, -40.0])
QTest.mousePress(scene, Qt.LeftButton, Qt.ShiftModifier, QPoint(*map(int, start)))
for k in range(1, 5):
    QTest.mouseMove(scene, QPoint(*map(int, start + (target - start) * k / 4)))
    spin(0.05)
QTest.mouseRelease(scene, Qt.LeftButton, Qt.ShiftModifier, QPoint(*map(int, target)))
spin(0.8)
window.redraw.redraw_all()
now = drag.view.pixel(scene.frame.mass_centres)[last]
posed = window.document.undo_stack.count()
azimuth = scene.opts["azimuth"]
QTest.mousePress(scene, Qt.LeftButton, Qt.NoModifier, QPoint(200, 200))
QTest.mouseMove(scene, QPoint(320, 200))
QTest.mouseRelease(scene, Qt.LeftButton, Qt.NoModifier, QPoint(320, 200))
spin(0.2)
print(json.dumps({"start": list(start), "target": list(target), "now": list(now), "posed": posed,
                  "undo_after_orbit": window.document.undo_stack.count(), "turned": scene.opts["azimuth"] != azimuth}))
window.close()
"""


@pytest.mark.xvfb
def test_shift_drag_poses_the_mechanism_and_a_plain_drag_turns_the_camera(tmp_path):
    result = run_gl_script(SCRIPT, str(tmp_path / "settings.ini"))
    gap = lambda p: sum((a - b) ** 2 for a, b in zip(p, result["target"])) ** 0.5  # noqa: E731
    assert result["posed"] == 1
    assert gap(result["now"]) < 0.25 * gap(result["start"])  # the grabbed point came to the mouse
    assert result["turned"] and result["undo_after_orbit"] == 1
