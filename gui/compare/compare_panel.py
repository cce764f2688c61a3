"""The compare dock's contents: which formulations run and with what settings, the difference of
each from a reference run, and a table of what each costs, what it integrates and how it drifts."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetrics, QPalette
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGridLayout, QHeaderView, QLabel, QSplitter, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from eomlab.engine.methods import METHODS
from eomlab.engine.model import INTEGRATORS, STABILIZATIONS, Model, ModelError
from eomlab.engine.simulation import ModelFacts, model_facts
from eomlab.gui.compare.compare_math import RunSettings, coordinate_difference, largest_drifts
from eomlab.gui.compare.compare_identical import group_words, restyle_curve, widths
from eomlab.gui.compare.compare_words import method_words
from eomlab.gui.style.method_styles import available_methods, method_ink, method_label, method_note, method_style
from eomlab.gui.style.plot_style import plot_widget, without_si_prefix

#: log plots cannot show zero: identical samples are drawn at this floor
DIFFERENCE_FLOOR = 1e-17
#: the difference plot's title says what it plots
DIFFERENCE_TITLE = "Difference from the reference: max |Δq|"
#: the cost table never takes more than this (pixels) from the difference plot
MAX_TABLE_HEIGHT = 520
#: headers in two lines, so the figures' columns stay narrow enough for a presentation's column
COST_COLUMNS = ("method", "rhs\nevals", "steps", "wall s /\nsim s", "max\n|ΔE|/|E₀|", "max\n|residual|")
#: the table's font never shrinks below this (pixels) to fit its column
MIN_TABLE_FONT_PX = 11


_UNKNOWN = object()  # facts not asked yet (None: asked, none to be read)

class ComparePanel(QWidget):
    changed = Signal()  # the runs must start again (formulations or settings changed)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compare_panel")
        self.methods = available_methods()
        self.method_boxes: dict[str, QCheckBox] = {}
        controls = QGridLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QLabel("Formulations"), 0, 0)
        per_row = 3
        for i, method in enumerate(self.methods):
            box = QCheckBox(method_label(method))
            box.setChecked(True)
            palette = box.palette()
            palette.setColor(QPalette.WindowText, QColor(method_ink(method)))
            box.setPalette(palette)
            box.toggled.connect(lambda _on: self.changed.emit())
            self.method_boxes[method] = box
            controls.addWidget(box, i // per_row, 1 + i % per_row)
        row = (len(self.methods) + per_row - 1) // per_row
        controls.addWidget(QLabel("Difference from"), row, 0)
        self.reference_box = QComboBox()
        for method in self.methods:
            self.reference_box.addItem(method_label(method), method)
        self.reference_box.setToolTip("The reference run: each curve is max |q − q_ref| over the coordinates")
        controls.addWidget(self.reference_box, row, 1)
        self.layout_box = QComboBox()
        # short texts: the box keeps its column's width at presentation size without being cut
        self.layout_box.addItem("overlaid", "overlay")
        self.layout_box.addItem("tiled", "tiled")
        self.layout_box.setToolTip("The methods' mechanisms: overlaid in one view (ghosts) or one tile each")
        controls.addWidget(self.layout_box, row, 2)
        self.same_settings = QCheckBox("same settings for all")
        self.same_settings.setToolTip("The same integrator, tolerances and stabilization for every formulation "
                                      "(the model's); untick to give each its own")
        self.same_settings.setChecked(True)
        self.same_settings.toggled.connect(self._show_own_settings)
        controls.addWidget(self.same_settings, row, 3)
        controls.setColumnStretch(4, 1)

        self.settings_table = QTableWidget(len(self.methods), 5)
        self.settings_table.setObjectName("compare_settings")
        self.settings_table.setHorizontalHeaderLabels(["method", "integrator", "rtol", "atol", "stabilization"])
        self.settings_table.verticalHeader().setVisible(False)
        self.settings_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.settings_table.setVisible(False)
        self.own_editors: dict[str, dict[str, QComboBox]] = {}

        self.difference_plot = plot_widget()
        self.difference_plot.setObjectName("plot_difference")
        item = self.difference_plot.getPlotItem()
        item.setTitle(DIFFERENCE_TITLE, size="9pt")
        item.setLogMode(x=False, y=True)
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLabel("bottom", "t", units="s")
        # the quantity is in the title: a left label collides with the log ticks at presentation size
        for side in ("left", "bottom"):
            without_si_prefix(item.getAxis(side))
        item.setLimits(minYRange=3.0)  # log10 units: always a few decades, so the ticks are labelled
        # the curves' key is the method row above (colours and names): no legend over the data
        self.legend = None
        self.difference_curves: dict[str, pg.PlotDataItem] = {}
        self.line_scale = 1.0
        self._facts: dict[int, tuple[Model, ModelFacts]] = {}  # id(model) → (model, its facts)
        self._facts_by_model: dict[Model, ModelFacts | None] = {}  # the model with METHODS[0] → its facts

        self.cost_table = QTableWidget(0, len(COST_COLUMNS))
        self.cost_table.setObjectName("cost_table")
        self.cost_table.setHorizontalHeaderLabels(list(COST_COLUMNS))
        self.cost_table.verticalHeader().setVisible(False)
        self.cost_table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.cost_table.setWordWrap(True)
        # sized by hand (`_fit_table`): Qt's fit-to-contents would size the first column to the
        # spanning rows of words and give those rows a single, cut line
        self.cost_table.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)

        self.split = QSplitter(Qt.Vertical)
        self.split.addWidget(self.difference_plot)
        self.split.addWidget(self.cost_table)
        self.split.setSizes([300, 500])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addLayout(controls)
        layout.addWidget(self.settings_table)
        # runs that give the same numbers, in words (gui/compare/compare_identical.py): their curves lie on one another
        self.identical_label = QLabel("")
        self.identical_label.setObjectName("identical_methods")
        self.identical_label.setWordWrap(True)
        self.identical_label.setVisible(False)
        layout.addWidget(self.identical_label)
        layout.addWidget(self.split, 1)

    # --- choices ---------------------------------------------------------------------------

    def chosen_methods(self) -> list[str]:
        return [m for m, box in self.method_boxes.items() if box.isChecked()]

    def set_methods(self, methods) -> None:
        for method, box in self.method_boxes.items():
            box.blockSignals(True)
            box.setChecked(method in methods)
            box.blockSignals(False)
        self.changed.emit()

    def reference(self) -> str:
        return self.reference_box.currentData()

    def set_reference(self, method: str) -> None:
        self.reference_box.setCurrentIndex(max(0, self.reference_box.findData(method)))

    def lock_main(self, method: str) -> None:
        """The model's own formulation always runs (it is the window's main run)."""
        for m, box in self.method_boxes.items():
            box.setEnabled(m != method)
            if m == method and not box.isChecked():
                box.blockSignals(True)
                box.setChecked(True)
                box.blockSignals(False)

    def own_settings(self) -> dict[str, RunSettings] | None:
        if self.same_settings.isChecked():
            return None
        result = {}
        for method, editors in self.own_editors.items():
            try:
                result[method] = RunSettings(editors["integrator"].currentText(), float(editors["rtol"].currentText()),
                                             float(editors["atol"].currentText()),
                                             editors["stabilization"].currentText())
            except ValueError:
                continue  # an unparsable tolerance: that method keeps the model's settings
        return result

    def fill_own_settings(self, model: Model) -> None:
        """Start every method's own settings from the model's."""
        base = RunSettings.of(model)
        if list(self.own_editors) == list(self.methods):
            # the same rows: new values only (an undo burst rebuilt 20 combo boxes per step, each
            # widget's events through every application event filter: seconds on a busy machine)
            values = {"integrator": base.integrator, "rtol": f"{base.rtol:g}", "atol": f"{base.atol:g}",
                      "stabilization": base.stabilization}
            for editors in self.own_editors.values():
                for key, box in editors.items():
                    box.setCurrentText(values[key])
            return
        self.own_editors = {}
        for row, method in enumerate(self.methods):
            label = QTableWidgetItem(method_label(method))
            label.setForeground(QColor(method_ink(method)))
            self.settings_table.setItem(row, 0, label)
            editors = {}
            for column, (key, choices, value, editable) in enumerate(
                    (("integrator", INTEGRATORS, base.integrator, False), ("rtol", (), f"{base.rtol:g}", True),
                     ("atol", (), f"{base.atol:g}", True),
                     ("stabilization", STABILIZATIONS, base.stabilization, False)), start=1):
                box = QComboBox()
                box.setEditable(editable)
                box.addItems([*choices] if choices else ["1e-6", "1e-8", "1e-10", "1e-11", "1e-12"])
                box.setCurrentText(value)
                if editable:
                    box.lineEdit().editingFinished.connect(self.changed.emit)
                else:
                    box.activated.connect(lambda _i: self.changed.emit())
                self.settings_table.setCellWidget(row, column, box)
                editors[key] = box
            self.own_editors[method] = editors

    def _show_own_settings(self, same: bool) -> None:
        self.settings_table.setVisible(not same)
        self.changed.emit()

    # --- drawing ---------------------------------------------------------------------------

    def show_differences(self, runs, until: float | None = None) -> None:
        """Redraw the difference curves: every run against the reference run, up to `until`."""
        by_method = {r.method: r for r in runs if r.series is not None}
        reference = by_method.get(self.reference())
        wanted = [m for m in by_method if reference is not None and m != self.reference()]
        for method in list(self.difference_curves):
            if method not in wanted:
                self.difference_plot.getPlotItem().removeItem(self.difference_curves.pop(method))
        if reference is None:
            return
        ref = reference.series
        ref_data = ref.rows_until(until)
        for method in wanted:
            series = by_method[method].series
            names = [n for n in ref.info.coordinate_names if n in series.info.columns]
            t, diff = coordinate_difference(ref_data, series.rows_until(until),
                                            [ref.info.columns.index(n) for n in names],
                                            [series.info.columns.index(n) for n in names], ref.info.dt_out)
            curve = self.difference_curves.get(method)
            if curve is None:
                color, style = method_style(method)
                curve = self.difference_plot.getPlotItem().plot(
                    [], [], pen=pg.mkPen(color, width=2.0 * self.line_scale, style=style), name=method_label(method))
                self.difference_curves[method] = curve
            curve.setData(t, np.maximum(diff, DIFFERENCE_FLOOR))

    def show_identical(self, groups) -> None:
        """Say which runs agree to `IDENTICAL` and draw their difference curves so each shows."""
        text = group_words(groups)
        if text:
            text = f"Same numbers, curves drawn one inside the other: {text} (max |Δq|)."
        if self.identical_label.text() != text:
            self.identical_label.setText(text)
            self.identical_label.setVisible(bool(text))
        base = 2.0 * self.line_scale
        wide = widths(groups, base)
        for method, curve in self.difference_curves.items():
            restyle_curve(curve, method, wide.get(method, base))

    def restyle(self, line_scale: float) -> None:
        self.line_scale = line_scale
        for method, curve in self.difference_curves.items():
            color, style = method_style(method)
            curve.setPen(pg.mkPen(color, width=2.0 * line_scale, style=style))

    def show_costs(self, runs, until: float | None = None) -> None:
        """Two rows per method: its figures, then in words what it integrates and why its drift
        differs (spanning the table, so every word shows)."""
        table = self.cost_table
        if table.rowCount() != 2 * len(runs):
            table.clearSpans()
            table.setRowCount(2 * len(runs))
        for i, run in enumerate(runs):
            s = run.stats
            if run.series is not None:
                drift_e, drift_c = largest_drifts(run.series, run.series.rows_until(until))
            else:
                drift_e, drift_c = 0.0, 0.0
            values = (method_label(run.method), s.get("rhs_evals", ""), s.get("steps", ""),
                      f"{s['wall_per_sim_second']:.3g}" if "wall_per_sim_second" in s else "",
                      f"{drift_e:.2e}" if np.isfinite(drift_e) else "—", f"{drift_c:.2e}")
            for column, value in enumerate(values):
                self._cell(2 * i, column, str(value), run.method if column == 0 else "")
            facts = self.facts_of(run.model)
            if facts is not None:
                note = method_words(run.method, method_label(run.method), facts, s.get("integrates", ""))
            else:  # no model to ask (a bare run): the registry's general words
                note = f"{method_label(run.method)} {method_note(run.method)}."
            if table.columnSpan(2 * i + 1, 0) != len(COST_COLUMNS):
                table.setSpan(2 * i + 1, 0, 1, len(COST_COLUMNS))
            self._cell(2 * i + 1, 0, note, "")
        self._fit_table()

    def facts_of(self, model: Model | None) -> ModelFacts | None:
        """The engine's facts of a run's model, computed once per model whatever the method: the
        runs of compare mode hold one model each, the same but for the method, and building each
        one's system held the GUI thread up to a second on a 20-link chain."""
        if model is None:
            return None
        known = self._facts.get(id(model))
        if known is None or known[0] is not model:
            if len(self._facts) > 16:  # parameter edits make new models: keep the few in use
                self._facts.clear()
                self._facts_by_model.clear()
            any_method = model.with_settings(method=METHODS[0])  # (the facts do not depend on it)
            try:
                facts = self._facts_by_model.get(any_method, _UNKNOWN)
            except TypeError:  # a model holding a list somewhere: asked for itself
                any_method, facts = None, _UNKNOWN
            if facts is _UNKNOWN:
                try:
                    facts = model_facts(model)
                except (ModelError, ArithmeticError, ValueError, np.linalg.LinAlgError):
                    facts = None  # a pose the facts cannot be read at (gimbal lock at t = 0): the general words
                if any_method is not None:
                    self._facts_by_model[any_method] = facts
            known = self._facts[id(model)] = (model, facts)
        return known[1]

    def _fit_table(self) -> None:
        """Every column in the table's width: the figures' columns as wide as their figures and
        headers, the methods' names wrapped if need be (the font a size smaller only if even that
        is too wide); each row as tall as its words wrap to."""
        table = self.cost_table
        available = table.viewport().width() - 4
        font = QFont(self.font())  # the panel's (presentation mode sets it), shrunk from there
        while True:
            widths = self._natural_widths(font)
            excess = sum(widths) - available
            if excess > 0:  # the names may wrap, down to their longest word
                widths[0] = max(widths[0] - excess, self._longest_word(font) + 16)
            elif available > 0:  # room to spare: the names' column takes it, the words wrap less
                widths[0] -= excess
            pixels = QFontInfo(font).pixelSize()
            if sum(widths) <= available or pixels <= MIN_TABLE_FONT_PX or available < 100:
                break
            font.setPixelSize(pixels - 1)
        if font != table.font():
            table.setFont(font)
            table.horizontalHeader().setFont(font)
        bold = QFont(font)
        bold.setBold(True)
        for row in range(0, table.rowCount(), 2):
            if table.item(row, 0) is not None and table.item(row, 0).font() != bold:
                table.item(row, 0).setFont(bold)
        for column, width in enumerate(widths):
            table.setColumnWidth(column, width)
        header = table.horizontalHeader()
        header.setFixedHeight(2 * QFontMetrics(font).height() + 8)
        inner = sum(widths) - 8
        for row in range(table.rowCount()):
            item = table.item(row, 0)
            if item is None:
                continue
            spans = table.columnSpan(row, 0) > 1
            metrics = QFontMetrics(font if spans else bold)
            text_rect = metrics.boundingRect(QRect(0, 0, inner if spans else widths[0] - 8, 10000), Qt.TextWordWrap,
                                             item.text())
            table.setRowHeight(row, text_rect.height() + 6)
        # every method in full: the table takes the room it needs from the difference plot above it
        needed = header.height() + sum(table.rowHeight(r) for r in range(table.rowCount())) + 4
        table.setMinimumHeight(min(needed, MAX_TABLE_HEIGHT))

    def _natural_widths(self, font: QFont) -> list[int]:
        """Each column as wide as its widest figure (the names in bold) or header line."""
        table = self.cost_table
        bold = QFont(font)
        bold.setBold(True)
        widths = []
        for column, name in enumerate(COST_COLUMNS):
            texts = [table.item(r, column).text() for r in range(0, table.rowCount(), 2) if table.item(r, column)]
            widths.append(max([QFontMetrics(bold).horizontalAdvance(t) for t in texts] +
                              [QFontMetrics(font).horizontalAdvance(line) for line in name.split("\n")]) + 16)
        return widths

    def _longest_word(self, font: QFont) -> int:
        bold = QFont(font)
        bold.setBold(True)
        words = [w for r in range(0, self.cost_table.rowCount(), 2) if self.cost_table.item(r, 0)
                 for w in self.cost_table.item(r, 0).text().split()]
        return max([QFontMetrics(bold).horizontalAdvance(w) for w in words], default=0)

    def _cell(self, row: int, column: int, text: str, method: str) -> None:
        cell = self.cost_table.item(row, column)
        if cell is None:
            cell = QTableWidgetItem()
            self.cost_table.setItem(row, column, cell)
        if method:  # the method's name: bold, in its colour darkened for text
            cell.setForeground(QColor(method_ink(method)))
        if cell.text() != text:
            cell.setText(text)

    def clear(self) -> None:
        self.identical_label.setText("")
        self.identical_label.setVisible(False)
        for method in list(self.difference_curves):
            self.difference_plot.getPlotItem().removeItem(self.difference_curves.pop(method))
        self.cost_table.clearSpans()
        self.cost_table.setRowCount(0)
