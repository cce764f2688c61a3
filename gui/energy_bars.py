"""The energy now, as bars (as PhET and myPhysicsLab show it): kinetic T, potential V, total E and
the work W of the non-conservative forces since t = 0 (W = E − E₀: what changed the total)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from eomlab.gui.method_styles import PALETTE

BARS = (("T", PALETTE[0]), ("V", PALETTE[2]), ("E", PALETTE[1]), ("W", PALETTE[4]))
BAR_LABELS = ("T kinetic", "V potential", "E = T + V", "W = E − E₀")


class EnergyBars:
    """Bars in one plot, set from a run's sample at the displayed instant."""

    def __init__(self, plot: pg.PlotWidget):
        self.plot = plot
        item = plot.getPlotItem()
        self.bars = pg.BarGraphItem(x=np.arange(len(BARS)), height=np.zeros(len(BARS)), width=0.7,
                                    brushes=[pg.mkBrush(color) for _, color in BARS], pens=[None] * len(BARS))
        item.addItem(self.bars)
        axis = item.getAxis("bottom")
        axis.setTicks([[(i, label) for i, label in enumerate(BAR_LABELS)]])
        item.setXRange(-0.5, len(BARS) - 0.5, padding=0)
        item.setMouseEnabled(x=False, y=True)
        item.hideButtons()

    def attach(self) -> None:
        """Put the bars back after the plot was cleared."""
        item = self.plot.getPlotItem()
        if self.bars not in item.items:
            item.addItem(self.bars)
        item.setXRange(-0.5, len(BARS) - 0.5, padding=0)

    def show(self, series, data: np.ndarray) -> tuple[float, float] | None:
        """The bars of the last row of `data`; returns the y extent they need over the run."""
        if not len(data):
            self.bars.setOpts(height=np.zeros(len(BARS)))
            return None
        energy, kinetic, potential = (series.column(data, c) for c in ("E", "T", "V"))
        work = energy - energy[0]
        self.bars.setOpts(height=np.array([kinetic[-1], potential[-1], energy[-1], work[-1]]))
        values = np.concatenate((energy, kinetic, potential, work, [0.0]))
        return float(np.min(values)), float(np.max(values))
