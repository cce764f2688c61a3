"""The bottom plots: motion, phase portrait, energy, relative energy drift, constraint drift and
multipliers, drawn from the runs' ring buffers up to the session's time cursor.

The panel never receives samples itself: the session appends batches to each run's `RingBuffer`
and the window's redraw (gui/redraw.py, ≤ 60 Hz) calls `refresh()`, so the cost of drawing does
not depend on how fast the worker produces samples. While a run goes, the plots refresh one at a
time in turn (`refresh(keys)`), so a tick never pays for repainting all six. Curves handed to Qt
are decimated to what the screen can show (gui/decimate.py); PNG/SVG export draws the full data.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsItem, QComboBox, QGridLayout, QHBoxLayout, QLabel, QToolButton, QMenu, QVBoxLayout, QWidget

from eomlab.gui.decimate import _finite_range, m4_decimate, pixel_decimate  # noqa: F401 - tests import them here
from eomlab.gui.method_styles import PALETTE
from eomlab.gui.plot_style import configure_pyqtgraph, coordinate_unit, without_si_prefix  # noqa: F401
from eomlab.gui.runner import RunInfo
from eomlab.gui.session import RunSeries  # noqa: F401 - the plots draw these

#: at most this many multiplier curves are drawn (a 50-link chain in absolute coordinates has 100)
MAX_MULTIPLIER_CURVES = 12
#: at most this many coordinates are drawn at once in the motion plot
MAX_MOTION_CURVES = 8
#: plots against time, whose time axis grows in steps rather than with every sample
TIME_PLOTS = ("motion", "energy", "energy_drift", "constraint_drift", "multipliers")
#: pen width of the curves (pixels, times `line_scale`): 1 px antialiased lines take Qt's fast
#: cosmetic-line path, any wider pen is stroked as a polygon, 8 to 10 times slower (a 1.6 px motion
#: plot of a few hundred samples: 5.5 ms to paint, at 1 px 0.6 ms)
CURVE_WIDTH = 1.0
#: the width `line_scale` multiplies when presentation mode or a zoom styles the plots
STYLED_CURVE_WIDTH = 1.6
#: E = T + V stands out from T and V (one nearly straight line: the slow path costs about 1 ms)
EMPHASIS_WIDTH = 2.0
#: plots with a log10 y axis
LOG_PLOTS = ("energy_drift", "constraint_drift")
#: log plots cannot show zero: smaller values are drawn at this floor
LOG_FLOOR = 1e-17
#: a y range that must grow takes this much extra room (fraction of the span; decades on log plots)
#: so that it does not change, and the axis need not be laid out again, with every refresh
Y_GROWTH_ROOM = 0.15

PLOT_TITLES = {
    "motion": "Motion",
    "phase": "Phase portrait",
    "energy": "Energy",
    "energy_drift": "Relative energy drift",
    "constraint_drift": "Constraint drift",
    "multipliers": "Multipliers",
}



class PlotPanel(QWidget):
    """Six plots in a 2 × 3 grid, with the motion plot's coordinate choice above them."""

    def __init__(self, settings_store=None, parent=None):
        super().__init__(parent)
        self.settings_store = settings_store
        #: the last instant to draw (the session's cursor); None: every sample
        self.time_limit = lambda: None
        self.series: list[RunSeries] = []
        self.model = None
        self.chosen_coordinates: list[str] = []
        self.plots: dict[str, pg.PlotWidget] = {}
        # appearance, changed by presentation mode (gui/presentation.py) before `restyle()`
        self.line_scale = 1.0
        self.legend_size = "8pt"
        self.title_size = "9pt"
        self.legend_brush = (255, 255, 255, 210)
        self.legends_shown = True

        controls = QHBoxLayout()
        controls.setContentsMargins(4, 0, 4, 0)
        self.coordinate_button = QToolButton(text="Coordinates ▾")
        self.coordinate_button.setPopupMode(QToolButton.InstantPopup)
        self.coordinate_menu = QMenu(self.coordinate_button)
        self.coordinate_button.setMenu(self.coordinate_menu)
        self.phase_combo = QComboBox()
        self.phase_combo.setMinimumContentsLength(12)
        self.phase_combo.currentIndexChanged.connect(self._rebuild_curves)
        controls.addWidget(QLabel("Motion:"))
        controls.addWidget(self.coordinate_button)
        controls.addSpacing(16)
        controls.addWidget(QLabel("Phase portrait of:"))
        controls.addWidget(self.phase_combo)
        controls.addStretch(1)
        self.buffer_label = QLabel("")
        controls.addWidget(self.buffer_label)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        for i, key in enumerate(PLOT_TITLES):
            plot = pg.PlotWidget()
            plot.setObjectName(f"plot_{key}")
            plot.setMinimumSize(QSize(200, 150))
            item = plot.getPlotItem()
            item.setTitle(PLOT_TITLES[key], size="9pt")
            item.showGrid(x=True, y=True, alpha=0.25)
            # no pyqtgraph downsampling: its "peak" mode drops the last samples (up to a bin and a
            # half), so a curve stopped short of the latest sample; `m4_decimate` does it instead
            for axis in ("left", "bottom"):
                # painted from a pixmap until its range changes: axes are most of a plot's cost
                item.getAxis(axis).setCacheMode(QGraphicsItem.DeviceCoordinateCache)
            self.plots[key] = plot
            grid.addWidget(plot, i // 3, i % 3)
        self._time_range = None
        self._time_ranges: dict[str, tuple] = {}  # the time range each time plot shows
        self._y_ranges: dict[str, tuple] = {}  # the y range each plot was given (log10 on log plots)
        self._y_managed: dict[str, bool] = {}  # False: the user set the range with the mouse
        for key, plot in self.plots.items():
            box = plot.getPlotItem().getViewBox()
            box.sigRangeChangedManually.connect(lambda _mask, k=key: self._user_ranged(k))
            plot.getPlotItem().autoBtn.clicked.connect(lambda *_a, k=key: self._auto_pressed(k))
        self._label_axes()
        self.no_constraints_label = pg.TextItem("no constraint rows: the drift is zero", color="#777")
        self.no_constraints_label.setParentItem(self.plots["constraint_drift"].getPlotItem().getViewBox())
        self.no_constraints_label.setPos(8, 8)
        self.no_constraints_label.setVisible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(controls)
        layout.addLayout(grid, 1)

    # --- runs ------------------------------------------------------------------------------

    def set_runs(self, runs, model=None) -> None:
        """Draw these session runs (those whose columns are known)."""
        self.set_series([r.series for r in runs if r.series is not None], model)

    def is_shown(self, key: str) -> bool:
        return self.plots[key].isVisible()

    def set_series(self, series: list[RunSeries], model=None) -> None:
        """Start drawing these runs (the first is the main one); keeps the coordinate choice
        when the coordinates are the same."""
        self.series = series
        self.model = model
        names = list(series[0].info.coordinate_names) if series else []
        if [n for n in self.chosen_coordinates if n in names] != self.chosen_coordinates or not self.chosen_coordinates:
            self.chosen_coordinates = names[:min(3, len(names))]
        self._fill_coordinate_menu(names)
        self.phase_combo.blockSignals(True)
        previous = self.phase_combo.currentText()
        self.phase_combo.clear()
        # a phase portrait pairs a coordinate with its own rate (not with a body rate)
        with_rates = [n for n in names if series and f"{n}_dot" in series[0].info.speed_names]
        self.phase_combo.addItems(with_rates or names)
        if previous in names:
            self.phase_combo.setCurrentText(previous)
        self.phase_combo.blockSignals(False)
        self._rebuild_curves()

    def _fill_coordinate_menu(self, names: list[str]) -> None:
        self.coordinate_menu.clear()
        for name in names:
            action = self.coordinate_menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name in self.chosen_coordinates)
            action.toggled.connect(lambda on, n=name: self.choose_coordinate(n, on))

    def choose_coordinate(self, name: str, shown: bool) -> None:
        if shown and name not in self.chosen_coordinates:
            self.chosen_coordinates.append(name)
            self.chosen_coordinates = self.chosen_coordinates[-MAX_MOTION_CURVES:]
        elif not shown and name in self.chosen_coordinates:
            self.chosen_coordinates.remove(name)
        self._rebuild_curves()

    def _label_axes(self, q_unit: str = "rad", phase: tuple[str, str] = ("q", "u"), phase_units=("rad", "rad/s")) -> None:
        p = self.plots
        p["motion"].setLabel("bottom", "t", units="s")
        p["motion"].setLabel("left", "coordinate", units=q_unit)
        p["phase"].setLabel("bottom", phase[0], units=phase_units[0])
        p["phase"].setLabel("left", phase[1], units=phase_units[1])
        p["energy"].setLabel("bottom", "t", units="s")
        p["energy"].setLabel("left", "energy", units="J")
        p["energy_drift"].setLabel("bottom", "t", units="s")
        p["energy_drift"].setLabel("left", "|E − E₀| / |E₀|")
        p["constraint_drift"].setLabel("bottom", "t", units="s")
        p["constraint_drift"].setLabel("left", "max |residual|")
        p["multipliers"].setLabel("bottom", "t", units="s")
        p["multipliers"].setLabel("left", "λ (N, N·m)")
        for key in LOG_PLOTS:
            p[key].getPlotItem().setLogMode(x=False, y=True)
        # SI prefixes on a log axis or on mixed units would mislead
        for key in self.plots:
            for side in ("left", "bottom"):
                without_si_prefix(p[key].getAxis(side))

    def _rebuild_curves(self) -> None:
        for plot in self.plots.values():
            item = plot.getPlotItem()
            item.clear()
            if item.legend is not None:
                item.legend.scene().removeItem(item.legend)
                item.legend = None
        for s in self.series:
            s.curves = {}
        self._y_ranges.clear()
        self._time_ranges.clear()
        if not self.series:
            return
        main = self.series[0]
        compare = len(self.series) > 1
        units = {coordinate_unit(n, self.model) for n in self.chosen_coordinates}
        phase_name = self.phase_combo.currentText() or (main.info.coordinate_names[:1] or ("",))[0]
        phase_speed = _speed_for(main.info, phase_name)
        pu = coordinate_unit(phase_name, self.model)
        self._label_axes(", ".join(sorted(units)) or "rad", (phase_name, phase_speed or "speed"), (pu, f"{pu}/s"))
        # legends top left: the newest samples come in on the right, where a legend would hide them
        for key in ("motion", "energy", "constraint_drift", "multipliers", "energy_drift") if self.legends_shown else ():
            self.plots[key].getPlotItem().addLegend(offset=(4, 4), labelTextSize=self.legend_size, verSpacing=-6,
                                                    brush=pg.mkBrush(*self.legend_brush))

        def add(s: RunSeries, key: str, curve_key: str, name: str, color: str, style=None, width=CURVE_WIDTH):
            style = (s.style if compare else Qt.SolidLine) if style is None else style
            if self.line_scale != 1.0:  # presentation or zoom: thick lines matter more than speed there
                width = max(width, STYLED_CURVE_WIDTH)
            pen = pg.mkPen(color=color, width=width * self.line_scale, style=style)
            s.curves[curve_key] = self.plots[key].getPlotItem().plot([], [], pen=pen, name=name)

        for r, s in enumerate(self.series):
            tag = f"{s.label}: " if compare else ""
            for i, name in enumerate(self.chosen_coordinates):
                color = s.color if compare else PALETTE[i % len(PALETTE)]
                add(s, "motion", f"q:{name}", tag + name, color)
            if phase_name:
                add(s, "phase", "phase", (s.label if compare else f"{phase_name}, {phase_speed}"), s.color if compare else PALETTE[0])
            if compare:
                add(s, "energy", "E", f"{s.label}: E", s.color)
            else:
                add(s, "energy", "T", "T (kinetic)", PALETTE[0])
                add(s, "energy", "V", "V (potential)", PALETTE[2])
                add(s, "energy", "E", "E = T + V", PALETTE[1], width=EMPHASIS_WIDTH)
            add(s, "energy_drift", "drift_E", s.label if compare else "|ΔE|/|E₀|", s.color if compare else PALETTE[1])
            add(s, "constraint_drift", "drift_pos", tag + "position level", s.color if compare else PALETTE[0])
            # compare mode: the velocity level thinner, in the method's colour and dashes
            add(s, "constraint_drift", "drift_vel", tag + "velocity level", s.color if compare else PALETTE[3])
            if r == 0:
                lambdas = [c for c in s.info.columns if c.startswith("lambda_")]
                for i, name in enumerate(lambdas[:MAX_MULTIPLIER_CURVES]):
                    add(s, "multipliers", f"lam:{name}", name, PALETTE[i % len(PALETTE)])
                if not lambdas:
                    text = pg.TextItem("no multipliers in this formulation", color="#777")
                    self.plots["multipliers"].addItem(text)
                    text.setPos(0.0, 0.0)
        self.refresh()

    # --- drawing -----------------------------------------------------------------------------

    def refresh(self, keys=None, full: bool = False) -> None:
        """Redraw the curves of the plots `keys` (default: all six) from the buffers; `full`:
        hand every sample to Qt, undecimated (for export)."""
        keys = set(self.plots) if keys is None else set(keys)
        self._grow_time_axes(keys)
        bounds: dict[str, list[float]] = {}
        until = self.time_limit()
        for s in self.series:
            data = s.rows_until(until)
            if not len(data):
                for curve_key, curve in s.curves.items():
                    if plot_of(curve_key) in keys:
                        curve.setData([], [])
                continue
            t = data[:, 0]
            for curve_key, curve in s.curves.items():
                key = plot_of(curve_key)
                if key not in keys:
                    continue
                y = self._curve_values(s, data, curve_key)
                if y is None:
                    continue
                if curve_key == "phase":
                    x = s.column(data, self.phase_combo.currentText())
                    if x is None:
                        continue
                    if not full:
                        x, y = pixel_decimate(x, y, _finite_range(x), _finite_range(y), self._pixels(key))
                    curve.setData(x, y)
                    _widen(bounds, key, y)
                else:
                    x = t
                    if not full:
                        x, y = m4_decimate(t, y, self._samples_per_column(key, t))
                    curve.setData(x, y)
                    if curve.isVisible():
                        _widen(bounds, key, np.log10(y) if key in LOG_PLOTS else y)
        flat = False
        if self.series:
            main = self.series[0]
            data = main.buffer.view()
            flat = all(main.column(data, c) is None or not np.any(main.column(data, c)) for c in ("drift_pos", "drift_vel"))
            if "constraint_drift" in keys:
                self.no_constraints_label.setVisible(bool(len(data)) and flat)
                for s in self.series:
                    for key in ("drift_pos", "drift_vel"):
                        if key in s.curves:
                            s.curves[key].setVisible(not flat)
                drift_plot = self.plots["constraint_drift"].getPlotItem()
                if drift_plot.legend is not None:
                    drift_plot.legend.setVisible(not flat)
                if flat:
                    self._y_ranges["constraint_drift"] = (-16.0, -6.0)
                    drift_plot.setYRange(-16, -6, padding=0)  # log10 units: an empty, readable decade scale
            buf = self.series[0].buffer
            dropped = buf.total_appended - len(buf)
            self.buffer_label.setText(
                f"{len(buf)} samples kept (cap {buf.capacity})" + (f", {dropped} older dropped" if dropped else ""))
        for key in keys:
            if key in bounds and not (key == "constraint_drift" and flat):
                self._grow_y_range(key, *bounds[key])

    def _pixels(self, key: str) -> tuple[float, float]:
        """The plot area of `key` in device pixels (width, height)."""
        plot = self.plots[key]
        box = plot.getPlotItem().getViewBox()
        ratio = plot.devicePixelRatioF()
        return box.width() * ratio, box.height() * ratio

    def _samples_per_column(self, key: str, t: np.ndarray) -> int:
        """How many samples of `t` (evenly spaced) fall on one pixel column of plot `key`."""
        width = self._pixels(key)[0]
        time_range = getattr(self, "_time_range", None)
        if len(t) < 2 or width <= 0 or time_range is None or not t[-1] > t[0]:
            return 1
        dt = (t[-1] - t[0]) / (len(t) - 1)
        return int((time_range[1] - time_range[0]) / dt / width)

    def _grow_y_range(self, key: str, low: float, high: float) -> None:
        """Fit the y range to [low, high] with room to grow (Y_GROWTH_ROOM), but change it only
        when the data leaves it or fills less than half of it. A range the user set (mouse) is
        left alone until the plot's auto-range button is pressed."""
        if not self._y_managed.get(key, True) or not (np.isfinite(low) and np.isfinite(high)):
            return
        current = self._y_ranges.get(key)
        span = high - low
        if current is not None and current[0] <= low and high <= current[1] and \
                span >= 0.5 * (current[1] - current[0]) - 1e-300:
            return
        room = Y_GROWTH_ROOM * span if span > 0 else max(abs(high) * 0.05, 0.5 if key in LOG_PLOTS else 1e-3)
        new = (low - room, high + room)
        self._y_ranges[key] = new
        item = self.plots[key].getPlotItem()
        self._setting_range = True
        try:
            item.setYRange(*new, padding=0.02)
        finally:
            self._setting_range = False

    def _user_ranged(self, key: str) -> None:
        if not getattr(self, "_setting_range", False):
            self._y_managed[key] = False

    def _auto_pressed(self, key: str) -> None:
        self._y_managed[key] = True
        self._y_ranges.pop(key, None)

    def _grow_time_axes(self, keys=None) -> None:
        """Fix the time range ahead of the data, 25 % at a time: an axis that changes with every
        refresh has to be laid out and painted again each time. Each plot takes a new range when
        it is refreshed itself (the plots refresh in turn)."""
        keys = set(TIME_PLOTS) if keys is None else set(keys) & set(TIME_PLOTS)
        spans = [(s.buffer.view()[0, 0], s.buffer.last()[0]) for s in self.series if len(s.buffer)]
        if not spans:
            self._time_range = None
            for key in TIME_PLOTS:
                self._time_ranges.pop(key, None)
            for key in keys:
                self.plots[key].getPlotItem().enableAutoRange(x=True)
            return
        start, end = min(a for a, _ in spans), max(b for _, b in spans)
        current = getattr(self, "_time_range", None)
        if current is None or current[0] != start or end > current[1]:
            self._time_range = (start, start + max(1.0, 1.25 * (end - start)))
        for key in keys:
            if self._time_ranges.get(key) != self._time_range:
                self._time_ranges[key] = self._time_range
                self.plots[key].getPlotItem().setXRange(*self._time_range, padding=0)

    def _curve_values(self, s: RunSeries, data: np.ndarray, key: str) -> np.ndarray | None:
        if key.startswith("q:"):
            return s.column(data, key[2:])
        if key.startswith("lam:"):
            return s.column(data, key[4:])
        if key == "phase":
            speed = _speed_for(s.info, self.phase_combo.currentText())
            return s.column(data, speed) if speed else None
        if key in ("T", "V", "E"):
            return s.column(data, key)
        if key == "drift_E":
            energy = s.column(data, "E")
            if energy is None:
                return None
            if s.energy_reference is None:  # kept: E(0) may later fall out of the ring buffer
                kinetic, potential = s.column(data, "T"), s.column(data, "V")
                # the same scale as the engine's relative_energy_drift (THEORY.md §5)
                s.energy_reference = (energy[0], max(abs(energy[0]), kinetic[0] + abs(potential[0]), 1e-12))
            e0, scale = s.energy_reference
            return np.maximum(np.abs(energy - e0) / scale, LOG_FLOOR)
        if key in ("drift_pos", "drift_vel"):
            values = s.column(data, key)
            return None if values is None else np.maximum(np.abs(values), LOG_FLOOR)
        return None

    def restyle(self) -> None:
        """Apply `line_scale`, `legend_size`, `legend_brush` and `title_size` (curves are rebuilt)."""
        for key, plot in self.plots.items():
            plot.getPlotItem().setTitle(PLOT_TITLES[key], size=self.title_size)
        self._rebuild_curves()

    def clear_data(self) -> None:
        for s in self.series:
            s.buffer.clear()
        self.refresh()

    # --- export ----------------------------------------------------------------------------

    def export_png(self, key: str, path: str) -> None:
        from pyqtgraph.exporters import ImageExporter

        exporter = ImageExporter(self.plots[key].getPlotItem())
        exporter.parameters()["width"] = max(800, self.plots[key].width() * 2)
        self.refresh([key], full=True)  # the export is larger than the screen: every sample
        try:
            exporter.export(path)
        finally:
            self.refresh([key])

    def export_svg(self, key: str, path: str) -> None:
        """Vector SVG: paint the plot's scene into a QSvgGenerator (pyqtgraph's own SVG exporter
        is broken in 0.14)."""
        from PySide6.QtSvg import QSvgGenerator

        plot = self.plots[key]
        source = plot.getPlotItem().sceneBoundingRect()
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(source.size().toSize())
        generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
        generator.setTitle(PLOT_TITLES[key])
        generator.setDescription("eomlab plot")
        self.refresh([key], full=True)  # vector output: every sample
        painter = QPainter(generator)
        try:
            painter.fillRect(QRectF(0, 0, source.width(), source.height()), plot.backgroundBrush())
            plot.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
        finally:
            painter.end()
            self.refresh([key])


def plot_of(curve_key: str) -> str:
    """The plot a curve (by its key in `RunSeries.curves`) is drawn in."""
    if curve_key.startswith("q:"):
        return "motion"
    if curve_key.startswith("lam:"):
        return "multipliers"
    return {"phase": "phase", "T": "energy", "V": "energy", "E": "energy", "drift_E": "energy_drift",
            "drift_pos": "constraint_drift", "drift_vel": "constraint_drift"}[curve_key]


def _widen(bounds: dict, key: str, values: np.ndarray) -> None:
    low, high = _finite_range(values)
    if low == high == 0.0 and not np.any(np.isfinite(values)):
        return
    if key in bounds:
        bounds[key][0] = min(bounds[key][0], low)
        bounds[key][1] = max(bounds[key][1], high)
    else:
        bounds[key] = [low, high]


def _speed_for(info: RunInfo, coordinate: str) -> str | None:
    """The speed paired with a coordinate: `<name>_dot` if the run has it, else the same index."""
    if f"{coordinate}_dot" in info.speed_names:
        return f"{coordinate}_dot"
    if coordinate in info.coordinate_names:
        i = info.coordinate_names.index(coordinate)
        if i < len(info.speed_names):
            return info.speed_names[i]
    return None
