"""The plots' curve items, kept from one set of curves to the next.

A pyqtgraph curve item costs about 3 ms to make (its curve and scatter items, their signals), and
compare mode's plots hold some 40: every start of the runs (Ctrl+M, a settings edit, a reset) made
them all again, 100-160 ms of the GUI thread in one go. The plots now take back the items they had,
restyled and emptied, and make only those they lack; items left over stay in their plot, empty and
hidden (taking an item out of a plot and putting it back costs about as much as making it).
"""
from __future__ import annotations

import pyqtgraph as pg


class CurvePool:
    """`begin()`, then `take(key, pen, segmented)` for each curve of plot `key`, then `end()`."""

    def __init__(self, plots: dict[str, pg.PlotWidget]):
        self.plots = plots
        self.in_use: dict[str, list[pg.PlotDataItem]] = {key: [] for key in plots}
        self._spare: dict[str, list[pg.PlotDataItem]] = {key: [] for key in plots}

    def begin(self) -> None:
        """The curves in use become spare: `take` hands them out again."""
        for key, curves in self.in_use.items():
            self._spare[key].extend(reversed(curves))  # handed out in their old order (`take` pops the end)
            curves.clear()

    def take(self, key: str, pen, segmented: bool) -> pg.PlotDataItem:
        """An empty curve in plot `key` drawn with `pen`; `segmented`: stroked as separate segments."""
        item = self.plots[key].getPlotItem()
        spare = self._spare[key]
        if spare:
            curve = spare.pop()
            curve.setData([], [])
            curve.setPen(pen)
            curve.setZValue(0)  # compare mode lowers wider curves (gui/compare/compare_identical.py)
            if curve not in item.items:  # it was on the spinning angles' axis (plot_spin.py)
                item.addItem(curve)
            curve.setVisible(True)
        else:
            curve = item.plot([], [], pen=pen)
        curve.curve.setSegmentedLineMode("on" if segmented else "auto")
        self.in_use[key].append(curve)
        return curve

    def end(self) -> None:
        """Curves not handed out are emptied and hidden (a hidden item neither paints nor counts in
        its plot's auto range), kept for a later `take`."""
        for spare in self._spare.values():
            for curve in spare:
                curve.setData([], [])
                curve.setVisible(False)
