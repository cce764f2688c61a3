"""The energy now, as bars (as PhET and myPhysicsLab show it): kinetic T, potential V, total E and
the work W of the non-conservative forces since t = 0 (the engine's energy account: a change of
gravity, a mass or a drag is nobody's work, so a conservative model keeps W = 0), all at the
instant shown (the session's cursor, a scrubbed instant too).

The bars stand on zero, and their axis holds every value the run has shown so far, each end on a
1-2-5 ladder: it grows now and then as the run reaches new extremes, never follows a frame."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from eomlab.gui.style.method_styles import PALETTE
from eomlab.gui.plots.plot_data import energy_balance

BARS = (("T", PALETTE[0]), ("V", PALETTE[2]), ("E", PALETTE[1]), ("W", PALETTE[4]))
BAR_LABELS = ("T kinetic", "V potential", "E = T + V", "W work")  # W: of the non-conservative forces
#: the axis leaves this much room (fraction) beyond the largest value before rounding up
ROOM = 0.05


def ladder_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is ≥ `value` (> 0)."""
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in (1.0, 2.0, 2.5, 5.0, 10.0) if step * power >= value * (1 - 1e-12))


def bar_axis(low: float, high: float) -> tuple[float, float]:
    """The bars' y range for values in [low, high]: zero in it, each end rounded out on the ladder;
    a side with nothing on it gets a tenth of the other, so a bar of zero still shows its base."""
    top = ladder_ceiling((1 + ROOM) * high) if high > 0 else 0.0
    bottom = -ladder_ceiling((1 + ROOM) * -low) if low < 0 else 0.0
    span = max(top - bottom, 1e-9)
    if top == 0.0:
        top = 0.1 * span
    if bottom == 0.0 and low < 0:
        bottom = -0.1 * span
    return bottom, top


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
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        self.extremes: tuple[float, float] = (0.0, 0.0)  # of every value shown in this run
        self._series = None

    def attach(self) -> None:
        """Put the bars back after the plot was cleared."""
        item = self.plot.getPlotItem()
        if self.bars not in item.items:
            item.addItem(self.bars)
        item.setXRange(-0.5, len(BARS) - 0.5, padding=0)

    def show(self, series, data: np.ndarray) -> tuple[float, float] | None:
        """The bars of the last row of `data` (the rows up to the instant shown); sets and returns
        the y range."""
        if series is not self._series:  # a new run: its own extremes
            self._series, self.extremes = series, (0.0, 0.0)
        if not len(data):
            self.bars.setOpts(height=np.zeros(len(BARS)))
            return None
        energy, kinetic, potential = (series.column(data, c) for c in ("E", "T", "V"))
        work = np.nan_to_num(energy_balance(series, data)[0])  # the engine's account: edits are no work
        self.bars.setOpts(height=np.array([kinetic[-1], potential[-1], energy[-1], work[-1]]))
        values = np.concatenate((energy, kinetic, potential, work))
        values = values[np.isfinite(values)]
        if len(values):
            self.extremes = (min(self.extremes[0], float(values.min())), max(self.extremes[1], float(values.max())))
        wanted = bar_axis(*self.extremes)
        item = self.plot.getPlotItem()
        if not np.allclose(item.getViewBox().viewRange()[1], wanted, rtol=1e-9, atol=1e-12):
            item.setYRange(*wanted, padding=0)
        return wanted
