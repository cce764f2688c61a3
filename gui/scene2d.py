"""The mechanism drawn in 2-D: the x–y plane for planar models, an oblique projection of 3-D ones
where OpenGL is missing.

Bodies are drawn from their shapes (rods thick, disks/boxes/spheres as outlines, point masses as
dots on thin links), hinges as open circles, ground hinges as triangles, mass centres as filled
dots sized by mass; the last body's mass centre leaves a short trail.
"""
from __future__ import annotations

from collections import deque

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem

from eomlab.engine.model import is_planar
from eomlab.gui.geometry import Projection, drawing, reach

#: points kept in the trail of the last body's mass centre
TRAIL_LENGTH = 400


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


class Scene2D(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("scene2d")
        self.model = None
        self.project = Projection(True)
        self.frame = None
        self._trail: deque = deque(maxlen=TRAIL_LENGTH)
        item = self.getPlotItem()
        item.setAspectLocked(True)
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setMenuEnabled(False)
        self.trail = item.plot([], [], pen=pg.mkPen("#9ab", width=1))
        self.links = item.plot([], [], pen=pg.mkPen("#555", width=1.5), connect="pairs")
        self.outlines = item.plot([], [], pen=pg.mkPen("#2b5d8a", width=2.5), connect="finite")
        self.rods = item.plot([], [], pen=pg.mkPen("#2b5d8a", width=7, cap=Qt.RoundCap), connect="pairs")
        self.ground_hinges = pg.ScatterPlotItem(symbol="t1", size=14, brush=pg.mkBrush("#666"), pen=pg.mkPen("#222"))
        self.hinges = pg.ScatterPlotItem(symbol="o", size=9, brush=pg.mkBrush("w"), pen=pg.mkPen("#222", width=1.5))
        self.mass_centres = pg.ScatterPlotItem(symbol="o", brush=pg.mkBrush("#f28e2b"), pen=pg.mkPen("#222", width=1))
        for scatter in (self.ground_hinges, self.hinges, self.mass_centres):
            item.addItem(scatter)
        self.time_label = pg.TextItem("", color="#333", anchor=(0, 0))
        self.time_label.setParentItem(item.getViewBox())
        self.time_label.setPos(6, 4)
        self.setLabel("bottom", "x", units="m")
        self.setLabel("left", "y", units="m")
        for side in ("left", "bottom"):
            self.getAxis(side).enableAutoSIPrefix(False)
            # the view stays put while the mechanism moves: paint the axes from a pixmap
            self.getAxis(side).setCacheMode(QGraphicsItem.DeviceCoordinateCache)

    def set_model(self, model, planar: bool | None = None) -> None:
        """Draw this model from now on; fixes the view to the mechanism's reach so it doesn't jump."""
        self.model = model
        planar = is_planar(model) if planar is None else planar
        self.project = Projection(planar, model.gravity)
        if planar:
            self.setLabel("bottom", "x", units="m")
            self.setLabel("left", "y", units="m")
        else:
            self.setLabel("bottom", "oblique view (no OpenGL): horizontal", units="m")
            self.setLabel("left", "up", units="m")
        self._trail.clear()
        self.frame = None
        self._range_set = False

    def show_frame(self, frame) -> None:
        if self.model is None or frame is None:
            return
        self.frame = frame
        picture = drawing(self.model, frame.rotations, frame.origins, frame.mass_centres)
        p = self.project
        self.rods.setData(*_pairs(picture.rods, p))
        self.links.setData(*_pairs(picture.links, p))
        self.outlines.setData(*_polylines(picture.outlines, p))
        for scatter, points in ((self.hinges, picture.hinges), (self.ground_hinges, picture.ground_hinges)):
            xy = p(points)
            scatter.setData(x=xy[:, 0], y=xy[:, 1])
        xy = p(picture.mass_centres)
        self.mass_centres.setData(x=xy[:, 0], y=xy[:, 1], size=picture.mass_sizes)
        if len(frame.mass_centres):
            self._trail.append(p(frame.mass_centres[-1])[0])
            trail = np.asarray(self._trail)
            self.trail.setData(trail[:, 0], trail[:, 1])
        self.time_label.setText(f"t = {frame.t:.3f} s")
        if not self._range_set:
            self._fit(picture)

    def _fit(self, picture) -> None:
        """Centre on the ground hinges (or the whole picture) with room for the full swing."""
        points = self.project(picture.points())
        if not len(points):
            return
        if self.model.constraints:  # a closed loop stays near where it starts: fit the picture
            low, high = points.min(axis=0), points.max(axis=0)
            centre, r = 0.5 * (low + high), 0.75 * float(np.max(high - low)) + 0.3
        else:  # a free swing: room for the whole reach around the ground hinges
            anchors = self.project(picture.ground_hinges) if len(picture.ground_hinges) else points
            centre, r = anchors.mean(axis=0), 1.08 * reach(self.model)
        self.getPlotItem().getViewBox().setRange(xRange=(centre[0] - r, centre[0] + r),
                                                 yRange=(centre[1] - r, centre[1] + r), padding=0)
        self._range_set = True

    def clear_trail(self) -> None:
        self._trail.clear()
        self.trail.setData([], [])
