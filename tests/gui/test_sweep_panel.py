"""Run ▸ Sweep: the map fills in chunk by chunk with the engine's numbers; a click opens that run."""
import numpy as np

from eomlab.engine.presets import preset
from eomlab.engine.sweep import sweep


def test_the_map_fills_and_a_click_opens_the_run(make_window, qtbot, tmp_path):
    window = make_window(preset("double_compound_pendulum"))
    from eomlab.gui.sweep_panel import open_for

    panel = open_for(window)
    for (name, low, high, count), (text, n) in zip(panel.axes, (("upper_theta", 12), ("lower_theta", 10))):
        name.setCurrentText(text)
        low.setValue(-3.0)
        high.setValue(3.0)
        count.setValue(n)
    panel.measure.setCurrentText("flip_time:lower_theta")
    panel.t_end.setValue(2.0)
    panel.start_or_stop()
    # chunks reach the window as queued signals: the last may land after the thread has ended
    qtbot.waitUntil(lambda: panel.progress.value() == 120, timeout=240_000)
    qtbot.waitUntil(lambda: panel.start_button.text() == "Start", timeout=10_000)
    expected = sweep(window.model, vary={"upper_theta": "-3:3:12", "lower_theta": "-3:3:10"},
                     measure="flip_time:lower_theta", t_end=2.0, workers=0)
    np.testing.assert_array_equal(panel.values.ravel(), expected["flip_time:lower_theta"].to_numpy())
    assert np.isfinite(panel.values).any() and np.isnan(panel.values).any()
    panel.grab().save(str(tmp_path / "sweep_panel.png"))
    panel.open_run(37)  # upper_theta index 3, lower_theta index 7
    q = [b.joint.q0[0] for b in window.model.bodies]
    np.testing.assert_allclose(q, [np.linspace(-3, 3, 12)[3], np.linspace(-3, 3, 10)[7]])
