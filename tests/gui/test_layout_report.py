"""The classroom view, checked through the layout report (gui/report.py): the mechanism owns the
screen in presentation mode, legends never cover data, and compare mode shows one instant."""
from __future__ import annotations

import project_paths
import json
import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication

from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile import load_model
from eomlab.engine.presets import preset
from eomlab.gui.report import layout_report

from gui_helpers import run_fast, wait_for_samples

ROOT = str(project_paths.ROOT)
FOUR_BAR = os.path.join(ROOT, "assets", "models", "four_bar.eom.json")


def rect(values) -> QRect:
    return QRect(*values)


def redraw(window) -> dict:
    QApplication.processEvents()
    window.redraw.redraw_all()
    return layout_report(window)


def test_presentation_mechanism_owns_the_screen_and_the_reach_fills_the_view(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum").with_settings(t_end=100.0), run=True)
    window.presentation.enter((1920, 1080))
    wait_for_samples(qtbot, window, 20)
    qtbot.wait(300)  # the layout settles
    report = redraw(window)
    assert report["window"] == [1920, 1080] and report["presentation"]
    (view,) = report["views"]
    x, y, w, h = view["rect"]
    assert w * h >= 0.6 * 1920 * 1080, view
    _, _, reach_w, reach_h = view["reach"]
    assert reach_h >= 0.8 * h or reach_w >= 0.8 * w, view
    # the mechanism is drawn inside its view and inside its reach
    assert rect(view["rect"]).contains(rect(view["mechanism"])), view
    assert rect(view["reach"]).adjusted(-2, -2, 2, 2).contains(rect(view["mechanism"])), view
    # Reset re-fits a view the user zoomed out of
    window.scene.getPlotItem().getViewBox().scaleBy((4, 4))
    window.scene.user_moved = True
    window.reset()
    qtbot.wait(100)
    after = redraw(window)["views"][0]
    assert after["reach"][3] >= 0.8 * h or after["reach"][2] >= 0.8 * w, after
    window.presentation.leave()


def test_no_legend_covers_a_curve_over_200_redraws(qtbot, make_window):
    # the four-bar has every plot (constraint drift, multipliers): all six legends in play
    window = make_window(load_model(FOUR_BAR).with_settings(t_end=1000.0, method="lagrange"))
    run_fast(window)
    wait_for_samples(qtbot, window, 10)
    checked = 0
    for i in range(200):
        QApplication.processEvents()
        window.redraw.mark_dirty()
        window.redraw.tick()
        if i % 10 == 9:
            report = layout_report(window)
            keyed = [p for p in report["plots"] if p["legend"]]
            assert len(keyed) >= 4, report["plots"]
            for plot in keyed:
                assert not rect(plot["legend"]).intersects(rect(plot["data"])), plot
                assert rect(plot["rect"]).contains(rect(plot["legend"])), plot
            checked += 1
    assert checked == 20 and window.state == "running"


def one_instant(times: list, cursor: float | None = None) -> bool:
    """Every view at one instant (and at the cursor): within 1e-9 s, as the runs' own sample times of one
    grid instant may differ in the last bit (0.35 and 0.35000000000000003)."""
    values = [t for t in times if t is not None] + ([cursor] if cursor is not None else [])
    return len(values) == len(times) + (cursor is not None) and max(values) - min(values) <= 1e-9


@pytest.mark.parametrize("layout", ["overlay", "tiled"])
def test_compare_views_show_the_same_instant_at_every_redraw(qtbot, make_window, layout):
    window = make_window(load_model(FOUR_BAR).with_settings(t_end=1000.0), compare=True)
    panel = window.compare_view.panel
    panel.layout_box.setCurrentIndex(panel.layout_box.findData(layout))
    run_fast(window)
    # every method's tile made (one per turn of the event loop) and every run a few samples in
    qtbot.waitUntil(lambda: all(r.series is not None and len(r.series.buffer) > 5 for r in window.runs)
                    and not window.compare_view.tiles.waiting, timeout=30000)
    methods = {r.method for r in window.runs}
    instants = set()
    for _ in range(60):
        QApplication.processEvents()
        window.redraw.mark_dirty()
        window.redraw.tick()
        report = layout_report(window)
        views = report["views"]
        assert {v["name"] for v in views} == methods, views
        assert one_instant([v["t"] for v in views], report["cursor"]), views  # one instant for every method
        if layout == "overlay":
            assert len({tuple(v["rect"]) for v in views}) == 1  # the overlay: one view, each its own entry
        instants.add(report["cursor"])
        # the plots stop at the same instant: no method's curve runs ahead
        for run in window.runs:
            x, _y = run.series.curves["E"].getData()
            assert x is None or x[-1] <= report["cursor"] + 1e-12
    assert len(instants) > 5  # it moved while we looked
    window.redraw.redraw_all()
    cursor = window.session.cursor_time()
    for curve in panel.difference_curves.values():
        assert curve.xData[-1] <= cursor + 1e-12


def x_command() -> list[str]:
    if os.environ.get("DISPLAY"):
        return []
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"]
    pytest.skip("needs an X display")


def gui_env() -> dict:
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # a real X display: the 3-D view has OpenGL there
    return env


def report_at_1080p(tmp_path, model: str, *options: str) -> tuple[dict, object]:
    """`eomlab gui MODEL --presentation --size 1920x1080 --report … --screenshot …` under X."""
    report_path, shot = tmp_path / "r.json", tmp_path / "s.png"
    done = subprocess.run(x_command() + [sys.executable, "-m", "eomlab", "gui", model, "--run-for", "2",
                                         "--presentation", "--size", "1920x1080", *options,
                                         "--report", str(report_path), "--screenshot", str(shot)],
                          cwd=ROOT, env=gui_env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(report_path.read_text()), shot


@pytest.mark.xvfb
def test_command_line_report_in_presentation_at_1080p(tmp_path):
    report, shot = report_at_1080p(tmp_path, FOUR_BAR, "--compare")
    assert report["window"] == [1920, 1080] and shot.stat().st_size > 10000
    assert len(report["views"]) == len(METHODS) and one_instant([v["t"] for v in report["views"]])
    for view in report["views"]:
        assert set(view) >= {"name", "t", "rect", "mechanism", "reach"}
    for plot in report["plots"]:
        assert set(plot) >= {"name", "rect", "legend"}
    bad = subprocess.run([sys.executable, "-m", "eomlab", "gui", FOUR_BAR, "--size", "big"], cwd=ROOT,
                         env=gui_env(), capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "--size" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.xvfb
def test_3d_view_reports_its_mechanism_and_reach_in_presentation(tmp_path):
    report, _shot = report_at_1080p(tmp_path, os.path.join(ROOT, "assets", "models", "spatial_chain.eom.json"))
    (view,) = report["views"]
    x, y, w, h = view["rect"]
    assert w * h >= 0.6 * 1920 * 1080, view
    assert view["mechanism"] and view["reach"], view
    # the camera frames the chain (not its shadow) inside the view
    assert rect(view["rect"]).contains(rect(view["mechanism"])), view
    assert rect(view["reach"]).adjusted(-2, -2, 2, 2).contains(rect(view["mechanism"])), view
    _, _, reach_w, reach_h = view["reach"]
    assert reach_h >= 0.6 * h or reach_w >= 0.6 * w, view
    assert view["mechanism"][3] >= 0.35 * h, view


def test_compare_in_presentation_keys_the_methods_in_one_row_and_shows_every_cost_row(qtbot, make_window):
    window = make_window(load_model(FOUR_BAR).with_settings(t_end=1000.0), compare=True)
    window.presentation.enter((1920, 1080))
    run_fast(window)
    qtbot.waitUntil(lambda: all(r.series is not None and len(r.series.buffer) > 20 for r in window.runs),
                    timeout=30000)
    window.pause()
    qtbot.wait(200)  # the layout settles
    report = redraw(window)
    panel = window.plots
    key = panel.methods_key
    # the methods' key: a row of its own across the plots, above every plot's data, on one line
    assert key.isVisible() and key.width() >= 0.9 * panel.width(), (key.width(), panel.width())
    assert key.height() <= 1.6 * key.fontMetrics().lineSpacing(), key.height()
    top_of_key = key.mapTo(window, key.rect().bottomLeft()).y()
    for plot in report["plots"]:
        if plot["name"] != "difference":
            assert plot["data"][1] > top_of_key, plot
    text = key.text()
    for run in window.runs:  # a method's name never breaks: no breakable space inside it
        label = window.compare_view.panel.method_boxes[run.method].text()
        assert label.replace(" ", "&nbsp;").replace("–", "–&#8288;") in text, (label, text)
    # the cost table: every column inside its width, every method's rows whole and in view
    table = window.compare_view.panel.cost_table
    assert table.rowCount() == 2 * len(window.runs)
    columns = sum(table.columnWidth(c) for c in range(table.columnCount()))
    assert columns <= table.viewport().width(), (columns, table.viewport().width())
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert rows <= table.viewport().height(), (rows, table.viewport().height())
    for row in range(table.rowCount()):
        item = table.item(row, 0)
        width = sum(table.columnWidth(c) for c in range(table.columnSpan(row, 0))) - 8
        needed = table.fontMetrics().boundingRect(QRect(0, 0, width, 10000), Qt.TextWordWrap, item.text())
        assert table.rowHeight(row) >= needed.height(), (row, item.text())
    assert table.font().pixelSize() >= 11
    # tiled: one instant in every tile, and as many columns as let each four-bar fill its tile
    compare = window.compare_view.panel
    compare.layout_box.setCurrentIndex(compare.layout_box.findData("tiled"))
    qtbot.wait(200)
    redraw(window)  # the tiles' first poses give their reach
    qtbot.wait(100)
    tiles = redraw(window)["views"]
    assert len(tiles) == len(window.runs) and one_instant([v["t"] for v in tiles]), tiles
    for view in tiles:  # two columns of low, wide tiles gave the reach about 12 % of a tile; three, 40 %
        _, _, w, h = view["rect"]
        assert view["reach"][2] * view["reach"][3] >= 0.25 * w * h, view
    window.presentation.leave()


def label_runs_past_its_axis(plot: dict) -> list:
    """The axis labels of a report's plot that run past their axis (a cut-off label) or out of
    the plot, with the rectangles that show it."""
    cut = []
    for side, label in plot["labels"].items():
        (x, y, w, h), (ax, ay, aw, ah) = label["rect"], label["axis"]
        px, py, pw, ph = plot["rect"]
        # along the axis the label stays within it (pyqtgraph centres it there and clips the rest)
        along = (ay - 1 <= y and y + h <= ay + ah + 1) if side == "left" else (ax - 1 <= x and x + w <= ax + aw + 1)
        inside = py <= y and y + h <= py + ph if side == "left" else px <= x and x + w <= px + pw
        if not (along and inside):
            cut.append((plot["name"], side, label))
    return cut


def test_every_axis_label_is_whole_in_compare_mode_normal_and_presented(qtbot, make_window):
    # the four-bar's phase portrait read "crank_theta_dot (rad/" in compare mode: cut at the top
    window = make_window(load_model(FOUR_BAR).with_settings(t_end=1000.0), compare=True)
    window.resize(1920, 1080)
    run_fast(window)
    qtbot.waitUntil(lambda: all(r.series is not None and len(r.series.buffer) > 2 for r in window.runs),
                    timeout=30000)
    window.pause()
    for enter in (False, True):
        if enter:
            window.presentation.enter((1920, 1080))
            window.plots.choose(["motion", "phase", "energy"])  # presentation's own choice, with the portrait
        qtbot.wait(100)  # the layout settles
        report = redraw(window)
        phase = [p for p in report["plots"] if p["name"] == "phase"]
        assert phase and phase[0]["labels"]["left"]["text"], report["plots"]  # the phase portrait is in
        for plot in report["plots"]:
            assert not label_runs_past_its_axis(plot), (enter, label_runs_past_its_axis(plot))
            for label in plot["labels"].values():  # never an empty label, and the units kept whole
                assert label["text"].strip(), plot
                assert "(" not in label["text"] or label["text"].rstrip().endswith(")"), plot
    window.presentation.leave()
