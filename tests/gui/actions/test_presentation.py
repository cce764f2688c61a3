"""Presentation mode: large fonts and thick pens, light and dark themes, zoom, and screenshots
at 1920×1080 on a real X display."""
from __future__ import annotations

import project_paths
import json
import os
import shutil
import subprocess
import sys

import pyqtgraph as pg
import pytest
from PIL import Image, ImageStat

from eomlab.engine.presets import preset

ROOT = str(project_paths.ROOT)
SHOTS = str(project_paths.GUI_SCRIPTS / "presentation_shots.py")


def axes(window):
    return [p.getPlotItem().getAxis(side) for p in window.findChildren(pg.PlotWidget) if p.isVisible()
            for side in ("left", "bottom")]


def test_presentation_fonts_pens_theme_and_zoom(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    tree_visible = window.tree_dock.isVisible()
    window.presentation.enter()
    assert window.presentation.active and not window.tree_dock.isVisible() and not window.inspector_dock.isVisible()
    assert not window.settings_bar.integrator_box.isVisibleTo(window)  # the fine print is hidden
    for axis in axes(window):
        assert axis.label.font().pixelSize() >= 18 and axis.style["tickFont"].pixelSize() >= 18
    assert window.run_actions.time_label.fontInfo().pixelSize() >= 30
    qtbot.waitUntil(lambda: window.runs[0].series is not None, timeout=10000)
    pens = [c.opts["pen"] for c in window.runs[0].series.curves.values()]
    assert pens and min(p.widthF() for p in pens) >= 3
    assert window.scene2d.rods.opts["pen"].widthF() >= 3 and window.scene2d.links.opts["pen"].widthF() >= 3

    light_bg = window.plots.plots["energy"].backgroundBrush().color().lightness()
    window.presentation.toggle_theme()
    assert window.presentation.theme.name == "dark"
    assert window.plots.plots["energy"].backgroundBrush().color().lightness() < 60 < light_bg

    size = axes(window)[0].label.font().pixelSize()
    window.presentation.zoom(+1)
    assert axes(window)[0].label.font().pixelSize() > size
    for _ in range(8):  # as large as it goes: the clock is never cut
        window.presentation.zoom(+1)
    label = window.run_actions.time_label
    label.setText("t = 10000.000 s / 10000 s")
    label.ensurePolished()
    assert label.minimumWidth() >= label.fontMetrics().horizontalAdvance(label.text())
    for _ in range(8):
        window.presentation.zoom(-1)
    window.presentation.zoom(+1)
    assert min(c.opts["pen"].widthF() for c in window.runs[0].series.curves.values()) > min(p.widthF() for p in pens)
    window.presentation.zoom(-1)
    window.presentation.zoom(-1)  # presentation never goes below 18 pt
    assert axes(window)[0].label.font().pixelSize() == size

    window.presentation.toggle_theme()
    window.presentation.leave()
    assert not window.presentation.active and window.tree_dock.isVisible() == tree_visible
    assert window.settings_bar.integrator_box.isVisibleTo(window)
    assert axes(window)[0].label.font().pixelSize() < 18


def xvfb_1080p() -> list[str] | None:
    if os.environ.get("DISPLAY"):
        return []
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"]
    return None


@pytest.mark.xvfb
def test_presentation_screenshots_at_1080p(tmp_path):
    command = xvfb_1080p()
    if command is None:
        pytest.skip("needs an X display")
    light, dark = tmp_path / "light.png", tmp_path / "dark.png"
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(command + [sys.executable, SHOTS, "", str(light), str(dark)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    means = {}
    for theme, path in (("light", light), ("dark", dark)):
        r = report[theme]
        assert r["saved"] and r["label_px"] and min(r["label_px"]) >= 18, r
        assert min(r["tick_px"]) >= 18 and r["time_label_px"] >= 30, r
        image = Image.open(path).convert("RGB")
        if not os.environ.get("DISPLAY"):
            assert image.size == (1920, 1080)
        stat = ImageStat.Stat(image)
        assert max(stat.stddev) > 10
        means[theme] = sum(stat.mean) / 3
    assert means["light"] > 150 and means["dark"] < 80, means
