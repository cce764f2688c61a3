"""A spinning angle (gui/plots/plot_spin.py) is drawn wrapped against a right-hand axis of its own, so
the coordinates that only swing keep the left axis to themselves."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtWidgets import QApplication

from eomlab.engine.presets import preset
from eomlab.gui.plots.plot_data import WRAP_SPAN, spins, wrapped

from gui_helpers import run_fast, wait_for_samples


def test_wrapped_breaks_the_line_where_it_jumps():
    angle = np.linspace(0.0, 4.5 * np.pi, 200)
    out = wrapped(angle)
    finite = out[np.isfinite(out)]
    assert np.all(finite > -np.pi - 1e-12) and np.all(finite <= np.pi + 1e-12)
    assert np.isnan(out).sum() == 2  # two jumps over ±π, two breaks
    assert spins(angle, "rad") and not spins(angle, "m") and not spins(np.linspace(0, 6, 50), "rad")


def test_the_heavy_tops_spin_has_its_own_axis(qtbot, make_window):
    window = make_window(preset("heavy_top").with_settings(t_end=1000.0))
    panel = window.plots
    run_fast(window)
    wait_for_samples(qtbot, window, 150)  # 1.5 s: the spin angle has turned many times
    window.pause()
    QApplication.processEvents()
    window.redraw.redraw_all()
    main = panel.series[0]
    spinning = [name for name in panel.coordinates.chosen if main.curves[f"q:{name}"] in panel.spin_axis.curves]
    # the spin phi has turned many times; the precession psi joins it only if the run got past
    # a full turn of it before the pause took effect (about 6 s): each is on the right axis iff it spans > 2π
    data = main.rows_until(window.session.cursor_time())
    turned = [n for n in panel.coordinates.chosen if np.ptp(main.column(data, n)) > WRAP_SPAN]
    assert "top_phi" in spinning and spinning == turned, (panel.coordinates.chosen, spinning, turned)
    item = panel.plots["motion"].getPlotItem()
    assert item.getAxis("right").isVisible()
    low, high = panel.spin_axis.view.viewRange()[1]
    assert low < -math.pi + 1e-9 and math.pi - 1e-9 < high and high - low < 2.5 * math.pi
    # the left axis holds the swinging coordinates alone: their span, not the spin's 2π
    others = [main.column(data, n) for n in panel.coordinates.chosen if n not in spinning]
    span = max(float(np.ptp(v)) for v in others)
    left_low, left_high = item.getViewBox().viewRange()[1]
    assert left_high - left_low < max(2.0 * span, 0.5), (left_low, left_high, span)
    assert "(right)" in item.titleLabel.text
    # a fresh run starts with nothing on the right axis
    window.reset()
    QApplication.processEvents()
    assert not panel.spin_axis.curves and not item.getAxis("right").isVisible()
