"""The mechanism drawn in 2-D: the x–y plane for planar models, an oblique projection of 3-D ones
where OpenGL is missing.

Bodies are drawn from their shapes (rods thick, disks/boxes/spheres as outlines, point masses as
dots on thin links), hinges as open circles, ground hinges as triangles, mass centres as filled
dots sized by mass; the last body's mass centre leaves a short trail, drawn from the samples (every
output step up to the displayed instant, however few frames the screen managed).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem

from eomlab.engine.model import is_planar
from eomlab.gui.scene.geometry import Projection, drawing, zero_direction
from eomlab.gui.scene.view_region import swept_region
from eomlab.gui.scene.markers import Markers
from eomlab.gui.scene.contacts2d import ContactLayer2D
from eomlab.gui.scene.scene_curve import SceneCurve

#: samples in the trail of the last body's mass centre
TRAIL_LENGTH = 400
#: room around the reach when the view is fitted (fraction of the reach box's larger side)
FIT_MARGIN = 0.04
#: marker sizes at scale 1 (px); mass centres: gui/scene/geometry.py
HINGE_PX, GROUND_HINGE_PX = 9.0, 14.0


def _pairs(segments: list[np.ndarray], project) -> tuple[np.ndarray, np.ndarray]:
    if not segments:
        return np.zeros(0), np.zeros(0)
    xy = project(np.concatenate(segments))
    return xy[:, 0], xy[:, 1]


def _polylines(lines: list[np.ndarray], project) -> tuple[np.ndarray, np.ndarray]:
    """Join polylines with NaN breaks so one item draws them all."""
    if not lines:
        return np.zeros(0), np.zeros(0)
    parts = []
    for line in lines:
        parts.append(project(line))
        parts.append(np.full((1, 2), np.nan))
    xy = np.concatenate(parts)
    return xy[:, 0], xy[:, 1]


def _inside(box, outer) -> bool:
    return outer[0] <= box[0] and outer[1] <= box[1] and box[2] <= outer[2] and box[3] <= outer[3]


def _grown(reach_box, box):
    """The reach grown to take in `box`, with half its size again as room in the direction of travel
    (so a travelling mechanism re-fits now and then, not at every frame)."""
    x0, y0, x1, y1 = (min(reach_box[0], box[0]), min(reach_box[1], box[1]), max(reach_box[2], box[2]),
                      max(reach_box[3], box[3]))
    room_x, room_y = 0.5 * (x1 - x0) * 0.5, 0.5 * (y1 - y0) * 0.5
    return (x0 - (room_x if box[0] < reach_box[0] else 0.0), y0 - (room_y if box[1] < reach_box[1] else 0.0),
            x1 + (room_x if box[2] > reach_box[2] else 0.0), y1 + (room_y if box[3] > reach_box[3] else 0.0))


def _show_curve(curve: pg.PlotCurveItem, x: np.ndarray, y: np.ndarray) -> None:
    """Hand `curve` its points; an empty one is hidden, so that Qt neither asks it for its bounds
    nor has it paint nothing at every frame (a chain has no outlines, a disk no links)."""
    if len(x) or curve.isVisible():
        curve.setData(x, y)
    curve.setVisible(bool(len(x)))


class SceneClock(QGraphicsSimpleTextItem):
    """The instant drawn, in the view's corner: a plain text item (a pyqtgraph TextItem lays out a
    rich-text document at every change)."""

    def setColor(self, color) -> None:
        self.setBrush(pg.mkBrush(color))


def _curve(pen, connect: str, finite: bool = True) -> SceneCurve:
    """A curve item of the scene: no PlotDataItem around it (its setData costs several times a bare
    curve's), no finiteness scan where the data has no NaN breaks, and bounds found cheaply."""
    return SceneCurve([], [], pen=pen, connect=connect, skipFiniteCheck=finite)


class Scene2D(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent, enableMenu=False)  # no right-click menu on the mechanism (none built)
        self.setObjectName("scene2d")
        self.model = None
        self.project = Projection(True)
        self.frame = None
        item = self.getPlotItem()
        item.setAspectLocked(True)
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setMenuEnabled(False)
        self.trail = _curve(pg.mkPen("#9ab", width=1), "all")
        self.links = _curve(pg.mkPen("#555", width=1.5), "pairs")
        self.outlines = _curve(pg.mkPen("#2b5d8a", width=2.5), "finite", finite=False)
        self.rods = _curve(pg.mkPen("#2b5d8a", width=7, cap=Qt.RoundCap), "pairs")
        #: the direction a selected joint's angle is measured from (θ = 0), dashed
        self.zero_line = _curve(pg.mkPen("#D55E00", width=2, style=Qt.DashLine), "all")
        self.zero_body: str | None = None
        for curve in (self.trail, self.links, self.outlines, self.rods, self.zero_line):
            item.addItem(curve)
        self.ground_hinges = Markers("t1", GROUND_HINGE_PX, pen=pg.mkPen("#222"), brush="#666")
        self.hinges = Markers("o", HINGE_PX, pen=pg.mkPen("#222", width=1.5), brush="w")
        self.marker_scale = 1.0  # presentation: markers grow with the fonts (gui/actions/presentation.py)
        self.mass_centres = Markers("o", pen=pg.mkPen("#222", width=1), brush="#f28e2b")
        for scatter in (self.ground_hinges, self.hinges, self.mass_centres):
            item.addItem(scatter)
        self.contacts = ContactLayer2D(item)  # contact spheres, the ground, impact arrows (gui/scene/)
        self.time_label = SceneClock(item.getViewBox())
        self.time_label.setColor("#333")
        self.time_label.setPos(6, 4)
        self.setLabel("bottom", "x", units="m")
        self.setLabel("left", "y", units="m")
        for side in ("left", "bottom"):
            self.getAxis(side).enableAutoSIPrefix(False)
            # the view stays put while the mechanism moves: paint the axes from a pixmap
            self.getAxis(side).setCacheMode(QGraphicsItem.DeviceCoordinateCache)
        #: (x0, y0, x1, y1) in the drawing plane: the region the mechanism can sweep
        self.reach_box: tuple[float, float, float, float] | None = None
        self.picture_box: tuple[float, float, float, float] | None = None  # what is drawn now
        self.user_moved = False  # the mouse panned or zoomed: no re-fit until Reset
        item.getViewBox().sigRangeChangedManually.connect(self._moved_by_user)
        item.getViewBox().sigResized.connect(self._resized)

    def set_model(self, model, planar: bool | None = None) -> None:
        """Draw this model from now on; fixes the view to the mechanism's reach so it doesn't jump."""
        self.model = model
        planar = is_planar(model) if planar is None else planar
        self.project = Projection(planar, model.gravity)
        self.contacts.set_model(model, self.project)
        if planar:
            self.setLabel("bottom", "x", units="m")
            self.setLabel("left", "y", units="m")
        else:
            self.setLabel("bottom", "oblique view (no OpenGL): horizontal", units="m")
            self.setLabel("left", "up", units="m")
        self.trail.setData([], [])
        self.frame = None
        self.reach_box = None
        self.user_moved = False
        self._clear_picture()  # until the new model's first pose: an empty model shows nothing

    def _clear_picture(self) -> None:
        for curve in (self.rods, self.links, self.outlines, self.zero_line):
            _show_curve(curve, np.zeros(0), np.zeros(0))
        for markers in (self.hinges, self.ground_hinges, self.mass_centres):
            markers.setData([], [])
        self.picture_box = None
        self.time_label.setText("")

    def set_marker_scale(self, scale: float) -> None:
        """Hinges, ground hinges and mass centres `scale` times their size (presentation mode)."""
        self.marker_scale = float(scale)
        self.hinges.setSize(HINGE_PX * scale)
        self.ground_hinges.setSize(GROUND_HINGE_PX * scale)
        if self.frame is not None:
            self.show_frame(self.frame)

    def show_zero_direction(self, body: str | None) -> None:
        """Draw (dashed) where `body`'s joint angle is 0 while it is selected; None: nothing."""
        self.zero_body = body
        self._draw_zero_direction()

    def _draw_zero_direction(self) -> None:
        segment = None
        if self.zero_body is not None and self.frame is not None and self.model is not None:
            segment = zero_direction(self.model, self.frame.rotations, self.frame.origins, self.zero_body)
        _show_curve(self.zero_line, *(_pairs([segment], self.project) if segment is not None else (np.zeros(0),) * 2))

    def show_frame(self, frame) -> None:
        if self.model is None or frame is None:
            return
        self.frame = frame
        picture = drawing(self.model, frame.rotations, frame.origins, frame.mass_centres)
        p = self.project
        _show_curve(self.rods, *_pairs(picture.rods, p))
        _show_curve(self.links, *_pairs(picture.links, p))
        _show_curve(self.outlines, *_polylines(picture.outlines, p))
        for markers, points in ((self.hinges, picture.hinges), (self.ground_hinges, picture.ground_hinges)):
            xy = p(points)
            markers.setData(xy[:, 0], xy[:, 1])
        xy = p(picture.mass_centres)
        self.mass_centres.setData(xy[:, 0], xy[:, 1], size=picture.mass_sizes * self.marker_scale)
        points = p(picture.points())
        if len(points):
            low, high = points.min(axis=0), points.max(axis=0)
            self.picture_box = (low[0], low[1], high[0], high[1])
        self.time_label.setText(f"t = {frame.t:.3f} s")
        self.contacts.show(frame, p)
        if self.zero_body is not None:
            self._draw_zero_direction()
        if self.reach_box is None:
            self.reach_box = self._reach_of(picture)
            self.fit()
        elif self.picture_box is not None and not _inside(self.picture_box, self.reach_box):
            self.reach_box = _grown(self.reach_box, self.picture_box)  # it travels: the swept region
            if not self.user_moved:
                self.fit()

    def _reach_of(self, picture) -> tuple[float, float, float, float] | None:
        """The region the mechanism can sweep: around its ground hinges, a disc of its reach (a
        closed loop stays near where it starts: its picture, with some room)."""
        points = self.project(picture.points())
        if not len(points):
            return None
        if any(c.type != "contact" for c in self.model.constraints):
            low, high = points.min(axis=0), points.max(axis=0)
            centre, r = 0.5 * (low + high), 0.6 * float(np.max(high - low)) + 0.1
            return (centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r)
        region = swept_region(self.model, self.project, self._up_in_plane())
        return _grown(region, (*points.min(axis=0), *points.max(axis=0)))

    def _up_in_plane(self) -> np.ndarray | None:
        """The drawing plane's unit vector against gravity, when gravity lies in the plane."""
        g = np.asarray(self.model.gravity, dtype=float)
        if not np.linalg.norm(g):
            return None
        ends = self.project(np.array([np.zeros(3), -g / np.linalg.norm(g)]))
        up = ends[1] - ends[0]
        return up if abs(float(np.linalg.norm(up)) - 1.0) < 1e-9 else None

    def fit(self) -> None:
        """Show the reach, as large as the view allows (the aspect ratio stays 1)."""
        if self.reach_box is None:
            return
        x0, y0, x1, y1 = self.reach_box
        margin = FIT_MARGIN * max(x1 - x0, y1 - y0)
        self._fitting = True
        try:
            self.getPlotItem().getViewBox().setRange(xRange=(x0 - margin, x1 + margin),
                                                     yRange=(y0 - margin, y1 + margin), padding=0)
        finally:
            self._fitting = False

    def refit(self) -> None:
        """Back to the fitted view (Reset): forget the user's pan and zoom."""
        self.user_moved = False
        self.fit()

    def _moved_by_user(self, *_args) -> None:
        if not getattr(self, "_fitting", False):
            self.user_moved = True

    def _resized(self, *_args) -> None:
        if not self.user_moved:
            self.fit()  # a new size (presentation, a dock moved): the reach fills the view again

    def widget_rect(self, box) -> QRect | None:
        """A box (x0, y0, x1, y1) of the drawing plane in this widget's pixels."""
        if box is None:
            return None
        view = self.getPlotItem().getViewBox()
        corners = [self.mapFromScene(view.mapViewToScene(QPointF(x, y))) for x, y in
                   ((box[0], box[1]), (box[2], box[3]))]
        left, right = sorted(c.x() for c in corners)
        top, bottom = sorted(c.y() for c in corners)
        return QRect(left, top, right - left, bottom - top)

    def show_trail(self, points: np.ndarray) -> None:
        """The trail: world points (k, 3) of the last body's mass centre, oldest first."""
        if len(points):
            xy = self.project(points)
            self.trail.setData(xy[:, 0], xy[:, 1])
        else:
            self.trail.setData([], [])

    def clear_trail(self) -> None:
        self.trail.setData([], [])
