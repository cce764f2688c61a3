"""The motion plot's own axis for spinning angles: an angle that keeps turning (a top's spin, a
double pendulum's lower link going over the top) is drawn wrapped into (−π, π] against a right-hand
axis of its own, so the left axis keeps the scale of the coordinates that swing."""
from __future__ import annotations

import math

import pyqtgraph as pg

#: the right axis's ticks: the wrapped range in fractions of π
SPIN_TICKS = [(-math.pi, "−π"), (-math.pi / 2, "−π/2"), (0.0, "0"), (math.pi / 2, "π/2"), (math.pi, "π")]


class SpinAxis:
    """A second view box over a plot's data area, sharing its time axis, with its y axis on the
    right fixed to (−π, π]; hidden while no curve is on it."""

    def __init__(self, plot: pg.PlotWidget):
        self.item = plot.getPlotItem()
        self.view = pg.ViewBox(enableMouse=False)
        self.view.setMouseEnabled(x=False, y=False)
        self.item.scene().addItem(self.view)
        axis = self.item.getAxis("right")
        axis.linkToView(self.view)
        axis.setTicks([SPIN_TICKS])
        # no label: its ticks (−π … π) say what it is, and the key marks the curves on it "(right)"
        self.view.setXLink(self.item)
        self.view.setYRange(-math.pi, math.pi, padding=0.04)
        self.item.getViewBox().sigResized.connect(self._cover_data_area)
        self.curves: list[pg.PlotDataItem] = []
        self._show(False)

    def _cover_data_area(self) -> None:
        self.view.setGeometry(self.item.getViewBox().sceneBoundingRect())

    def take(self, curve: pg.PlotDataItem) -> None:
        """Draw `curve` (its values wrapped) against the right axis from now on."""
        if curve in self.curves:
            return
        self.item.removeItem(curve)
        self.view.addItem(curve)
        self.curves.append(curve)
        self._show(True)

    def holds(self, curve) -> bool:
        return curve in self.curves

    def clear(self) -> None:
        for curve in self.curves:
            self.view.removeItem(curve)
        self.curves = []
        self._show(False)

    def _show(self, shown: bool) -> None:
        self.item.showAxis("right", shown)
        self.view.setVisible(shown)
        if shown:
            self._cover_data_area()
