"""The plots under the mechanism: motion, phase portrait, energy (curves and bars), relative energy
drift, constraint drift and multipliers, drawn from the runs' ring buffers up to the session's
time cursor.

The panel never receives samples itself: the session appends batches to each run's `RingBuffer`
and the window's redraw (gui/redraw.py, ≤ 60 Hz) calls `refresh()`, so the cost of drawing does
not depend on how fast the worker produces samples; while a run goes the plots refresh one at a
time in turn. Curves handed to Qt are decimated to what the screen can show (gui/plots/decimate.py);
PNG/SVG export draws the full data.

Which plots show is the user's choice (View ▸ Plots, remembered in QSettings, one choice for the
normal window and one for presentation mode); a chosen plot with nothing to show for the model (no
constraint rows, no multipliers) gives its room to the others, and the energy bars take the place
of the first such. Keys sit in a row beside each title, never over the data (gui/plots/plot_legend.py).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import QGraphicsItem, QGridLayout, QHBoxLayout, QLabel, QMenu, QVBoxLayout, QWidget

from eomlab.gui.plots.decimate import _finite_range, on_new_pixels, pixel_decimate
from eomlab.gui.plots import plot_export
from eomlab.gui.style.widget_pixels import scene_rect
from eomlab.gui.plots.coordinate_choice import CoordinateChoice
from eomlab.gui.plots.curve_pool import CurvePool
from eomlab.gui.plots.energy_bars import EnergyBars
from eomlab.gui.style.method_styles import PALETTE
from eomlab.gui.plots.plot_data import (curve_values, energy_reference, has_constraint_rows,
                                  multiplier_columns, plot_of, plottable_coordinates, speed_for, spins, time_curve,
                                  wrapped)
from eomlab.gui.plots.plot_choice import PlotChoice
from eomlab.gui.plots.plot_legend import methods_key, title_with_key
from eomlab.gui.plots.plot_ranges import PlotRanges, widen
from eomlab.gui.plots.plot_spin import SpinAxis
from eomlab.gui.style.plot_style import coordinate_unit, label_axes, plot_widget
from eomlab.gui.runs.session import RunSeries
from eomlab.gui.style.steady_label import SteadyLabel

#: at most this many multiplier curves are drawn (a 50-link chain in absolute coordinates has 100)
MAX_MULTIPLIER_CURVES = 12
#: plots against time, whose time axis grows in steps rather than with every sample
TIME_PLOTS = ("motion", "energy", "energy_drift", "constraint_drift", "multipliers")
#: pen width of the curves (pixels, times `line_scale`): 1 px antialiased lines take Qt's fast
#: cosmetic-line path, any wider pen is stroked as a polygon, 8 to 10 times slower
CURVE_WIDTH = 1.0
#: the width `line_scale` multiplies when presentation mode or a zoom styles the plots
STYLED_CURVE_WIDTH = 1.6
#: E = T + V stands out from T and V
EMPHASIS_WIDTH = 2.0
#: plots with a log10 y axis
LOG_PLOTS = ("energy_drift", "constraint_drift")
#: once this many samples are in, the default coordinates are those that move
SAMPLES_TO_CHOOSE = 20

PLOT_TITLES = {
    "motion": "Motion",
    "phase": "Phase portrait",
    "energy": "Energy",
    "energy_bars": "Energy now",
    "energy_drift": "Relative energy drift",
    "constraint_drift": "Constraint drift",
    "multipliers": "Multipliers",
}
#: the plots shown until the user chooses (per mode)
DEFAULT_PLOTS = {"normal": ("motion", "phase", "energy", "energy_drift", "constraint_drift", "multipliers"),
                 "presentation": ("motion", "energy")}
SETTINGS_KEY = "plots/{mode}"


class PlotPanel(QWidget):
    """The chosen plots in a grid, the motion plot's coordinate choice above them, and in compare
    mode one key of the methods' colours and dashes."""

    shown_changed = Signal(list)  # the keys of the plots now shown (empty: none)

    def __init__(self, settings_store=None, parent=None):
        super().__init__(parent)
        self.settings_store = settings_store
        self.choice = PlotChoice(settings_store, PLOT_TITLES, DEFAULT_PLOTS, SETTINGS_KEY)
        #: the last instant to draw (the session's cursor); None: every sample
        self.time_limit = lambda: None
        #: the instant shown (the session's cursor, set by gui/plots/plot_marks.py): the bars show it
        self.shown_time = lambda: self.time_limit()
        self.series: list[RunSeries] = []
        self.model = None
        self.mode = "normal"
        self.plots: dict[str, pg.PlotWidget] = {}
        self.legend_entries: dict[str, list] = {}
        self._spinning: set[str] = set()  # motion coordinates drawn wrapped
        # appearance, changed by presentation mode (gui/actions/presentation.py) before `restyle()`
        self.line_scale = 1.0
        self.title_px = 12
        self.ink = "#000"

        controls = QHBoxLayout()
        controls.setContentsMargins(4, 0, 4, 0)
        self.coordinates = CoordinateChoice(self._rebuild_curves)
        self.coordinates.add_to(controls)
        controls.addStretch(1)
        self.buffer_label = SteadyLabel("", "1000000 samples (10000000 older dropped)")
        self.buffer_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        controls.addWidget(self.buffer_label)

        self.grid = QGridLayout()
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(2)
        for key in PLOT_TITLES:
            plot = plot_widget()
            plot.setObjectName(f"plot_{key}")
            plot.setMinimumSize(QSize(200, 150))
            item = plot.getPlotItem()
            item.showGrid(x=True, y=True, alpha=0.25)
            # no pyqtgraph downsampling: its "peak" mode drops the last samples; `m4_decimate` instead
            for axis in ("left", "bottom", "right"):  # (the right: the motion plot's spinning angles)
                # painted from a pixmap until its range changes: axes are most of a plot's cost
                item.getAxis(axis).setCacheMode(QGraphicsItem.DeviceCoordinateCache)
            self.plots[key] = plot
        self.energy_bars = EnergyBars(self.plots["energy_bars"])
        self.spin_axis = SpinAxis(self.plots["motion"])
        self.curve_pool = CurvePool(self.plots)
        self.ranges = PlotRanges(self.plots, LOG_PLOTS, TIME_PLOTS)
        self._label_axes()
        self.shown: list[str] = []
        self.choice_actions: dict[str, QAction] = self.choice.actions  # View ▸ Plots' ticks

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(controls)
        # compare mode: the methods' key in a row of its own across the panel, above every plot;
        # it breaks only between methods (a narrow panel: a second line, never half a name)
        self.methods_key = QLabel("")
        self.methods_key.setObjectName("methods_key")
        self.methods_key.setVisible(False)
        self.methods_key.setWordWrap(True)
        self.methods_key.setAlignment(Qt.AlignHCenter)
        layout.addWidget(self.methods_key)
        layout.addLayout(self.grid, 1)
        self._lay_out()

    # --- which plots ---------------------------------------------------------------------------

    def chosen(self) -> list[str]:
        """The plots the user wants in this mode (QSettings), whether or not they have data."""
        return self.choice.chosen(self.mode)

    def choose(self, keys) -> None:
        self.choice.choose(self.mode, keys)
        self._lay_out()

    def set_mode(self, mode: str) -> None:
        """'normal' or 'presentation': each remembers its own choice of plots."""
        self.mode = mode
        self._lay_out()

    def choice_menu(self, parent) -> QMenu:
        """View ▸ Plots: a tick per plot (and none), for the current mode."""
        return self.choice.menu(parent, lambda: self.mode, self.choose)

    def useful(self, key: str) -> bool:
        """Whether the plot has something to show for the runs."""
        if not self.series:
            return key != "multipliers" and key != "constraint_drift"
        info = self.series[0].info
        if key == "phase":  # a coordinate beside its own rate (Euler parameters alone have none)
            return any(f"{n}_dot" in info.speed_names for n in plottable_coordinates(info, self.model))
        if key == "constraint_drift":
            return has_constraint_rows(info)
        if key == "multipliers":
            return bool(multiplier_columns(info))
        return True

    def _lay_out(self) -> None:
        chosen = self.chosen()
        shown = [k for k in chosen if self.useful(k)]
        if len(shown) < len(chosen) and "energy_bars" not in shown:
            shown.append("energy_bars")  # in the place of a plot with nothing to show
        shown = [k for k in PLOT_TITLES if k in shown]
        if shown == self.shown and all(self.grid.indexOf(self.plots[k]) >= 0 for k in shown):
            return
        for plot in self.plots.values():
            self.grid.removeWidget(plot)
            plot.setVisible(False)
        columns = len(shown) if len(shown) <= 3 else (2 if len(shown) == 4 else 3)
        for c in range(max(self.grid.columnCount(), columns)):  # equal widths: not by each plot's labels
            self.grid.setColumnStretch(c, 1 if c < columns else 0)
        for i, key in enumerate(shown):
            self.grid.addWidget(self.plots[key], i // columns, i % columns)
            self.plots[key].setVisible(True)
        self.shown = shown
        self.coordinates.show_for(shown)
        self._set_titles()
        self.shown_changed.emit(list(shown))

    def is_shown(self, key: str) -> bool:
        return key in self.shown and self.plots[key].isVisible()

    # --- runs ------------------------------------------------------------------------------

    def set_runs(self, runs, model=None) -> None:
        """Draw these session runs (those whose columns are known)."""
        self.set_series([r.series for r in runs if r.series is not None], model)

    def set_series(self, series: list[RunSeries], model=None) -> None:
        """Start drawing these runs (the first is the main one); keeps the coordinate choice
        when the coordinates are the same. Ranges start afresh."""
        self.series = series
        self.model = model
        self.coordinates.offer(series[0].info if series else None, model)
        self.ranges.reset()
        self._lay_out()
        self._rebuild_curves()

    def show_methods(self, methods: list[str]) -> None:
        """Compare mode: the one key of the methods' styles above the plots (empty: none)."""
        self.methods_key.setText(methods_key(methods) if len(methods) > 1 else "")
        self.methods_key.setVisible(len(methods) > 1)

    def _label_axes(self, q_unit: str = "rad", phase=("q", "u"), phase_units=("rad", "rad/s")) -> None:
        label_axes(self.plots, TIME_PLOTS, LOG_PLOTS, q_unit, phase, phase_units)

    # --- curves ------------------------------------------------------------------------------

    def _rebuild_curves(self) -> None:
        self.spin_axis.clear()
        self.curve_pool.begin()
        self.energy_bars.attach()
        for s in self.series:
            s.curves = {}
            s.reductions = {}
        self.legend_entries = {key: [] for key in self.plots}
        self.legend_entries["energy_bars"] = []
        self._set_titles()
        if not self.series:
            self.curve_pool.end()
            return
        main = self.series[0]
        compare = len(self.series) > 1
        chosen = self.coordinates.chosen
        rates = [n for n in chosen if n not in main.info.coordinate_names]
        units = {coordinate_unit(n, self.model) + ("/s" if n in rates else "") for n in chosen}
        phase_name = self.coordinates.phase_name or (main.info.coordinate_names[:1] or ("",))[0]
        phase_speed = speed_for(main.info, phase_name)
        pu = coordinate_unit(phase_name, self.model)
        self._label_axes(", ".join(sorted(units)) or "rad", (phase_name, phase_speed or "speed"), (pu, f"{pu}/s"))
        if rates and len(rates) == len(chosen):  # speeds only (Euler-parameter bodies' rates, or chosen)
            self.plots["motion"].getAxis("left").short_text = "ω"
            self.plots["motion"].setLabel("left", "speed", units=", ".join(sorted(units)))

        def add(s: RunSeries, key: str, curve_key: str, name: str, color: str, style=None, width=CURVE_WIDTH,
                keyed=True):
            style = (s.style if compare else Qt.SolidLine) if style is None else style
            if self.line_scale != 1.0:  # presentation or zoom: thick lines matter more than speed there
                width = max(width, STYLED_CURVE_WIDTH)
            pen = pg.mkPen(color=color, width=width * self.line_scale, style=style)
            segments = pen.widthF() > 1 and style == Qt.SolidLine
            if segments:  # flat ends: square ones overlap their neighbours and thicken the line
                pen.setCapStyle(Qt.FlatCap)
            # as separate segments: Qt strokes a wide antialiased polyline many times slower than the
            # same points as segments (a dashed pen needs the polyline)
            s.curves[curve_key] = self.curve_pool.take(key, pen, segmented=segments)
            if keyed:
                self.legend_entries[key].append((name, color, style))

        for r, s in enumerate(self.series):
            first = r == 0  # compare mode: the methods' key names the runs; keys list the curves once
            for i, name in enumerate(chosen):
                add(s, "motion", f"q:{name}", name, s.color if compare else PALETTE[i % len(PALETTE)],
                    keyed=first and not compare)
            if phase_name:
                add(s, "phase", "phase", f"{phase_name}, {phase_speed}", s.color if compare else PALETTE[0],
                    keyed=first and not compare)
            if compare:
                add(s, "energy", "E", "E = T + V", s.color, keyed=False)
            else:
                add(s, "energy", "T", "T (kinetic)", PALETTE[0])
                add(s, "energy", "V", "V (potential)", PALETTE[2])
                add(s, "energy", "E", "E = T + V", PALETTE[1], width=EMPHASIS_WIDTH)
            add(s, "energy_drift", "drift_E", "|ΔE|/|E₀|", s.color if compare else PALETTE[1], keyed=False)
            add(s, "constraint_drift", "drift_pos", "position level", s.color if compare else PALETTE[0],
                keyed=first and not compare)
            add(s, "constraint_drift", "drift_vel", "velocity level", s.color if compare else PALETTE[3],
                keyed=first and not compare)
            if first:
                for i, name in enumerate(multiplier_columns(s.info)[:MAX_MULTIPLIER_CURVES]):
                    add(s, "multipliers", f"lam:{name}", name[len("lambda_"):], PALETTE[i % len(PALETTE)])
        self.curve_pool.end()
        self._set_titles()
        self.refresh()

    def _set_titles(self) -> None:
        """Each plot's title with its key beside it, fitted to the plot's width."""
        font = QFont(self.font())
        font.setPixelSize(self.title_px)
        for key, plot in self.plots.items():
            item = plot.getPlotItem()
            entries = list(self.legend_entries.get(key, []))
            if key == "motion" and self.series and self._spinning:
                entries = [(f"{n} (right)" if n in self._spinning else n, c, s) for n, c, s in entries]
            width = max(plot.width(), 200) - 20
            item.setTitle(title_with_key(PLOT_TITLES[key], entries, font, width, self.ink),
                          size=f"{self.title_px}px")
            height = math.ceil(1.6 * self.title_px)
            item.titleLabel.setMaximumHeight(height)
            item.layout.setRowFixedHeight(0, height)

    def legend_rect(self, key: str, window) -> list[int] | None:
        """Where plot `key`'s key (its title row) is, in `window` pixels; None without one."""
        if not self.legend_entries.get(key):
            return None
        plot = self.plots[key]
        return scene_rect(plot, window, plot.getPlotItem().titleLabel.sceneBoundingRect(), inward=True)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._set_titles()  # the keys fit the new widths

    # --- drawing -----------------------------------------------------------------------------

    def refresh(self, keys=None, full: bool = False) -> None:
        """Redraw the curves of the plots `keys` (default: all) from the buffers up to the time
        cursor; `full`: hand every sample to Qt, undecimated (for export)."""
        keys = set(self.plots) if keys is None else set(keys)
        until = self.time_limit()
        if self.series and not self.coordinates.by_user:
            data = self.series[0].rows_until(until)
            if len(data) >= SAMPLES_TO_CHOOSE and self.coordinates.choose_moving(self.series[0], data, self.model):
                self._rebuild_curves()
                return
        self.ranges.grow_time_axes(self.series, keys)
        bounds: dict[str, list[float]] = {}
        spinning: set = set()
        phase_name = self.coordinates.phase_name
        for s in self.series:
            data = s.rows_until(until)
            if not len(data):
                for curve_key, curve in s.curves.items():
                    if plot_of(curve_key) in keys:
                        curve.setData([], [])
                continue
            energy_reference(s, data)  # from the oldest row, before any curve reads fewer rows
            for curve_key, curve in s.curves.items():
                key = plot_of(curve_key)
                if key not in keys:
                    continue
                if curve_key == "phase":
                    x, y = s.column(data, phase_name), curve_values(s, data, curve_key, phase_name)
                    if x is None or y is None:
                        continue
                    if spins(x, coordinate_unit(phase_name, self.model)):
                        x = wrapped(x)
                    if not full:
                        x, y = pixel_decimate(x, y, _finite_range(x), _finite_range(y), self._pixels(key))
                    curve.setData(x, y, connect="finite")
                    widen(bounds, key, y)
                    widen(bounds, "phase_x", x)
                    continue
                pixels = None if full else self._pixels(key)
                per_bin = None if full else self.ranges.samples_per_column(pixels[0], data[:, 0])
                drawn = time_curve(s, data, curve_key, self._unit_of(curve_key), per_bin)
                if drawn is None:
                    continue
                x, y, spin = drawn
                if spin:  # wrapped, on its own axis: it would flatten every other coordinate
                    spinning.add(curve_key[2:])
                    self.spin_axis.take(curve)
                elif not full:  # (a spinning coordinate's axis is another view)
                    x, y = on_new_pixels(x, y, self.plots[key].getPlotItem().getViewBox().viewRange(),
                                         pixels, key in LOG_PLOTS)
                curve.setData(x, y, connect="finite")
                if not spin:
                    widen(bounds, key, np.log10(y) if key in LOG_PLOTS else y)
        if "motion" in keys and spinning != self._spinning:
            self._spinning = spinning
            self._set_titles()
        if self.series:
            if "energy_bars" in keys:  # the bars keep their own axis
                self.energy_bars.show(self.series[0], self.series[0].rows_until(self.shown_time()))
            buf = self.series[0].buffer
            dropped = buf.total_appended - len(buf)
            self.buffer_label.setText(
                f"{len(buf)} samples" + (f" ({dropped} older dropped)" if dropped else ""))
            tip = f"samples kept for the plots and the CSV export: at most {buf.capacity}"
            if self.buffer_label.toolTip() != tip:
                self.buffer_label.setToolTip(tip)
        for key in keys:
            if key in bounds:
                self.ranges.grow_y(key, *bounds[key])
        if "phase_x" in bounds:
            self.ranges.grow_y("phase", *bounds["phase_x"], axis="x")

    def _unit_of(self, curve_key: str) -> str:
        return coordinate_unit(curve_key[2:], self.model) if curve_key.startswith("q:") else ""

    def _pixels(self, key: str) -> tuple[float, float]:
        """The plot area of `key` in device pixels (width, height)."""
        plot = self.plots[key]
        box = plot.getPlotItem().getViewBox()
        ratio = plot.devicePixelRatioF()
        return box.width() * ratio, box.height() * ratio

    def restyle(self) -> None:
        """Apply `line_scale`, `title_px` and `ink` (curves are rebuilt)."""
        self._rebuild_curves()

    def clear_data(self) -> None:
        for s in self.series:
            s.buffer.clear()
        self.refresh()

    # --- export (gui/plots/plot_export.py) ---------------------------------------------------------

    def export_png(self, key: str, path: str) -> None:
        plot_export.export_png(self, key, path)

    def export_svg(self, key: str, path: str) -> None:
        plot_export.export_svg(self, key, path)
