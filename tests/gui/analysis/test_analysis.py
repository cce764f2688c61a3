"""Analyze ▸ Modes and Analyze ▸ Stability: the engine's eigenvalues in the table, the chosen mode
moving on the mechanism, the crossings of a parameter sweep found and drawn."""
import math

import numpy as np

from eomlab.engine.linearize import ModeMotion, linearize
from eomlab.engine.presets import preset


def test_modes_lists_the_eigenvalues_and_moves_the_chosen_one(make_window, qtbot):
    window = make_window(preset("double_pendulum_points"))
    panel = window.modes_panel
    panel.open()
    assert panel.table.rowCount() == 4 and "stable" in panel.summary.text()
    lin = linearize(window.model)
    for k, m in enumerate(lin.modes):  # f [Hz] as the engine says
        assert float(panel.table.item(k, 1).text()) == float(f"{m.frequency_hz:.3g}")
    panel.amplitude.setValue(40)  # 0.2 rad
    panel.table.selectRow(2)
    assert panel.timer.isActive() and panel.mode == 2
    qtbot.wait(300)
    frame = window.scene.frame
    # the drawn pose is the mode's at the instant drawn: q* + a Re(shape e^{iωt})
    expected = ModeMotion(window.model, lin).frame(2, 0.2, frame.t)
    np.testing.assert_allclose(frame.origins, expected.origins, atol=1e-12)
    window.run()
    assert not panel.timer.isActive()  # the run takes the mechanism back


def test_modes_refuses_a_state_that_is_no_equilibrium_in_one_line(make_window):
    window = make_window(preset("double_compound_pendulum"))
    panel = window.modes_panel
    panel.open()
    assert panel.table.rowCount() == 0
    assert "not an equilibrium or a steady motion" in panel.summary.text()
    panel.about.setCurrentIndex(1)  # the nearest equilibrium instead: upright, unstable
    assert panel.table.rowCount() == 4 and panel.summary.text().startswith("unstable")


def test_stability_finds_the_critical_spin_of_the_top(make_window, qtbot):
    window = make_window(preset("sleeping_top"))
    panel = window.stability_panel
    panel.open()
    panel.parameter.setCurrentText("top_wz")
    panel.range.setText("60:140:3")
    panel.compute()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=120_000)
    m, l, r = 0.5, 0.05, 0.04
    i1, i3 = 0.25 * m * r * r + m * l * l, 0.5 * m * r * r
    critical = math.sqrt(4 * m * 9.81 * l * i1 / i3 ** 2)
    assert abs(panel.result.crossings[0].value - critical) < 1e-6 * critical
    assert "oscillatory, stable above" in panel.status.text()
    lines = [item for item in panel.plot.getPlotItem().items if type(item).__name__ == "InfiniteLine"]
    assert any(abs(line.value() - critical) < 1e-6 for line in lines)
