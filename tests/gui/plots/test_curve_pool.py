"""The plots keep their curve items across rebuilds (gui/plots/curve_pool.py): compare mode switched on, off
and on again makes no item twice, shows exactly the curves in use, and a reused item takes its new style."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from eomlab.engine.presets import preset

from gui_helpers import run_fast, wait_for_samples


def _curve_items(panel) -> dict[str, list]:
    return {key: [i for i in plot.getPlotItem().items if isinstance(i, pg.PlotDataItem)]
            for key, plot in panel.plots.items()}


def _every_item(panel) -> dict[str, set]:
    """Each plot's curve items, the motion plot's on its spinning angles' axis too (a coordinate that went over
    the top at that moment: whether one has depends on when the toggle lands)."""
    items = {key: set(curves) for key, curves in _curve_items(panel).items()}
    items["motion"] |= set(panel.spin_axis.curves)
    return items


def _empty(curve) -> bool:
    x = curve.getData()[0]
    return x is None or len(x) == 0


def _in_use(panel) -> dict[str, set]:
    """Each plot's curves as the runs hold them (a spinning angle's curve is on the motion plot's right axis)."""
    used: dict[str, set] = {key: set() for key in panel.plots}
    for series in panel.series:
        for curve in series.curves.values():
            key = next(k for k, items in panel.curve_pool.in_use.items() if curve in items)
            used[key].add(curve)
    return used


def test_compare_on_off_on_reuses_every_item_and_shows_only_those_in_use(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    panel = window.plots
    run_fast(window)
    window.set_compare(True)
    qtbot.waitUntil(lambda: len(panel.series) == len(window.session.runs) > 1, timeout=30000)
    first = _every_item(panel)
    assert len(first["motion"]) >= len(panel.series)  # a curve per run at least

    window.set_compare(False)
    qtbot.waitUntil(lambda: len(panel.series) == 1, timeout=30000)
    wait_for_samples(qtbot, window, 20)
    window.pause()
    QApplication.processEvents()
    window.redraw.redraw_all()
    single = _curve_items(panel)
    used = _in_use(panel)
    for key, items in single.items():
        assert {i for i in items if i.isVisible()} == used[key] - set(panel.spin_axis.curves), key
        assert all(_empty(i) for i in items if not i.isVisible()), key  # spares hold no data
    # single mode: T, V and E in its palette, the widest last; no compare-mode dashes or z-order left over
    energy = [panel.series[0].curves[k] for k in ("T", "V", "E")]
    assert all(c.opts["pen"].style() == Qt.SolidLine and c.zValue() == 0 for c in energy)
    assert energy[2].opts["pen"].widthF() > energy[0].opts["pen"].widthF()

    window.set_compare(True)
    qtbot.waitUntil(lambda: len(panel.series) == len(window.session.runs) > 1, timeout=30000)
    again = _every_item(panel)
    for key in again:
        assert again[key] <= first[key], key  # none made anew
    styles = {panel.series[i].curves["E"].opts["pen"].style() for i in range(len(panel.series))}
    assert len(styles) > 1  # the methods' dashes are back on the reused items
