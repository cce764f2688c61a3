"""Where a plot's graphics item lies on screen, in whole window pixels (the layout report and the plots'
legends both ask)."""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRectF


def scene_rect(plot: pg.PlotWidget, window, rect: QRectF, inward: bool = False) -> list[int]:
    """A rectangle of the plot's graphics scene in window pixels: the whole pixels it touches, or
    (`inward`) only those it covers, so that two items that merely touch do not overlap."""
    mapped = plot.viewportTransform().mapRect(rect)
    if inward:
        left, top = math.ceil(mapped.left()), math.ceil(mapped.top())
        right, bottom = math.floor(mapped.right()), math.floor(mapped.bottom())
    else:
        left, top = math.floor(mapped.left()), math.floor(mapped.top())
        right, bottom = math.ceil(mapped.right()), math.ceil(mapped.bottom())
    corner = plot.mapTo(window, QPoint(left, top))
    return [corner.x(), corner.y(), max(0, right - left), max(0, bottom - top)]
