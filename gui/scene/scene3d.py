"""The mechanism drawn in 3-D with pyqtgraph.opengl (needs a real OpenGL context: an X display or
Xvfb; `opengl_available()` says whether to use it or the 2-D projection fallback).

Each body is a lit, striped solid (`gui.scene.meshes`) uploaded once and moved by a 4×4 transform per
frame; its shadow is the same mesh flattened onto the ground plane by one more matrix. The ground
lies below everything the mechanism can reach (or is the plane a disk rolls on); rolling disks
leave their contact trace on it. The camera (`gui.scene.camera3d`) frames the mechanism (not its shadow),
backs off when a part would leave the view and follows a travelling body, until the user turns or
zooms the view; a fresh run (Reset, an edit) frames it again. Right-click: body axes, trails,
shadows, reset camera.
"""
from __future__ import annotations

from collections import deque

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QMatrix4x4
from PySide6.QtWidgets import QMenu

from eomlab.gui.scene.camera3d import (FLOOR_CLEARANCE, MARGIN_RUN, Framing, anchors, floor_height, keep_above, screen_box,
                                 travels)
from eomlab.gui.scene.geometry import drawing, reach, up_basis
from eomlab.gui.scene.meshes import body_mesh
from eomlab.engine.model import inertia_ellipsoid
from eomlab.gui.scene.scene3d_menu import view_menu

#: platforms without an OpenGL surface: the window draws 3-D models with the 2-D projection there
_NO_GL_PLATFORMS = ("offscreen", "minimal", "vnc", "linuxfb")
#: points kept per trail (mass centres) and per contact trace (rolling disks)
TRAIL_LENGTH, TRACE_LENGTH = 400, 4000


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


def _matrix(rotation: np.ndarray, origin: np.ndarray) -> QMatrix4x4:
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, origin
    return QMatrix4x4(*m.ravel())


def disk_contact(centre: np.ndarray, axis: np.ndarray, radius: float) -> np.ndarray | None:
    """The lowest rim point of a disk (view coordinates, z up), None when it lies flat."""
    down = np.array([0.0, 0.0, -1.0]) - axis * (-axis[2])
    norm = np.linalg.norm(down)
    return None if norm < 1e-6 else centre + radius * down / norm


def make_scene3d(parent=None):
    """Build the GL view lazily so importing this module never needs OpenGL."""
    import pyqtgraph.opengl as gl
    from OpenGL import GL
    from pyqtgraph import Vector, mkColor

    from eomlab.gui.scene.scene3d_view import GLHost
    from eomlab.gui.scene.contacts3d import ContactLayer3D
    from eomlab.gui.scene.solids_gl import SolidsItem

    on_top = {GL.GL_DEPTH_TEST: False, GL.GL_BLEND: True, GL.GL_CULL_FACE: False,
              "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)}

    class Scene3D(GLHost):  # the GL view is a native child window (gui/scene/scene3d_view.py)
        def __init__(self, parent=None):
            super().__init__(parent)
            self.setObjectName("scene3d")
            self.model = None
            self.frame = None
            self.turn = np.eye(3)
            self.floor_z: float | None = None
            self.framing: Framing | None = None
            self.user_camera = False  # the user turned or zoomed: stop framing until a fresh run
            self.drawn_points = np.zeros((0, 3))  # what bounds the pose drawn now (view coordinates)
            self.swept: tuple[np.ndarray, np.ndarray] | None = None  # the box it has swept this run
            self.show_axes = False
            self.show_shadows = True
            self.trail_choice = "last body"
            self.solids: list[tuple[int, float, np.ndarray]] = []  # bodies drawn: index, extent, box corners
            self.trails: list[deque] = []
            self.traces: list[tuple] = []  # rolling disks: body index, radius, axis (body), contact points
            self.floor = gl.GLMeshItem(vertexes=np.zeros((2, 3, 3)), color=(0.9, 0.9, 0.9, 1), shader=None,
                                       computeNormals=False)
            self.grid = gl.GLGridItem(color=(0, 0, 0, 40))
            self.links = gl.GLLinePlotItem(mode="lines", color=(0.25, 0.25, 0.27, 1), width=3, antialias=True)
            self.hinges = gl.GLScatterPlotItem(color=(0.1, 0.1, 0.1, 1), size=10, pxMode=True)
            self.posts = gl.GLLinePlotItem(mode="lines", color=(0.6, 0.6, 0.63, 1), width=2, antialias=True)
            self.trail_item = gl.GLLinePlotItem(mode="lines", color=(0.45, 0.55, 0.7, 0.9), width=2,
                                                antialias=True)
            self.trace_item = gl.GLLinePlotItem(mode="lines", color=(0.7, 0.2, 0.15, 1), width=4, antialias=True)
            self.axes_item = gl.GLLinePlotItem(mode="lines", width=3, antialias=True)
            self.solid_item = SolidsItem()
            for item in (self.floor, self.grid, self.posts, self.solid_item, self.trace_item):
                if item in (self.posts, self.trace_item):
                    item.setGLOptions("translucent")  # hidden behind a body like the ground they lie on
                self.addItem(item)
            for item in (self.links, self.trail_item, self.hinges, self.axes_item):
                item.setGLOptions(on_top if item in (self.hinges, self.axes_item) else "translucent")
                self.addItem(item)
            self.axes_item.setVisible(False)
            self.contacts = ContactLayer3D(gl, self.addItem)  # contact spheres, impact arrows (gui/scene/)
            self.clock = ""  # drawn by the GL view (gui/scene/scene3d_view.py): grab() and recordings show it too
            self.clock_px = 0  # presentation mode's font size (0: by the view's height)
            self.setBackgroundColor((250, 250, 250, 255))

        # --- the model ---------------------------------------------------------------------------

        def set_model(self, model, planar=None) -> None:
            self.model = model
            self.frame = None
            self.turn = up_basis(model.gravity)  # GL draws z up: turn 'against gravity' to z
            self.contacts.set_model(model, self.turn)
            self.framing = None
            r = reach(model)
            self.solids, meshes = [], []
            for i, body in enumerate(model.bodies):
                # grows with the mass up to 27 kg, then stays (a 1e12 kg point would fill the view)
                point_radius = 0.035 * r * min(np.cbrt(body.mass), 3.0) if body.mass > 0 else 0.0
                mesh = body_mesh(body.shape, i, point_radius, inertia_ellipsoid(body.mass, body.inertia))
                if mesh is not None:
                    self.solids.append((i, mesh.extent, mesh.box_corners))
                    meshes.append(mesh)
            self.solid_item.set_meshes(meshes)
            self.traces = [(model.body_index(c.body), float(c.radius), np.asarray(c.axis, dtype=float),
                            deque(maxlen=TRACE_LENGTH)) for c in model.constraints if c.type == "rolling_disk"]
            self.clear_trail()
            self._show_initial_pose()

        def _show_initial_pose(self) -> None:
            """Draw the model at rest before its run reports (or if it cannot start)."""
            from eomlab.engine.simulation import RunView

            try:
                frame = RunView.initial_frame(self.model)
            except (ValueError, ArithmeticError):  # nothing to draw: the run will say why
                return
            self.show_frame(frame)

        def clear_trail(self) -> None:
            """A fresh run: trails and traces empty, the camera frames the mechanism again."""
            self.trails = []
            for *_disk, points in self.traces:
                points.clear()
            self.trail_item.setData(pos=np.zeros((0, 3)))
            self.trace_item.setData(pos=np.zeros((0, 3)))
            self.user_camera = False
            self.framing = None
            self.floor_z = None
            self.swept = None
            if self.frame is not None:
                self.show_frame(self.frame)

        # --- drawing a pose ----------------------------------------------------------------------

        def show_frame(self, frame) -> None:
            if self.model is None or frame is None:
                return
            self.frame = frame
            turn = self.turn
            rotations = turn @ frame.rotations
            centres = frame.mass_centres @ turn.T
            picture = drawing(self.model, rotations, frame.origins @ turn.T, centres, turn)
            self._sweep(self._extent_points(picture, centres, rotations))
            if self.framing is None:
                self._frame_view(picture, centres)
            flatten = np.eye(4)
            flatten[2, 2], flatten[2, 3] = 0.0, self.floor_z + 0.003 * self.framing.radius
            self.solid_item.set_poses([_matrix(rotations[i], centres[i]) for i, *_mesh in self.solids],
                                      QMatrix4x4(*flatten.ravel()) if self.show_shadows else None)
            self.links.setData(pos=_segments(picture.links))
            hinges = np.concatenate([picture.hinges, picture.ground_hinges])
            self.hinges.setData(pos=hinges if len(hinges) else np.zeros((0, 3)))
            self._update_trails(centres, rotations)
            self.contacts.show(frame)
            self.clock = f"t = {frame.t:.3f} s"
            self._style_clock()
            if self.show_axes:
                self._update_axes(rotations, centres)
            if not self.user_camera:
                self._follow(picture, centres)

        def _update_trails(self, centres: np.ndarray, rotations: np.ndarray) -> None:
            chosen = {"none": [], "last body": [len(centres) - 1], "every body": range(len(centres))}
            indices = [i for i in chosen[self.trail_choice] if i >= 0]
            while len(self.trails) < len(indices):
                self.trails.append(deque(maxlen=TRAIL_LENGTH))
            for trail, i in zip(self.trails, indices):
                trail.append(centres[i].copy())
            self.trail_item.setData(pos=_segments([np.asarray(t) for t in self.trails[:len(indices)]]))
            if not self.traces:
                return
            lift = self.floor_z + 0.008 * self.framing.radius
            for index, radius, axis, points in self.traces:
                contact = disk_contact(centres[index], rotations[index] @ axis, radius)
                if contact is not None:
                    points.append(np.array([contact[0], contact[1], lift]))
            self.trace_item.setData(pos=_segments([np.asarray(points) for *_disk, points in self.traces]))

        def _update_axes(self, rotations: np.ndarray, centres: np.ndarray) -> None:
            points, colours = [], []
            for i, extent, _corners in self.solids:
                for k, colour in enumerate(((0.85, 0.1, 0.1, 1), (0.1, 0.6, 0.1, 1), (0.1, 0.25, 0.9, 1))):
                    points += [centres[i], centres[i] + 1.3 * extent * rotations[i][:, k]]
                    colours += [colour, colour]
            self.axes_item.setData(pos=np.asarray(points).reshape(-1, 3), color=np.asarray(colours).reshape(-1, 4))

        # --- camera and ground -------------------------------------------------------------------

        def _frame_view(self, picture, centres: np.ndarray) -> None:
            model = self.model
            points = self.drawn_points
            r = reach(model)
            fixed = anchors(model, self.turn)
            if self.floor_z is None:  # once per run, from its first pose
                self.floor_z = self.contacts.floor(floor_height(model, points, centres, fixed, r, bool(self.traces)))
            # a post from each anchor above the ground down to it: what a chain hangs from
            posts = [np.array([a, [a[0], a[1], self.floor_z]]) for a in fixed if a[2] > self.floor_z + 1e-6]
            self.posts.setData(pos=_segments(posts))
            self.framing = Framing.of(model, points, r, self.width(), self.height(), self.opts["fov"])
            self._place_ground()
            if not self.user_camera:
                f = self.framing
                self.setCameraPosition(pos=Vector(*f.centre), distance=f.distance, elevation=f.elevation,
                                       azimuth=f.azimuth)

        def _extent_points(self, picture, centres: np.ndarray, rotations: np.ndarray) -> np.ndarray:
            """Points that bound what is drawn: hinges, link ends and the corners of each solid's
            box in its body axes."""
            parts = [picture.points()]
            for i, _extent, corners in self.solids:
                parts.append(centres[i] + corners @ rotations[i].T)
            parts = [p.reshape(-1, 3) for p in parts if len(p)]
            return np.concatenate(parts) if parts else np.zeros((0, 3))

        def _sweep(self, points: np.ndarray) -> None:
            self.drawn_points = points
            if not len(points):
                return
            low, high = points.min(axis=0), points.max(axis=0)
            if self.swept is not None:
                low, high = np.minimum(low, self.swept[0]), np.maximum(high, self.swept[1])
            self.swept = (low, high)

        def report_boxes(self) -> dict:
            """For the layout report (gui/report.py), in this widget's pixels: the mechanism as
            drawn now and its reach — the box it has swept since the run started (its 8 corners
            as the camera sees them)."""
            viewport = (0, 0, self.width(), self.height())
            mvp = self.projectionMatrix(viewport, viewport) * self.viewMatrix()
            matrix = np.array(mvp.data(), dtype=float).reshape(4, 4).T  # Qt keeps it column by column
            corners = None
            if self.swept is not None:
                low, high = self.swept
                corners = np.array([[(low, high)[i][0], (low, high)[j][1], (low, high)[k][2]]
                                    for i in (0, 1) for j in (0, 1) for k in (0, 1)])
            return {"mechanism": screen_box(self.drawn_points, matrix, self.width(), self.height()),
                    "reach": screen_box(corners, matrix, self.width(), self.height())}

        def _place_ground(self) -> None:
            f = self.framing
            size, spacing = f.ground_size, f.grid_spacing
            x0, y0 = np.round(f.ground_centre[:2] / spacing) * spacing  # whole cells: the grid seems fixed
            quad = np.array([[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]], dtype=float) * size / 2
            vertices = np.column_stack([quad[:, 0] + x0, quad[:, 1] + y0, np.full(6, self.floor_z)])
            self.floor.setMeshData(vertexes=vertices.reshape(2, 3, 3).astype(np.float32), color=self._floor_rgba)
            self.grid.setSize(size, size)
            self.grid.setSpacing(spacing, spacing)
            self.grid.resetTransform()
            self.grid.translate(x0, y0, self.floor_z + 0.0015 * f.radius)

        def _follow(self, picture, centres: np.ndarray) -> None:
            """Keep the mechanism in view: follow a travelling one's mass centre
            (within a slack round the middle), and back off when a part would leave the view."""
            f = self.framing
            moved = False
            if travels(self.model) and len(centres):
                offset = centres.mean(axis=0)[:2] - f.centre[:2]
                distance = float(np.linalg.norm(offset))
                slack = 0.3 * f.radius
                if distance > slack:
                    f.centre[:2] += offset * (distance - slack) / distance
                    self.opts["center"] = Vector(*f.centre)
                    moved = True
                    if np.max(np.abs(f.centre[:2] - f.ground_centre[:2])) > 0.2 * f.ground_size:
                        f.ground_centre = f.centre.copy()
                        self._place_ground()
            needed = f.needed_distance(self.drawn_points, self.width(), self.height(), self.opts["fov"], MARGIN_RUN)
            if needed > f.distance:
                f.distance = needed
                self.opts["distance"] = needed
                moved = True
            if moved:
                self.update()

        def resizeEvent(self, event) -> None:
            super().resizeEvent(event)
            if hasattr(self, "clock"):
                self._style_clock()
            if self.frame is not None and not self.user_camera:
                self.framing = None  # frame again for the new shape of the view
                self.show_frame(self.frame)

        def reset_camera(self) -> None:
            self.user_camera = False
            if self.frame is not None:
                self.framing = None
                self.show_frame(self.frame)

        # --- what the user does with the view ---------------------------------------------------

        def mousePressEvent(self, event) -> None:
            if event.button() in (Qt.LeftButton, Qt.MiddleButton):
                self.user_camera = True
            super().mousePressEvent(event)

        def wheelEvent(self, event) -> None:
            self.user_camera = True
            super().wheelEvent(event)
            self.keep_above_floor()

        def mouseMoveEvent(self, event) -> None:
            super().mouseMoveEvent(event)
            self.keep_above_floor()

        def orbit(self, azim, elev) -> None:
            super().orbit(azim, elev)
            self.keep_above_floor()

        def keep_above_floor(self) -> None:
            """Orbit, pan and zoom never take the camera under the ground (which hides every solid)."""
            if self.floor_z is not None and self.framing is not None and \
                    keep_above(self.opts, self.floor_z, FLOOR_CLEARANCE * self.framing.radius):
                self.update()

        def keyPressEvent(self, event) -> None:
            if event.key() in self.noRepeatKeys:
                self.user_camera = True
            super().keyPressEvent(event)

        def contextMenuEvent(self, event) -> None:
            self.view_menu(self).exec(event.globalPos())

        def view_menu(self, parent) -> QMenu:
            return view_menu(self, parent)

        def set_marker_scale(self, scale: float) -> None:
            """Hinges and links `scale` times their size (presentation: with the fonts); the
            trail stays thinner than the links."""
            self.hinges.setData(size=10 * scale)
            self.links.setData(width=3 * scale)
            self.trail_item.setData(width=2 * min(scale, 1.2))

        def set_axes_visible(self, on: bool) -> None:
            self.show_axes = bool(on)
            self.axes_item.setVisible(self.show_axes)
            if self.show_axes and self.frame is not None:
                self.show_frame(self.frame)

        def set_shadows_visible(self, on: bool) -> None:
            self.show_shadows = bool(on)
            if self.frame is not None:
                self.show_frame(self.frame)

        def set_trail(self, choice: str) -> None:
            self.trail_choice = choice
            self.trails = []
            self.trail_item.setData(pos=np.zeros((0, 3)))

        # --- colours and the clock --------------------------------------------------------------

        def setBackgroundColor(self, *args, **kwargs) -> None:
            super().setBackgroundColor(*args, **kwargs)
            if hasattr(self, "clock"):  # presentation mode's dark theme: a dark ground
                self._set_palette(light=mkColor(*args, **kwargs).lightness() > 128)

        def _style_clock(self) -> None:
            pixels = max(14, round(self.height() / 40), self.clock_px)  # readable from the back row
            self.set_clock(self.clock, pixels, self._clock_colour)

        def set_clock_px(self, pixels: int) -> None:
            self.clock_px = pixels
            self._style_clock()

        def _set_palette(self, light: bool) -> None:
            self._floor_rgba = (0.91, 0.92, 0.93, 1) if light else (0.15, 0.16, 0.18, 1)
            self._shadow_rgba = (0.72, 0.73, 0.76, 1) if light else (0.07, 0.07, 0.08, 1)
            self._clock_colour = "#282828" if light else "#e6e6e6"
            self._style_clock()
            self.grid.setColor((0, 0, 0, 45) if light else (255, 255, 255, 40))
            self.floor.setColor(self._floor_rgba)
            self.solid_item.shadow_colour = self._shadow_rgba
            if self.framing is not None:
                self._place_ground()

    return Scene3D(parent)
