"""The bottom plots: motion, phase portrait, energy, relative energy drift, constraint drift and
multipliers, drawn from the runs' ring buffers.

The panel never receives samples itself: the window appends batches to each run's `RingBuffer`
and calls `refresh()` from its one redraw timer (≤ 60 Hz), so the cost of drawing does not depend
on how fast the worker produces samples.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsItem, QComboBox, QGridLayout, QHBoxLayout, QLabel, QToolButton, QMenu, QVBoxLayout, QWidget

from gui.ring_buffer import RingBuffer
from gui.runner import RunInfo

#: at most this many multiplier curves are drawn (a 50-link chain in absolute coordinates has 100)
MAX_MULTIPLIER_CURVES = 12
#: at most this many coordinates are drawn at once in the motion plot
MAX_MOTION_CURVES = 8
#: plots against time, whose time axis grows in steps rather than with every sample
TIME_PLOTS = ("motion", "energy", "energy_drift", "constraint_drift", "multipliers")
#: log plots cannot show zero: smaller values are drawn at this floor
LOG_FLOOR = 1e-17

PLOT_TITLES = {
    "motion": "Motion",
    "phase": "Phase portrait",
    "energy": "Energy",
    "energy_drift": "Relative energy drift",
    "constraint_drift": "Constraint drift",
    "multipliers": "Multipliers",
}

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]


def configure_pyqtgraph() -> None:
    """White plots with dark ink read well in screenshots and print."""
    pg.setConfigOptions(background="w", foreground="k", antialias=True)


def coordinate_unit(name: str, model=None) -> str:
    """The unit of a coordinate: from its joint in the model when known, else from its name."""
    if model is not None:
        for body in model.bodies:
            if name in body.joint.names:
                i = body.joint.names.index(name)
                kind = body.joint.type
                if kind == "prismatic" or (kind == "planar" and i < 2) or (kind == "free" and i < 3):
                    return "m"
                return "rad"
    tail = name.rsplit("_", 1)[-1]
    return "m" if tail in ("x", "y", "z", "s") else "rad"


@dataclass
class RunSeries:
    """One run as the plots see it: its columns and its samples."""

    label: str
    info: RunInfo
    buffer: RingBuffer
    color: str = PALETTE[0]
    style: Qt.PenStyle = Qt.SolidLine  # compare mode: each formulation its own dash pattern
    curves: dict = field(default_factory=dict)
    energy_reference: tuple | None = None  # (E(0), scale of the relative drift)

    def column(self, data: np.ndarray, name: str) -> np.ndarray | None:
        try:
            return data[:, self.info.columns.index(name)]
        except ValueError:
            return None


class PlotPanel(QWidget):
    """Six plots in a 2 × 3 grid, with the motion plot's coordinate choice above them."""

    def __init__(self, parent=None):
        super().__init__(parent)
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
            if key in TIME_PLOTS:  # both assume x grows along the curve: not so in the phase portrait
                item.setClipToView(True)
                item.setDownsampling(auto=True, mode="peak")
            for axis in ("left", "bottom"):
                # painted from a pixmap until its range changes: axes are most of a plot's cost
                item.getAxis(axis).setCacheMode(QGraphicsItem.DeviceCoordinateCache)
            self.plots[key] = plot
            grid.addWidget(plot, i // 3, i % 3)
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
        for key in ("energy_drift", "constraint_drift"):
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
        if not self.series:
            return
        main = self.series[0]
        compare = len(self.series) > 1
        units = {coordinate_unit(n, self.model) for n in self.chosen_coordinates}
        phase_name = self.phase_combo.currentText() or (main.info.coordinate_names[:1] or ("",))[0]
        phase_speed = _speed_for(main.info, phase_name)
        pu = coordinate_unit(phase_name, self.model)
        self._label_axes(", ".join(sorted(units)) or "rad", (phase_name, phase_speed or "speed"), (pu, f"{pu}/s"))
        for key in ("motion", "energy", "constraint_drift", "multipliers", "energy_drift") if self.legends_shown else ():
            self.plots[key].getPlotItem().addLegend(offset=(-4, 4), labelTextSize=self.legend_size, verSpacing=-6,
                                                    brush=pg.mkBrush(*self.legend_brush))

        def add(s: RunSeries, key: str, curve_key: str, name: str, color: str, style=None, width=1.6):
            style = (s.style if compare else Qt.SolidLine) if style is None else style
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
                add(s, "energy", "E", "E = T + V", PALETTE[1], width=2.2)
            add(s, "energy_drift", "drift_E", s.label if compare else "|ΔE|/|E₀|", s.color if compare else PALETTE[1])
            add(s, "constraint_drift", "drift_pos", tag + "position level", s.color if compare else PALETTE[0])
            # compare mode: the velocity level thinner, in the method's colour and dashes
            add(s, "constraint_drift", "drift_vel", tag + "velocity level", s.color if compare else PALETTE[3],
                width=1.0 if compare else 1.6)
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

    def refresh(self) -> None:
        """Redraw every curve from the buffers."""
        self._grow_time_axes()
        for s in self.series:
            data = s.buffer.view()
            if not len(data):
                for curve in s.curves.values():
                    curve.setData([], [])
                continue
            t = data[:, 0]
            for key, curve in s.curves.items():
                y = self._curve_values(s, data, key)
                if key == "phase":
                    name = self.phase_combo.currentText()
                    x = s.column(data, name)
                    if x is not None and y is not None:
                        curve.setData(x, y)
                elif y is not None:
                    curve.setData(t, y)
        if self.series:
            main = self.series[0]
            data = main.buffer.view()
            flat = all(main.column(data, c) is None or not np.any(main.column(data, c)) for c in ("drift_pos", "drift_vel"))
            self.no_constraints_label.setVisible(bool(len(data)) and flat)
            for s in self.series:
                for key in ("drift_pos", "drift_vel"):
                    if key in s.curves:
                        s.curves[key].setVisible(not flat)
            drift_plot = self.plots["constraint_drift"].getPlotItem()
            if drift_plot.legend is not None:
                drift_plot.legend.setVisible(not flat)
            if flat:
                drift_plot.setYRange(-16, -6, padding=0)  # log10 units: an empty, readable decade scale
            buf = self.series[0].buffer
            dropped = buf.total_appended - len(buf)
            self.buffer_label.setText(
                f"{len(buf)} samples kept (cap {buf.capacity})" + (f", {dropped} older dropped" if dropped else ""))

    def _grow_time_axes(self) -> None:
        """Fix the time range ahead of the data, 25 % at a time: an axis that changes with every
        refresh has to be laid out and painted again each time."""
        spans = [(s.buffer.view()[0, 0], s.buffer.last()[0]) for s in self.series if len(s.buffer)]
        if not spans:
            self._time_range = None
            for key in TIME_PLOTS:
                self.plots[key].getPlotItem().enableAutoRange(x=True)
            return
        start, end = min(a for a, _ in spans), max(b for _, b in spans)
        current = getattr(self, "_time_range", None)
        if current is not None and current[0] == start and end <= current[1]:
            return
        stop = start + max(1.0, 1.25 * (end - start))
        self._time_range = (start, stop)
        for key in TIME_PLOTS:
            self.plots[key].getPlotItem().setXRange(start, stop, padding=0)

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
        exporter.export(path)

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
        painter = QPainter(generator)
        try:
            painter.fillRect(QRectF(0, 0, source.width(), source.height()), plot.backgroundBrush())
            plot.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
        finally:
            painter.end()


def without_si_prefix(axis: pg.AxisItem) -> None:
    """Turn the SI prefix off for good: pyqtgraph 0.14's `enableAutoSIPrefix(False)` still
    computes a scale from the current range (a log axis over 1e-16…1e-6 then reads 10⁶ too high)."""
    axis.enableAutoSIPrefix(False)
    axis.autoSIPrefixScale = 1.0
    axis.labelUnitPrefix = ""
    axis._updateLabel()


def _speed_for(info: RunInfo, coordinate: str) -> str | None:
    """The speed paired with a coordinate: `<name>_dot` if the run has it, else the same index."""
    if f"{coordinate}_dot" in info.speed_names:
        return f"{coordinate}_dot"
    if coordinate in info.coordinate_names:
        i = info.coordinate_names.index(coordinate)
        if i < len(info.speed_names):
            return info.speed_names[i]
    return None
