"""CSV and plot exports."""
from __future__ import annotations

import pytest

from eomlab.engine.presets import preset

from gui_helpers import run_fast, wait_for_samples


@pytest.mark.usefixtures("runs_end_at_t_end")
def test_csv_png_svg_exports(qtbot, make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=0.5))
    run_fast(window)
    wait_for_samples(qtbot, window, 51)
    window.plots.refresh()
    csv = tmp_path / "samples.csv"
    assert window.files.export_csv(str(csv)) == 51
    lines = csv.read_text().splitlines()
    assert lines[0].split(",")[:3] == ["t", "upper_theta", "lower_theta"] and len(lines) == 52
    for key in window.plots.plots:
        png, svg = tmp_path / f"{key}.png", tmp_path / f"{key}.svg"
        window.files.export_plot(key, str(png))
        window.files.export_plot(key, str(svg))
        assert png.stat().st_size > 1000
        text = svg.read_text()
        assert text.startswith("<?xml") and "<svg" in text and ("<path" in text or "<polyline" in text)
