"""Markers (gui/scene/markers.py) are drawn where their points are on the device, at their size in
pixels, whatever the view's scale; their bounds hold every marker; NaN points draw nothing; a
restyle (presentation mode) shows at once."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from eomlab.gui.scene.markers import Markers

FILL = "#f28e2b"


def view_with(qtbot, markers: Markers, x_range=(-10.0, 10.0)) -> pg.PlotWidget:
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(400, 400)
    widget.setBackground("w")
    widget.addItem(markers)
    widget.getPlotItem().hideAxis("left")
    widget.getPlotItem().hideAxis("bottom")
    widget.getPlotItem().getViewBox().setRange(xRange=x_range, yRange=x_range, padding=0)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def pixel_of(widget: pg.PlotWidget, x: float, y: float):
    box = widget.getPlotItem().getViewBox()
    p = widget.mapFromScene(box.mapViewToScene(QPointF(x, y)))
    return p.x(), p.y()


def colour_at(widget: pg.PlotWidget, px: float, py: float) -> QColor:
    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()
    return QColor(image.pixel(round(px * ratio), round(py * ratio)))


@pytest.mark.parametrize("span", [1.0, 1000.0])  # one picture size whatever the view's scale
def test_markers_are_drawn_at_their_points_at_their_pixel_size(qtbot, span):
    markers = Markers("o", 20, pen=pg.mkPen(FILL), brush=FILL)
    widget = view_with(qtbot, markers, (-span, span))
    markers.setData([0.5 * span, -0.5 * span], [0.25 * span, -0.5 * span])
    for x, y in zip(*markers.getData()):
        px, py = pixel_of(widget, x, y)
        assert colour_at(widget, px, py).name() == FILL
        assert colour_at(widget, px + 7, py).name() == FILL  # inside the 20 px disc
        assert colour_at(widget, px + 14, py).name() == "#ffffff"  # outside it
    box = markers.boundingRect()
    for x, y in zip(*markers.getData()):
        assert box.contains(QPointF(x, y))
    room = 10 * markers.pixelWidth()  # half a marker, in view units
    assert box.width() >= span + 2 * room - 1e-9 * span  # the points span `span` across


def test_per_point_sizes_nan_points_and_restyles(qtbot):
    markers = Markers("o", 9, pen=pg.mkPen(FILL), brush=FILL)
    widget = view_with(qtbot, markers)
    markers.setData([-5.0, 5.0, np.nan], [0.0, 0.0, 0.0], size=[6.0, 24.0, 10.0])
    small, large = pixel_of(widget, -5.0, 0.0), pixel_of(widget, 5.0, 0.0)
    assert colour_at(widget, small[0] + 8, small[1]).name() == "#ffffff"
    assert colour_at(widget, large[0] + 8, large[1]).name() == FILL
    assert markers.boundingRect().isValid()  # the NaN point is left out, not spread over the bounds
    markers.setBrush("#1f77b4")
    markers.setPen(pg.mkPen("#1f77b4"))
    assert colour_at(widget, large[0], large[1]).name() == "#1f77b4"


def test_ground_triangles_and_unknown_symbols(qtbot):
    markers = Markers("t1", 30, pen=pg.mkPen("#666"), brush="#666")
    widget = view_with(qtbot, markers)
    markers.setData([0.0], [0.0])
    px, py = pixel_of(widget, 0.0, 0.0)
    assert colour_at(widget, px, py + 12).name() == "#666666"  # the base, below the point
    assert colour_at(widget, px - 12, py - 12).name() == "#ffffff"  # beside the apex
    with pytest.raises(ValueError, match="unknown marker symbol"):
        Markers("star", 9)
