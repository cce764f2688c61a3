"""A curve of the mechanism's picture (links, outlines, arrows): pyqtgraph's PlotCurveItem with
bounds that cost little to find again.

Every frame hands the scene's curves new points, so Qt asks each for its bounding rectangle anew.
PlotCurveItem finds it through two cached-bounds look-ups with finiteness checks and the pixel
vectors of its device transform, for each of the scene's curves every frame. The same rectangle
comes, several times cheaper, from a NaN-ignoring min and max of the points and the view box's
pixel size, which the view box keeps.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF


class SceneCurve(pg.PlotCurveItem):
    """A PlotCurveItem whose bounding rectangle is its points' box grown by its cosmetic pen's
    padding in view pixels (what PlotCurveItem computes, for an item placed straight in a view)."""

    def boundingRect(self) -> QRectF:
        if self._boundingRect is not None:
            return self._boundingRect
        view = self.getViewBox()
        if view is None or self.xData is None or not len(self.xData) or not self._in_view_coordinates(view):
            return super().boundingRect()
        x0, x1 = np.fmin.reduce(self.xData), np.fmax.reduce(self.xData)  # NaN breaks ignored
        y0, y1 = np.fmin.reduce(self.yData), np.fmax.reduce(self.yData)
        if np.isnan(x0) or np.isnan(y0):
            return QRectF()  # no point to draw (PlotCurveItem would give a rectangle of NaN)
        if not (np.isfinite(x0) and np.isfinite(x1) and np.isfinite(y0) and np.isfinite(y1)):
            return super().boundingRect()  # an infinite point: the general rule
        pad = self.pixelPadding()
        px, py = view.viewPixelSize() if pad > 0 else (0.0, 0.0)
        px, py = px * pad, py * pad
        self._boundingRect = QRectF(x0 - px, y0 - py, (x1 - x0) + 2 * px, (y1 - y0) + 2 * py)
        return self._boundingRect

    def _in_view_coordinates(self, view) -> bool:
        """Whether the item sits in the view box's own coordinates (no move, turn or scale of its own)."""
        if self.parentItem() is not view.childGroup:
            return False
        transform, _ = self.itemTransform(self.parentItem())
        return transform.isIdentity()
