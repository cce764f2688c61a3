"""Run ▸ Sweep: the map fills in chunk by chunk with the engine's numbers; a click opens that run."""
import numpy as np

from eomlab.engine.presets import preset
from eomlab.engine.sweep import sweep


def test_the_map_fills_and_a_click_opens_the_run(make_window, qtbot, tmp_path):
    window = make_window(preset("double_compound_pendulum"))
    from eomlab.gui.sweeps.sweep_panel import open_for

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


def test_the_default_measure_is_going_over_the_top_and_the_map_exports(make_window, qtbot, tmp_path):
    import pandas as pd

    window = make_window(preset("double_compound_pendulum"))
    from eomlab.gui.sweeps.sweep_panel import open_for

    panel = open_for(window)
    assert panel.measure.currentText() == "over_top:lower_theta"  # the lower rod over the top, from hanging
    assert not panel.png_button.isEnabled() and not panel.parquet_button.isEnabled()
    for (name, low, high, count), (text, n) in zip(panel.axes, (("upper_theta", 4), ("lower_theta", 3))):
        name.setCurrentText(text)
        low.setValue(-3.0)
        high.setValue(3.0)
        count.setValue(n)
    panel.t_end.setValue(1.0)
    panel.start_or_stop()
    qtbot.waitUntil(lambda: panel.progress.value() == 12, timeout=120_000)
    qtbot.waitUntil(lambda: panel.start_button.text() == "Start", timeout=10_000)
    assert panel.export_png(str(tmp_path / "map.png")) is None
    assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert panel.export_parquet(str(tmp_path / "map.parquet")) is None
    table = pd.read_parquet(tmp_path / "map.parquet")
    assert list(table["run"]) == list(range(12))
    np.testing.assert_array_equal(table["over_top:lower_theta"].to_numpy(), panel.values.ravel())
    error = panel.export_parquet(str(tmp_path / "missing" / "map.parquet"))
    assert error is not None and "\n" not in error and "missing" in error
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".eomlab-")]  # no temporary left
