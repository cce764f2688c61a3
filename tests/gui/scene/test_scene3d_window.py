"""The 3-D view is a native GL child window (gui/scene/scene3d_view.py, issue #25): the main window holds
no QOpenGLWidget (which made Qt compose the whole window through OpenGL at every update), the
mouse on the GL window still orbits the camera and right-click opens the view's menu once, a
Shift + press on it reaches the drag's event filter, and the window's and the view's grabs show
the GL picture and its clock, as the screen shows it."""
from __future__ import annotations

import pytest

from gui_helpers import run_gl_script
from gui_helpers import WINDOW_SCRIPT_START

SCRIPT = r"""
import json, sys, time
from PySide6.QtCore import QCoreApplication, QObject, QEvent, QPoint, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtOpenGL import QOpenGLWindow
from PySide6.QtOpenGLWidgets import QOpenGLWidget
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)  # as gui/app.py
""" + WINDOW_SCRIPT_START + r"""
window = MainWindow(preset("heavy_top"), run=False, settings=QSettings(sys.argv[1], QSettings.IniFormat))
window.confirm_discard = lambda: True
window.resize(1200, 800)
window.show()
spin(1.0)
scene = window.scene
view = scene.view
menus = []

class Menu:
    def exec(self, _where):
        menus.append(1)

scene.view_menu = lambda parent: Menu()

class Presses(QObject):  # as gui/scene/drag.py watches the scene
    seen = []
    def eventFilter(self, obj, event):
        if event.type() == QEvent.MouseButtonPress:
            self.seen.append(int(event.modifiers() & Qt.ShiftModifier != Qt.NoModifier))
        return False

presses = Presses()
scene.installEventFilter(presses)
azimuth = scene.opts["azimuth"]
QTest.mousePress(view, Qt.LeftButton, Qt.NoModifier, QPoint(200, 150))
QTest.mouseMove(view, QPoint(260, 150))
QTest.mouseMove(view, QPoint(320, 150))
QTest.mouseRelease(view, Qt.LeftButton, Qt.NoModifier, QPoint(320, 150))
turned = scene.opts["azimuth"] != azimuth
QTest.mouseClick(view, Qt.RightButton, Qt.NoModifier, QPoint(200, 150))
QTest.mouseClick(view, Qt.LeftButton, Qt.ShiftModifier, QPoint(5, 5))
spin(0.3)

def colours(image, x0, y0, w, h):
    return len({image.pixel(x, y) for x in range(x0, x0 + w, 7) for y in range(y0, y0 + h, 7)})

corner = scene.mapTo(window, QPoint(0, 0))
at = scene.mapToGlobal(QPoint(0, 0))
shot = window.grab().toImage()
own = scene.grab().toImage()
grid = [(x, y) for x in range(0, own.width(), 5) for y in range(0, own.height(), 5)]

def screen_same():  # what X shows, the native GL window's pixels too, against the view's own picture
    on_screen = app.primaryScreen().grabWindow(0).toImage()
    return sum(on_screen.pixel(at.x() + x, at.y() + y) == own.pixel(x, y) for x, y in grid) / len(grid)

shown = screen_same()
for _ in range(25):  # software GL on a loaded machine may not have put the turned view on screen yet
    if shown >= 0.95:
        break
    spin(0.2)
    shown = screen_same()
clock = colours(own, 0, 0, 160, 40)  # the clock's text over the background
print(json.dumps(dict(
    gl_widgets=sum(isinstance(w, QOpenGLWidget) for w in QApplication.allWidgets()),
    gl_windows=sum(isinstance(w, QOpenGLWindow) for w in QGuiApplication.allWindows()),
    turned=turned, user_camera=scene.user_camera, menus=len(menus), presses=presses.seen,
    window_colours=colours(shot, corner.x(), corner.y(), scene.width(), scene.height()),
    view_colours=colours(own, 0, 0, own.width(), own.height()), clock_colours=clock,
    screen_same=shown,
    same=[shot.pixel(corner.x() + x, corner.y() + y) == own.pixel(x, y) for x, y in ((30, 30), (300, 200))])))
window.close()
"""


@pytest.mark.xvfb
def test_the_3d_view_is_a_native_gl_window_that_still_takes_the_mouse_and_shows_in_grabs(tmp_path):
    r = run_gl_script(SCRIPT, str(tmp_path / "settings.ini"))
    assert r["gl_widgets"] == 0 and r["gl_windows"] == 1, r  # the window itself stays raster
    assert r["turned"] and r["user_camera"], r  # a drag on the GL window orbits
    assert r["menus"] == 1, r  # one right-click, one menu
    assert r["presses"] == [0, 0, 1], r  # left, right, Shift + left: every press reaches the filters
    assert r["view_colours"] >= 10 and r["window_colours"] >= 10, r  # ground, grid, the top: not blank
    assert r["clock_colours"] >= 3, r  # the clock drawn over the background
    assert all(r["same"]), r  # the window's grab holds the view's picture where the view is
    # and the screen shows that picture: with no depth buffer in the GL window's format the solids'
    # faces showed through one another on screen while the grabs (an FBO with one) looked right
    assert r["screen_same"] >= 0.95, r
