"""SceneCurve (gui/scene/scene_curve.py) has PlotCurveItem's bounding rectangle — the points' box grown by
the cosmetic pen's padding in view pixels — for links, NaN-broken arcs, thick and thin pens, at
any view scale, and finds it again after new points or a new view range."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from eomlab.gui.scene.scene_curve import SceneCurve

#: the rectangles agree to this fraction of their size (float arithmetic in another order)
REL = 1e-9

CASES = {
    "pairs, thick pen": (dict(connect="pairs", skipFiniteCheck=True), pg.mkPen("k", width=6), False),
    "finite with NaN breaks": (dict(connect="finite"), pg.mkPen("r", width=2), True),
    "thin pen": (dict(connect="all"), pg.mkPen("b", width=1), False),
    "no pen": (dict(connect="all"), pg.mkPen(None), False),
}


def _rect_tuple(rect) -> np.ndarray:
    return np.array([rect.left(), rect.top(), rect.width(), rect.height()])


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("x_range", [(-10.0, 10.0), (-0.01, 0.03)])
def test_bounds_equal_plot_curve_items(qtbot, case, x_range):
    options, pen, with_nan = CASES[case]
    rng = np.random.default_rng(3)
    x, y = rng.uniform(*x_range, 40), rng.uniform(*x_range, 40)
    if with_nan:
        x[[7, 19]] = np.nan
        y[[7, 19]] = np.nan
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(500, 300)
    widget.getPlotItem().getViewBox().setRange(xRange=x_range, yRange=x_range, padding=0)
    ours, theirs = SceneCurve(x, y, pen=pen, **options), pg.PlotCurveItem(x, y, pen=pen, **options)
    widget.addItem(ours)
    widget.addItem(theirs)
    widget.show()
    qtbot.waitExposed(widget)
    size = max(x_range[1] - x_range[0], 1e-12)
    assert np.allclose(_rect_tuple(ours.boundingRect()), _rect_tuple(theirs.boundingRect()), rtol=0, atol=REL * size)

    # new points, then a new view range: found again, and still the same as PlotCurveItem's
    x2, y2 = x * 1.5 + 0.1 * size, y * 0.5
    ours.setData(x2, y2, **options)
    theirs.setData(x2, y2, **options)
    assert np.allclose(_rect_tuple(ours.boundingRect()), _rect_tuple(theirs.boundingRect()), rtol=0, atol=REL * size)
    widget.getPlotItem().getViewBox().setRange(xRange=(x_range[0] * 3, x_range[1] * 3), padding=0)
    qtbot.wait(10)
    assert np.allclose(_rect_tuple(ours.boundingRect()), _rect_tuple(theirs.boundingRect()), rtol=0, atol=3 * REL * size)


def test_all_nan_and_empty_curves_have_no_bounds(qtbot):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    empty = SceneCurve([], [], pen=pg.mkPen("k", width=3))
    nan = SceneCurve(np.full(3, np.nan), np.full(3, np.nan), pen=pg.mkPen("k", width=3), connect="finite")
    for curve in (empty, nan):
        widget.addItem(curve)
    widget.show()
    qtbot.waitExposed(widget)
    assert empty.boundingRect().isNull() or empty.boundingRect().isEmpty()
    assert nan.boundingRect().isNull() or nan.boundingRect().isEmpty()


def test_a_transformed_curve_takes_the_general_rule(qtbot):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    x, y = np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, 1.0])
    ours = SceneCurve(x, y, pen=pg.mkPen("k", width=4, style=Qt.SolidLine))
    theirs = pg.PlotCurveItem(x, y, pen=pg.mkPen("k", width=4))
    for curve in (ours, theirs):
        curve.setRotation(30.0)
        widget.addItem(curve)
    widget.show()
    qtbot.waitExposed(widget)
    for curve in (ours, theirs):  # found for the view as it is now
        curve.invalidateBounds()
    assert np.allclose(_rect_tuple(ours.boundingRect()), _rect_tuple(theirs.boundingRect()), atol=1e-12)
