"""The mechanism drawn in 3-D with pyqtgraph.opengl (needs a real OpenGL context: an X display or
Xvfb; `opengl_available()` says whether to use it or the 2-D projection fallback)."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QGuiApplication

from eomlab.gui.geometry import drawing, reach, up_basis

#: platforms without an OpenGL surface: the window draws 3-D models with the 2-D projection there
_NO_GL_PLATFORMS = ("offscreen", "minimal", "vnc", "linuxfb")


def opengl_available() -> bool:
    if QGuiApplication.platformName() in _NO_GL_PLATFORMS:
        return False
    try:
        import OpenGL.GL  # noqa: F401
        import pyqtgraph.opengl  # noqa: F401
    except Exception:
        return False
    return True


def _segments(polylines: list[np.ndarray]) -> np.ndarray:
    """Polylines as consecutive point pairs for GL 'lines' mode."""
    pairs = [np.repeat(line, 2, axis=0)[1:-1] for line in polylines if len(line) >= 2]
    return np.concatenate(pairs) if pairs else np.zeros((0, 3))


def make_scene3d(parent=None):
    """Build the GL view lazily so importing this module never needs OpenGL."""
    import pyqtgraph.opengl as gl

    class Scene3D(gl.GLViewWidget):
        def __init__(self, parent=None):
            super().__init__(parent)
            self.setObjectName("scene3d")
            self.setBackgroundColor((250, 250, 250, 255))
            self.model = None
            self.frame = None
            self.grid = gl.GLGridItem(color=(0, 0, 0, 40))
            self.addItem(self.grid)
            self.axes = gl.GLAxisItem()
            self.addItem(self.axes)
            self.links = gl.GLLinePlotItem(mode="lines", color=(0.3, 0.3, 0.3, 1), width=1.5, antialias=True)
            self.outlines = gl.GLLinePlotItem(mode="lines", color=(0.17, 0.36, 0.54, 1), width=2.5, antialias=True)
            self.rods = gl.GLLinePlotItem(mode="lines", color=(0.17, 0.36, 0.54, 1), width=7, antialias=True)
            self.hinges = gl.GLScatterPlotItem(color=(0.1, 0.1, 0.1, 1), size=8)
            self.mass_centres = gl.GLScatterPlotItem(color=(0.95, 0.56, 0.17, 1), size=12)
            for item in (self.links, self.outlines, self.rods, self.hinges, self.mass_centres):
                item.setGLOptions("translucent")
                self.addItem(item)

        def set_model(self, model, planar=None) -> None:
            self.model = model
            self.frame = None
            self.to_view = up_basis(model.gravity)  # GL draws z up: turn 'against gravity' to z
            r = reach(model)
            self.grid.setSize(2 * r, 2 * r)
            self.grid.setSpacing(r / 5, r / 5)
            self.axes.setSize(r / 4, r / 4, r / 4)
            self.setCameraPosition(distance=3.0 * r, elevation=22, azimuth=-60)
            self._centred = False

        def show_frame(self, frame) -> None:
            if self.model is None or frame is None:
                return
            self.frame = frame
            turn = self.to_view
            picture = drawing(self.model, turn @ frame.rotations, frame.origins @ turn.T,
                              frame.mass_centres @ turn.T)
            self.rods.setData(pos=_segments(picture.rods))
            self.links.setData(pos=_segments(picture.links))
            self.outlines.setData(pos=_segments(picture.outlines))
            if not self._centred and len(picture.points()):
                # look at the middle of the mechanism (a hanging chain lies below the floor grid)
                from pyqtgraph import Vector

                self.setCameraPosition(pos=Vector(*picture.points().mean(axis=0)))
                self._centred = True
            hinges = np.concatenate([picture.hinges, picture.ground_hinges])
            self.hinges.setData(pos=hinges if len(hinges) else np.zeros((0, 3)))
            self.mass_centres.setData(pos=picture.mass_centres if len(picture.mass_centres) else np.zeros((0, 3)),
                                      size=picture.mass_sizes if len(picture.mass_sizes) else 10)

        def clear_trail(self) -> None:
            pass

    return Scene3D(parent)
