"""The plots' ranges (gui/plots/plot_ranges.py): data never sits on a plot's edge, the knife-edge's
phase portrait included (its x came right up to the right edge: a range was kept as long as the
data stayed inside it, however close)."""
from __future__ import annotations

import numpy as np
import pytest
import pyqtgraph as pg

from eomlab.engine.presets import preset
from eomlab.gui.plots.plot_ranges import EDGE_ROOM, MAX_TIME_GROWTH, TIME_AHEAD_WALL_S, TIME_GROWTH, PlotRanges

from gui_helpers import run_fast, wait_for_samples


def gaps_to_edges(plot: pg.PlotWidget, x: np.ndarray, y: np.ndarray) -> list[float]:
    """The room between the data and the plot's four edges, as fractions of the range shown."""
    (x0, x1), (y0, y1) = plot.getPlotItem().getViewBox().viewRange()
    return [(x.min() - x0) / (x1 - x0), (x1 - x.max()) / (x1 - x0),
            (y.min() - y0) / (y1 - y0), (y1 - y.max()) / (y1 - y0)]


def test_a_range_grows_before_the_data_reaches_its_edge(qtbot):
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    ranges = PlotRanges({"phase": plot}, (), ())
    ranges.reset()
    # a curve that creeps out to the right and up in small steps, as a run's samples come in
    t = np.linspace(0.0, 6.0, 600)
    x, y = 2.0 * np.sin(0.3 * t) + 0.1 * t, np.cos(t) * (1 + 0.2 * t)
    for n in range(5, len(t), 7):
        ranges.grow_y("phase", float(x[:n].min()), float(x[:n].max()), axis="x")
        ranges.grow_y("phase", float(y[:n].min()), float(y[:n].max()))
        gaps = gaps_to_edges(plot, x[:n], y[:n])
        assert min(gaps) >= 0.5 * EDGE_ROOM, (n, gaps)  # half the room: the margin is of the range grown


@pytest.mark.usefixtures("runs_end_at_t_end")
def test_knife_edge_phase_portrait_keeps_off_its_edges_as_its_samples_come_in(qtbot, make_window):
    window = make_window(preset("knife_edge").with_settings(t_end=10.0))
    run_fast(window)
    wait_for_samples(qtbot, window, 10)
    qtbot.waitUntil(lambda: window.state != "running", timeout=30000)
    # replay the run's redraws: the plots drawn up to a cursor that moves on, ranges from afresh
    panel, worst = window.plots, 1.0
    panel.ranges.reset()
    for until in np.linspace(0.2, 10.0, 50):
        panel.time_limit = lambda until=until: until
        panel.refresh(["phase"])
        x, y = panel.series[0].curves["phase"].getData()
        worst = min(worst, *gaps_to_edges(panel.plots["phase"], x, y))
    assert worst >= 0.5 * EDGE_ROOM, worst


class _Series:
    """What grow_time_axes reads of a run: its buffer."""

    def __init__(self, capacity: int):
        from eomlab.gui.runs.ring_buffer import RingBuffer

        self.buffer = RingBuffer(2, capacity=capacity)


def _motion_plot_on_a_test_clock(qtbot):
    """A motion plot, its ranges (reset) and the wall clock they read, which the test moves: [seconds]."""
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    wall = [0.0]
    ranges = PlotRanges({"motion": plot}, (), ("motion",), clock=lambda: wall[0])
    ranges.reset()
    return plot, ranges, wall


def test_a_full_buffer_sliding_on_moves_the_time_axis_only_when_the_data_reach_its_end(qtbot):
    """Once the buffer is full its first sample moves on with every batch; the time axis changed
    at every refresh then (a new axis to lay out and paint each time). Now: only when the data
    reach the range's end, the range always holds every kept sample, and the kept samples fill at
    least 1/MAX_TIME_GROWTH of it (the run goes at 1x real time on a clock of the test's)."""
    plot, ranges, wall = _motion_plot_on_a_test_clock(qtbot)
    series = _Series(capacity=500)
    changes, shown, t = 0, None, 0.0
    for _batch in range(600):  # 6,000 samples through a 500-row buffer
        rows = np.column_stack((t + 0.01 * np.arange(10), np.zeros(10)))
        t += 0.1
        wall[0] += 0.1
        series.buffer.append(rows)
        ranges.grow_time_axes([series], ["motion"])
        (x0, x1), _ = plot.getPlotItem().getViewBox().viewRange()
        first, last = series.buffer.view()[0, 0], series.buffer.last()[0]
        assert x0 <= first and last <= x1
        assert first - x0 <= (1 - 1 / MAX_TIME_GROWTH) * (x1 - x0) + 1e-9
        changes += (x0, x1) != shown
        shown = (x0, x1)
    assert changes <= 60  # one in ten refreshes at most (it was every refresh once full: 500 of them)


@pytest.mark.parametrize("pace", [1.0, 17.0])  # real time; a 20-link chain as fast as it goes
def test_a_fast_run_grows_its_time_axis_seldom_and_a_real_time_one_as_before(qtbot, pace):
    """The time axis of a run at 17x real time grows to hold TIME_AHEAD_WALL_S more wall seconds
    (at most MAX_TIME_GROWTH times its data): in its first 10 s of wall time it grows a few times
    instead of about a dozen; at 1x it grows by TIME_GROWTH as before. The range always holds
    every sample."""
    plot, ranges, wall = _motion_plot_on_a_test_clock(qtbot)
    series = _Series(capacity=100_000)
    growths, spans, shown, t = 0, [], None, 0.0
    for _tick in range(600):  # 10 s of wall time, a refresh every 1/60 s
        wall[0] += 1 / 60
        n = max(1, round(pace * 100 / 60))  # samples every 10 ms of simulated time
        series.buffer.append(np.column_stack((t + 0.01 * np.arange(n), np.zeros(n))))
        t += 0.01 * n
        ranges.grow_time_axes([series], ["motion"])
        (x0, x1), _ = plot.getPlotItem().getViewBox().viewRange()
        assert x0 <= series.buffer.view()[0, 0] and series.buffer.last()[0] <= x1
        if (x0, x1) != shown:
            growths += 1
            spans.append((x1 - x0, series.buffer.last()[0] - series.buffer.view()[0, 0]))
        shown = (x0, x1)
    later = [axis / data for axis, data in spans[2:]]
    assert all(ratio <= MAX_TIME_GROWTH + 1e-9 for ratio in later)
    if pace == 1.0:  # 3 s ahead at 1x is less than half the span once past 6 s: TIME_GROWTH then
        assert all(abs(axis / data - TIME_GROWTH) < 0.02 for axis, data in spans if data > 2 * TIME_AHEAD_WALL_S)
    else:
        assert growths <= 7, spans  # 6 here; at TIME_GROWTH alone 14
