"""The energy bars' axis (gui/plots/energy_bars.py): through zero, holding every value the run showed,
on a 1-2-5 ladder, growing now and then and never following a frame."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from eomlab.engine.presets import preset
from eomlab.gui.plots.energy_bars import bar_axis, ladder_ceiling

from gui_helpers import run_fast, wait_for_samples


@pytest.mark.parametrize("value, expected", [(1.0, 1.0), (1.2, 2.0), (2.2, 2.5), (3.0, 5.0), (7.0, 10.0),
                                             (0.031, 0.05), (36.75, 50.0), (150.0, 200.0)])
def test_ladder_ceiling(value, expected):
    assert ladder_ceiling(value) == pytest.approx(expected)


def test_bar_axis_holds_the_values_and_zero():
    assert bar_axis(-18.0, 35.0) == pytest.approx((-20.0, 50.0))
    low, high = bar_axis(0.0, 104.0)
    assert low == pytest.approx(-0.0) and high == pytest.approx(200.0)
    low, high = bar_axis(-45.0, 0.0)  # everything below zero: a little room above it
    assert low == pytest.approx(-50.0) and high == pytest.approx(5.0)


def test_the_bars_axis_grows_in_steps_and_never_shrinks(qtbot, make_window):
    # the double pendulum swings over the top: T and V move (W stays 0: nothing does work on it)
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=1e5))
    window.plots.choose(["motion", "energy_bars"])
    run_fast(window)
    wait_for_samples(qtbot, window, 20)
    view = window.plots.plots["energy_bars"].getPlotItem().getViewBox()
    ranges, seen_low, seen_high = [], 0.0, 0.0
    for _ in range(80):
        QApplication.processEvents()
        window.redraw.redraw_all()
        low, high = view.viewRange()[1]
        ranges.append((low, high))
        series = window.plots.series[0]
        data = series.rows_until(window.session.cursor_time())
        energy = series.column(data, "E")
        values = np.concatenate([energy, series.column(data, "T"), series.column(data, "V"), [0.0]])
        seen_low, seen_high = min(seen_low, values.min()), max(seen_high, values.max())
        assert low <= min(0.0, seen_low) and max(0.0, seen_high) <= high, (low, high, seen_low, seen_high)
        qtbot.wait(20)
    lows, highs = np.array(ranges).T
    assert np.all(np.diff(lows) <= 0) and np.all(np.diff(highs) >= 0)  # grows only
    assert len(set(ranges)) <= 4, set(ranges)  # a few steps, not a range per frame
