"""The plots' axis ranges: time axes fixed ahead of the data and grown in steps, y ranges grown
with room to spare (an axis that changes at every refresh must be laid out and painted again), a
range the user set with the mouse left alone, and everything back to a neutral start when the
model or the runs change (no range, log or linear, survives from the previous model)."""
from __future__ import annotations

import time

import numpy as np

#: a time axis the data reach grows to this many times their span: a new range is an axis to lay out
#: and paint again, so a fast run should meet the end of its axis rarely
TIME_GROWTH = 1.5
#: ...and, for a run faster than real time, to hold what it will reach in this many wall seconds at
#: its pace since the last growth (growing by TIME_GROWTH alone, a run many times faster than real
#: time would meet its axis's end every second or so, and an axis paint is a late frame)
TIME_AHEAD_WALL_S = 3.0
#: but never past this many times the data's span (the curves keep a quarter of the plot's width)
MAX_TIME_GROWTH = 4.0
#: a y range that must grow takes this much extra room (fraction of the span; decades on log plots)
Y_GROWTH_ROOM = 0.15
#: data never comes closer than this to a range's edge (fraction of the range): a curve drawn on
#: the frame of its plot cannot be told from it
EDGE_ROOM = 0.04
#: the smallest y span shown, relative to the values' magnitude: a constant 24.372107 is drawn on
#: an axis of a few labelled ticks, not at 1e-12 resolution with twelve-digit tick labels
MIN_RELATIVE_SPAN = 1e-3
#: the empty range of a log plot, in decades (log10 units)
LOG_START = (-16.0, -6.0)
#: log plots always show at least this many decades, so their ticks stay labelled and apart
MIN_DECADES = 3.0


class PlotRanges:
    def __init__(self, plots: dict, log_plots, time_plots, clock=time.monotonic):
        self.plots = plots
        self.clock = clock  # wall seconds (tests pass their own)
        self._last_growth: tuple[float, float] | None = None  # (wall time, data's end) at the last growth
        self.log_plots = set(log_plots)
        self.time_plots = tuple(time_plots)
        self.time_range: tuple[float, float] | None = None
        self._time_ranges: dict[str, tuple] = {}  # the time range each time plot shows
        self._y_ranges: dict[str, tuple] = {}  # the y range each plot was given (log10 on log plots)
        self._y_managed: dict[str, bool] = {}  # False: the user set the range with the mouse
        self._setting = False
        for key, plot in plots.items():
            item = plot.getPlotItem()
            item.getViewBox().sigRangeChangedManually.connect(lambda _mask, k=key: self._user_ranged(k))
            item.autoBtn.clicked.connect(lambda *_a, k=key: self._auto_pressed(k))
            if key in self.log_plots:
                item.setLimits(minYRange=MIN_DECADES)

    def reset(self) -> None:
        """A neutral start: time 0…1 s, y 0…1 (log plots: 1e-16…1e-6), every plot managed again."""
        self.time_range = None
        self._last_growth = None
        self._time_ranges.clear()
        self._y_ranges.clear()
        self._y_managed.clear()
        self._setting = True
        try:
            for key, plot in self.plots.items():
                item = plot.getPlotItem()
                item.enableAutoRange(x=False, y=False)
                item.setXRange(0.0, 1.0, padding=0)
                item.setYRange(*(LOG_START if key in self.log_plots else (0.0, 1.0)), padding=0)
        finally:
            self._setting = False

    def set_y(self, key: str, low: float, high: float, axis: str = "y") -> None:
        self._y_ranges[(key, axis)] = (low, high)
        self._setting = True
        try:
            item = self.plots[key].getPlotItem()
            item.setYRange(low, high, padding=0) if axis == "y" else item.setXRange(low, high, padding=0)
        finally:
            self._setting = False

    def grow_y(self, key: str, low: float, high: float, axis: str = "y") -> None:
        """Fit the y range to [low, high] with room to grow (Y_GROWTH_ROOM), but change it only
        when the data comes within EDGE_ROOM of its edge or fills less than half of it. A range the user set (mouse) is
        left alone until the plot's auto-range button is pressed."""
        if not self._y_managed.get(key, True) or not (np.isfinite(low) and np.isfinite(high)):
            return
        log = key in self.log_plots and axis == "y"
        magnitude = max(abs(low), abs(high))
        span = high - low
        least = MIN_DECADES if log else max(MIN_RELATIVE_SPAN * magnitude, 1e-12)
        if span < least:  # centre a readable span on the values
            middle = 0.5 * (low + high)
            low, high, span = middle - 0.5 * least, middle + 0.5 * least, least
        current = self._y_ranges.get((key, axis))
        if current is not None:
            edge = EDGE_ROOM * (current[1] - current[0])
            if current[0] + edge <= low and high <= current[1] - edge and \
                    span >= 0.5 * (current[1] - current[0]) - 1e-300:
                return
        room = Y_GROWTH_ROOM * span
        self.set_y(key, low - room, high + room, axis)

    def _user_ranged(self, key: str) -> None:
        if not self._setting:
            self._y_managed[key] = False

    def _auto_pressed(self, key: str) -> None:
        self._y_managed[key] = True
        for axis in ("x", "y"):
            self._y_ranges.pop((key, axis), None)

    def grow_time_axes(self, series, keys) -> None:
        """Fix the time range ahead of the data (`_time_span`). Each plot takes a new range when
        it is refreshed itself (the plots refresh in turn). Once the buffers are full their first
        sample moves on with every batch: the range follows only when the data reach its end (a
        new range is a new axis to lay out and paint)."""
        keys = set(keys) & set(self.time_plots)
        spans = [(s.buffer.view()[0, 0], s.buffer.last()[0]) for s in series if len(s.buffer)]
        if not spans:
            self.time_range = None
            return
        start, end = min(a for a, _ in spans), max(b for _, b in spans)
        current = self.time_range
        if current is None or start < current[0] or end > current[1]:
            self.time_range = (start, start + max(1.0, self._time_span(end - start, end)))
        for key in keys:
            if self._time_ranges.get(key) != self.time_range:
                self._time_ranges[key] = self.time_range
                self.plots[key].getPlotItem().setXRange(*self.time_range, padding=0)

    def _time_span(self, span: float, end: float) -> float:
        """The span of a grown time axis over data spanning `span` up to time `end`: TIME_GROWTH
        times the span, or room for TIME_AHEAD_WALL_S more wall seconds at the pace the data grew
        since the last growth, whichever is more, up to MAX_TIME_GROWTH times the span."""
        now, grown = self.clock(), TIME_GROWTH * span
        if self._last_growth is not None and now > self._last_growth[0]:
            pace = max(0.0, end - self._last_growth[1]) / (now - self._last_growth[0])
            grown = min(max(grown, span + pace * TIME_AHEAD_WALL_S), MAX_TIME_GROWTH * span)
        self._last_growth = (now, end)
        return grown

    def samples_per_column(self, width: float, t: np.ndarray) -> int:
        """How many samples of `t` (evenly spaced) fall on one pixel column `width` pixels wide."""
        if len(t) < 2 or width <= 0 or self.time_range is None or not t[-1] > t[0]:
            return 1
        dt = (t[-1] - t[0]) / (len(t) - 1)
        return int((self.time_range[1] - self.time_range[0]) / dt / width)


def widen(bounds: dict, key: str, values: np.ndarray) -> None:
    """Widen bounds[key] = [low, high] to take in the finite `values`."""
    finite = values[np.isfinite(values)]
    if not len(finite):
        return
    low, high = float(finite.min()), float(finite.max())
    if key in bounds:
        bounds[key][0] = min(bounds[key][0], low)
        bounds[key][1] = max(bounds[key][1], high)
    else:
        bounds[key] = [low, high]
