"""A window's layout as numbers, for checks: where each view of the mechanism is, which simulated
instant it shows, how large the mechanism is drawn and its reach, and where each plot and its
legend are. Written by `eomlab gui ... --report R.json`; the tests read it too.

    {"window": [w, h],
     "frames": {"drawn", "distinct", "seconds"}, "t_end_passed": bool,
     "views": [{"name", "t", "rect", "mechanism", "reach"}, ...],
     "plots": [{"name", "rect", "legend", "data", "labels"}, ...]}

Rectangles are [x, y, w, h] in window pixels. In compare mode every method's mechanism is a view
of its own (in the overlay they share the rectangle, each with its own t). A plot's "labels" give
each axis label's text, its rectangle and its axis' rectangle ("left", "bottom"). "frames": what
the mechanism view showed since the runs started (frames drawn; distinct: a pose different from
the one before; over that many wall seconds); "t_end_passed": the instant shown is past the
model's t_end."""
from __future__ import annotations


import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect

from eomlab.gui.scene.scene2d import Scene2D
from eomlab.gui.style.widget_pixels import scene_rect


def _rect(widget, window, rect: QRect | None = None) -> list[int]:
    rect = widget.rect() if rect is None else rect
    corner = widget.mapTo(window, rect.topLeft())
    return [corner.x(), corner.y(), rect.width(), rect.height()]


def _box_of_curves(curves) -> tuple[float, float, float, float] | None:
    points = []
    for curve in curves:
        x, y = curve.getData()
        if x is not None and len(x):
            finite = np.isfinite(x) & np.isfinite(y)
            if finite.any():
                points.append(np.column_stack((x[finite], y[finite])))
    if not points:
        return None
    xy = np.concatenate(points)
    low, high = xy.min(axis=0), xy.max(axis=0)
    return (low[0], low[1], high[0], high[1])


def _scene_view(scene: Scene2D, window, name: str, t, box) -> dict:
    return {"name": name, "t": t, "rect": _rect(scene, window),
            "mechanism": _window_rect(scene, window, box), "reach": _window_rect(scene, window, scene.reach_box)}


def _window_rect(scene: Scene2D, window, box) -> list[int] | None:
    rect = scene.widget_rect(box)
    return None if rect is None else _rect(scene, window, rect)


def views(window) -> list[dict]:
    session, compare = window.session, window.compare_view
    shown = window.scene_stack.currentWidget()
    result = []
    if shown is compare.tiles:
        for method, scene in compare.tiles.scenes.items():
            t = scene.frame.t if scene.frame is not None else None
            result.append(_scene_view(scene, window, method, t, scene.picture_box))
        return result
    main = session.runs[0].method if session.compare and session.runs else "mechanism"
    scene = window.scene
    if isinstance(scene, Scene2D):
        t = scene.frame.t if scene.frame is not None else None
        result.append(_scene_view(scene, window, main, t, scene.picture_box))
        if session.compare:
            for method, curves in compare.ghosts.items.items():
                result.append(_scene_view(scene, window, method, compare.ghosts.times.get(method),
                                          _box_of_curves(curves)))
        return result
    # the 3-D view: its own account of what it draws (widget pixels)
    boxes = scene.report_boxes()
    mechanism, reach = (None if boxes[k] is None else _rect(scene, window, QRect(*boxes[k]))
                        for k in ("mechanism", "reach"))
    frame = scene.frame
    names = [run.method for run in session.runs] if session.compare else [main]
    for name in names:
        result.append({"name": name, "t": frame.t if frame is not None else session.cursor_time(),
                       "rect": _rect(scene, window), "mechanism": mechanism, "reach": reach})
    return result


def _axis_labels(plot: pg.PlotWidget, window) -> dict:
    labels = {}
    for side in ("left", "bottom"):
        axis = plot.getPlotItem().getAxis(side)
        if axis.isVisible() and axis.label.isVisible():
            labels[side] = {"text": axis.label.toPlainText(),
                            "rect": scene_rect(plot, window, axis.label.sceneBoundingRect()),
                            "axis": scene_rect(plot, window, axis.sceneBoundingRect())}
    return labels


def _plot_entry(name: str, plot: pg.PlotWidget, window, legend_rect) -> dict:
    item = plot.getPlotItem()
    data = scene_rect(plot, window, item.getViewBox().sceneBoundingRect())
    return {"name": name, "rect": _rect(plot, window), "legend": legend_rect, "data": data,
            "labels": _axis_labels(plot, window)}


def plots(window) -> list[dict]:
    result = []
    panel = window.plots
    for key, plot in panel.plots.items():
        if not plot.isVisible():
            continue
        result.append(_plot_entry(key, plot, window, panel.legend_rect(key, window)))
    compare = window.compare_view
    if compare.plots_visible():
        plot = compare.panel.difference_plot
        result.append(_plot_entry("difference", plot, window, None))
    return result


def layout_report(window) -> dict:
    session = window.session
    return {"window": [window.width(), window.height()], "cursor": session.cursor_time(),
            "presentation": bool(window.presentation.active), "compare": bool(session.compare),
            "frames": window.redraw.count.report(),
            "t_end_passed": bool(session.cursor_time() > session.model.settings.t_end),
            "views": views(window), "plots": plots(window)}


