"""Dragging a body with the mouse, in the 2-D view (a plain drag on a body) and in the 3-D view
(Shift + drag: a plain drag keeps orbiting the camera).

- Not running: the mechanism is posed so that the grabbed point follows the mouse as far as the
  joints and constraints allow (engine: `Simulation.drag_to`, projected onto the constraints); the
  run goes on from that pose at rest. Each drag is one undoable step (Ctrl+Z).
- Running: a spring pulls the grabbed point towards the mouse (engine: `Simulation.pull`, the
  MuJoCo perturbation), drawn as a line from the point to the mouse; letting go releases it.

The mouse moves in the screen plane through the grabbed point. A pose the engine cannot reach is
refused with a message in the status bar (the session's `refused`); the run is unchanged.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer
from PySide6.QtGui import QUndoCommand

from eomlab.gui.runs.run_messages import DragTo, EditKind, MovePull, Pull, Release
from eomlab.gui.runs.run_state import RunState
from eomlab.gui.runs.session import Session

#: how near (pixels) the mouse must be to a body's mass centre or its link to grab it
GRAB_PIXELS = 24
#: the latest mouse position goes to the engine at most this often (ms)
SEND_MS = 25
PULL_PEN = pg.mkPen("#d62728", width=3, style=Qt.DashLine)
PULL_COLOR_3D = (0.84, 0.15, 0.16, 1.0)


class DragPose(QUndoCommand):
    """A drag while paused: undo puts every run back at the sample it had before."""

    def __init__(self, session: Session, before: list, body: str, point, target):
        super().__init__(f"Drag {body}")
        self.session, self.before = session, before
        self.grab = (body, tuple(point), tuple(target))
        self._applied = True  # the drag itself made it

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.session.edit(DragTo(*self.grab))

    def undo(self) -> None:
        self.session.continue_from(self.before)


class View2D:
    """World ↔ pixels of the 2-D scene (its projection's two rows are orthonormal)."""

    def __init__(self, scene):
        self.scene = scene

    def pixel(self, world: np.ndarray) -> np.ndarray:
        xy = self.scene.project(world)
        box = self.scene.getPlotItem().getViewBox()
        out = []
        for x, y in xy:
            p = self.scene.mapFromScene(box.mapViewToScene(QPointF(float(x), float(y))))
            out.append((p.x(), p.y()))
        return np.array(out)

    def world(self, pixel, through: np.ndarray) -> np.ndarray:
        box = self.scene.getPlotItem().getViewBox()
        p = box.mapSceneToView(self.scene.mapToScene(int(pixel[0]), int(pixel[1])))
        m = self.scene.project.matrix
        return through + m.T @ (np.array([p.x(), p.y()]) - m @ through)


class View3D:
    """World ↔ pixels of the OpenGL scene (pyqtgraph's camera matrices; the scene draws the world
    turned by `scene.turn`, so that gravity points down its z axis)."""

    def __init__(self, scene):
        self.scene = scene

    def _matrix(self) -> tuple[np.ndarray, float, float]:
        w, h = self.scene.width(), self.scene.height()
        viewport = (0, 0, w, h)
        m = self.scene.projectionMatrix(viewport, viewport) * self.scene.viewMatrix()
        return np.array(m.data(), dtype=float).reshape(4, 4).T, w, h

    def pixel(self, world: np.ndarray) -> np.ndarray:
        m, w, h = self._matrix()
        shown = np.asarray(world, float).reshape(-1, 3) @ self.scene.turn.T
        pts = np.c_[shown, np.ones(len(shown))] @ m.T
        ndc = pts[:, :3] / pts[:, 3:4]
        return np.c_[(ndc[:, 0] + 1) * 0.5 * w, (1 - ndc[:, 1]) * 0.5 * h]

    def world(self, pixel, through: np.ndarray) -> np.ndarray:
        m, w, h = self._matrix()
        turn = self.scene.turn
        clip = m @ np.r_[turn @ through, 1.0]
        depth = clip[2] / clip[3]
        ndc = np.array([2 * pixel[0] / w - 1, 1 - 2 * pixel[1] / h, depth, 1.0])
        p = np.linalg.solve(m, ndc)
        return turn.T @ (p[:3] / p[3])


class Drag(QObject):
    """Mouse drags on a scene (an event filter on its viewport)."""

    def __init__(self, window, scene, view, modifier=Qt.NoModifier):
        super().__init__(window)
        self.window, self.session, self.scene, self.view = window, window.session, scene, view
        self.modifier = modifier
        self.grab = None  # (body index, body name, point in the body frame)
        self.mode = ""  # "pose" or "pull" while a drag goes on
        self.before = None
        self.target = None
        self._send = QTimer(self)
        self._send.setInterval(SEND_MS)
        self._send.timeout.connect(self._send_target)
        self.line = self.line_3d = None
        if isinstance(scene, pg.PlotWidget):
            self.line = scene.getPlotItem().plot([], [], pen=PULL_PEN)
            self.line.setZValue(30)
        else:
            import pyqtgraph.opengl as gl  # only where the 3-D scene exists (OpenGL is there)

            self.line_3d = gl.GLLinePlotItem(pos=np.zeros((2, 3)), color=PULL_COLOR_3D, width=3, antialias=True)
            self.line_3d.setVisible(False)
            scene.addItem(self.line_3d)
        self.session.advanced.connect(self._draw_line)
        (scene.viewport() if hasattr(scene, "viewport") else scene).installEventFilter(self)

    # --- picking -----------------------------------------------------------------------------

    def pick(self, pixel) -> tuple[int, str, np.ndarray, np.ndarray] | None:
        """(body index, name, grabbed point in the body frame, its world position) under `pixel`."""
        frame, model = getattr(self.scene, "frame", None), getattr(self.scene, "model", None)
        if frame is None or model is None:
            return None
        pixel = np.asarray(pixel, float)
        centres = self.view.pixel(frame.mass_centres)
        origins = self.view.pixel(frame.origins)
        best, best_d = None, GRAB_PIXELS
        for i in range(len(model.bodies)):
            a, b = origins[i], centres[i]
            ab = b - a
            s = float(np.clip((pixel - a) @ ab / (ab @ ab), 0.0, 1.0)) if ab @ ab > 0 else 1.0
            d = float(np.linalg.norm(a + s * ab - pixel))
            d_centre = float(np.linalg.norm(b - pixel))
            if d_centre < GRAB_PIXELS:
                s, d = 1.0, d_centre * 0.5  # the mass centre wins over a link passing near
            if d < best_d:
                best, best_d = (i, s), d
        if best is None:
            return None
        i, s = best
        world = frame.origins[i] + s * (frame.mass_centres[i] - frame.origins[i])
        point = frame.rotations[i].T @ (world - frame.origins[i])
        return i, model.bodies[i].name, point, world

    # --- the mouse -----------------------------------------------------------------------------

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind == QEvent.MouseButtonPress and event.button() == Qt.LeftButton:
            if (event.modifiers() & ~Qt.KeypadModifier) != self.modifier or not self.session.runs:
                return False
            return self.press(event.position())
        if self.grab is None:
            return False
        if kind == QEvent.MouseMove:
            self.move(event.position())
            return True
        if kind == QEvent.MouseButtonRelease and event.button() == Qt.LeftButton:
            self.release()
            return True
        return False

    def press(self, position) -> bool:
        picked = self.pick((position.x(), position.y()))
        if picked is None:
            return False
        i, name, point, world = picked
        self.grab = (i, name, point)
        self.target = world
        self.session.follow_latest()  # an edit acts at the run's latest sample
        if self.session.state == RunState.RUNNING:
            self.mode = "pull"
            self.session.edit(Pull(name, point, world))
        else:
            self.mode = "pose"
            self.before = self.session.rows_at(self.session.cursor_time())
        self._send.start()
        return True

    def move(self, position) -> None:
        frame = self.scene.frame
        i, _, point = self.grab
        through = frame.origins[i] + frame.rotations[i] @ point if frame is not None else self.target
        self.target = self.view.world((position.x(), position.y()), through)
        self._draw_line()

    def _send_target(self) -> None:
        if self.grab is None or self.target is None:
            return
        _, name, point = self.grab
        if self.mode == "pull":
            self.session.edit(MovePull(self.target))
        else:
            self.session.edit(DragTo(name, point, self.target))

    def release(self) -> None:
        self._send.stop()
        self._send_target()
        _, name, point = self.grab
        if self.mode == "pull":
            self.session.edit(Release())
        elif self.before is not None:
            self.window.document.undo_stack.push(DragPose(self.session, self.before, name, point, self.target))
        self.grab, self.mode, self.before = None, "", None
        self._draw_line()

    def _draw_line(self) -> None:
        """The pulling spring, from the grabbed point (as drawn now) to the mouse."""
        frame = self.scene.frame
        pulling = self.mode == "pull" and frame is not None
        if self.line_3d is not None:
            if pulling:
                i, _, point = self.grab
                ends = np.array([frame.origins[i] + frame.rotations[i] @ point, self.target])
                self.line_3d.setData(pos=ends @ self.scene.turn.T)
            if self.line_3d.visible() != pulling:
                self.line_3d.setVisible(pulling)
            return
        if not pulling:
            if self.line.xData is not None and len(self.line.xData):
                self.line.setData([], [])  # only once: this runs at every batch of samples
            return
        i, _, point = self.grab
        ends = self.scene.project(np.array([frame.origins[i] + frame.rotations[i] @ point, self.target]))
        self.line.setData(ends[:, 0], ends[:, 1])


def install(window) -> list[Drag]:
    """Drags on the window's 2-D scene, and on its 3-D scene once made (Shift + drag)."""
    drags = [Drag(window, window.scene2d, View2D(window.scene2d))]
    window.session.refused.connect(lambda text: window.statusBar().showMessage(f"Refused: {text}", 10000))
    window.session.edited.connect(lambda _run, kind, _t: kind == EditKind.DRAG_TO and window.statusBar().showMessage(
        "Posed by the mouse: the run goes on from here at rest (Ctrl+Z undoes)", 5000))

    def watch_3d(_index) -> None:
        scene = window.scene3d
        if scene is not None and not any(d.scene is scene for d in drags):
            drags.append(Drag(window, scene, View3D(scene), modifier=Qt.ShiftModifier))

    window.scene_stack.currentChanged.connect(watch_3d)
    watch_3d(0)
    return drags
