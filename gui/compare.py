"""Compare mode: the same model under several formulations at once.

Each formulation runs on its own worker (`CostReportingRunThread`, a `RunThread` that also ships
its Simulation's cost counters). `CompareView` chooses the formulations and their settings (one
set for all, or each its own), draws the other runs as translucent ghosts over the main scene (or
tiles one scene per run), and fills a dock with

- the difference of each run from a reference run: max |q − q_ref| over the coordinates at the
  sample times both runs have, on a log scale;
- a live table of cost and shape: right-hand-side evaluations, steps, wall time per simulated
  second, what each integrates, how many multipliers, and the largest energy and constraint drift.

Every number comes from the engine's samples and stats; this module only lines them up.
"""
from __future__ import annotations

import math
import multiprocessing
from dataclasses import dataclass, replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QGridLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from eomlab.engine.methods import BAUMGARTE_DEFAULT, METHODS, REGISTRY
from eomlab.engine.model import INTEGRATORS, STABILIZATIONS, Model, Stabilization
from eomlab.gui.geometry import drawing
from eomlab.gui.plots import without_si_prefix
from eomlab.gui.runner import PROCESS_WORKERS, RunThread
from eomlab.gui.scene2d import Scene2D, _pairs

#: the Okabe–Ito palette: distinguishable with every common colour-vision deficiency
OKABE_ITO = {"orange": "#E69F00", "sky_blue": "#56B4E9", "green": "#009E73", "blue": "#0072B2",
             "vermillion": "#D55E00", "purple": "#CC79A7", "yellow": "#F0E442"}
#: colour and dash pattern of the formulations in the registry's order (cycled past the end)
STYLES = ((OKABE_ITO["orange"], Qt.SolidLine), (OKABE_ITO["blue"], Qt.DashLine), (OKABE_ITO["green"], Qt.DotLine),
          (OKABE_ITO["vermillion"], Qt.DashDotLine), (OKABE_ITO["purple"], Qt.DashDotDotLine),
          (OKABE_ITO["sky_blue"], Qt.DashLine), (OKABE_ITO["yellow"], Qt.DotLine))
#: each formulation keeps its colour and dash pattern whatever subset runs, so a picture reads alike
METHOD_STYLES = {key: STYLES[i % len(STYLES)] for i, key in enumerate(METHODS)}
METHOD_LABELS = {key: entry.label for key, entry in REGISTRY.items()}
#: opacity of a ghost mechanism (0–255)
GHOST_ALPHA = 110
#: log plots cannot show zero: identical samples are drawn at this floor
DIFFERENCE_FLOOR = 1e-17
COST_COLUMNS = ("method", "rhs evals", "steps", "wall s / sim s", "integrates", "multipliers",
                "max |ΔE|/|E₀|", "max |residual|")


def method_style(method: str) -> tuple[str, Qt.PenStyle]:
    return METHOD_STYLES[method]


class LockStep:
    """Shared by the runs of one comparison: none integrates more than `lead` seconds of
    simulated time ahead of the slowest, so the ghosts and the plots show the same moment.

    The times live in shared memory (one slot per run, +inf for a run that left), so runs in
    forked child processes (`RunThread(process=True)`) keep pace too; every run joins before any
    starts."""

    SLOTS = 16

    def __init__(self, lead: float):
        self.lead = lead
        self._slots: dict[int, int] = {}
        self._times = multiprocessing.get_context("fork" if PROCESS_WORKERS else None).Array(
            "d", [math.inf] * self.SLOTS)

    def join(self, run_id: int) -> None:
        if run_id not in self._slots and len(self._slots) < self.SLOTS:
            self._slots[run_id] = len(self._slots)
        self._set(run_id, 0.0)

    def leave(self, run_id: int) -> None:
        self._set(run_id, math.inf)

    def _set(self, run_id: int, t: float) -> None:
        slot = self._slots.get(run_id)
        if slot is not None:
            with self._times.get_lock():
                self._times[slot] = t

    def report(self, run_id: int, t: float) -> float:
        """Record this run's time; the furthest it may go now."""
        slot = self._slots.get(run_id)
        with self._times.get_lock():
            if slot is not None:
                self._times[slot] = t
            return min(self._times[:]) + self.lead


class CostReportingRunThread(RunThread):
    """A RunThread that also sends its Simulation's `stats` with every batch (cheap: a dict) and,
    given a LockStep, keeps pace with the other runs of the comparison."""

    stats = Signal(int, object)

    def __init__(self, *args, lock_step: LockStep | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lock_step = lock_step
        if lock_step is not None:
            lock_step.join(self.run_id)
            self.finished.connect(lambda: lock_step.leave(self.run_id))

    def limit_target(self, target: float, sim) -> float:
        if self.lock_step is None:
            return target
        if sim.finished:
            self.lock_step.leave(self.run_id)
            return target
        return min(target, self.lock_step.report(self.run_id, sim.t))

    def _flush(self, pending, sim, q_slice) -> None:
        super()._flush(pending, sim, q_slice)
        self._emit("stats", dict(sim.stats))


@dataclass(frozen=True)
class RunSettings:
    """What one formulation may set for itself in compare mode."""

    integrator: str
    rtol: float
    atol: float
    stabilization: str

    @classmethod
    def of(cls, model: Model) -> RunSettings:
        s = model.settings
        return cls(s.integrator, s.rtol, s.atol, s.stabilization.kind)

    def applied_to(self, model: Model, method: str) -> Model:
        current = model.settings.stabilization
        if self.stabilization == current.kind:
            stabilization = current
        elif self.stabilization == "baumgarte":  # critically damped default, as the toolbar does
            stabilization = replace(current, kind="baumgarte",
                                    **{k: getattr(current, k) or v for k, v in BAUMGARTE_DEFAULT.items()})
        else:
            stabilization = Stabilization(kind=self.stabilization, tolerance=current.tolerance)
        return model.with_settings(method=method, integrator=self.integrator, rtol=self.rtol, atol=self.atol,
                                   stabilization=stabilization)


def run_models(model: Model, methods: list[str], own: dict[str, RunSettings] | None = None) -> list[Model]:
    """One model per formulation to run: the model's own method first, then the others in the
    order of the registry `engine.methods.METHODS`; `own` overrides settings per method (None: the same for all)."""
    main = model.settings.method
    chosen = [main] + [m for m in METHODS if m in methods and m != main]
    models = []
    for method in chosen:
        if own and method in own:
            models.append(own[method].applied_to(model, method))
        else:
            models.append(model if method == main else model.with_settings(method=method))
    return models


def coordinate_difference(reference: np.ndarray, other: np.ndarray, ref_q: list[int], other_q: list[int],
                          dt_out: float) -> tuple[np.ndarray, np.ndarray]:
    """(t, max_i |q_i − q_ref,i|) at the sample times both runs have.

    Samples fall on multiples of dt_out; matching them by that index (not by float equality) is
    robust to the last bits of t. `ref_q`/`other_q` are the columns of the same coordinates."""
    if not len(reference) or not len(other) or not ref_q:
        return np.zeros(0), np.zeros(0)
    k_ref = np.rint(reference[:, 0] / dt_out).astype(np.int64)
    k_other = np.rint(other[:, 0] / dt_out).astype(np.int64)
    common, i_ref, i_other = np.intersect1d(k_ref, k_other, assume_unique=False, return_indices=True)
    if not len(common):
        return np.zeros(0), np.zeros(0)
    diff = np.abs(reference[np.ix_(i_ref, ref_q)] - other[np.ix_(i_other, other_q)]).max(axis=1)
    return reference[i_ref, 0], diff


def largest_drifts(series) -> tuple[float, float]:
    """(max relative energy drift, max |constraint residual|) of a run's kept samples."""
    data = series.buffer.view()
    if not len(data):
        return 0.0, 0.0
    energy, kinetic, potential = (series.column(data, c) for c in ("E", "T", "V"))
    if series.energy_reference is not None:
        e0, scale = series.energy_reference
    else:
        e0, scale = energy[0], max(abs(energy[0]), kinetic[0] + abs(potential[0]), 1e-12)
    drift_e = float(np.max(np.abs(energy - e0)) / scale)
    residuals = [np.abs(series.column(data, c)) for c in ("drift_pos", "drift_vel")
                 if series.column(data, c) is not None]
    drift_c = float(max((r.max() for r in residuals), default=0.0))
    return drift_e, drift_c


class Ghosts:
    """The other runs drawn translucent over the main 2-D scene, one colour per formulation."""

    def __init__(self, scene: Scene2D):
        self.scene = scene
        self.items: dict[str, tuple] = {}

    def show(self, frames: list[tuple[str, object]]) -> None:
        """frames: (method, Frame) of every run but the main one."""
        wanted = {method for method, _ in frames}
        for method in list(self.items):
            if method not in wanted:
                self._remove(method)
        model = self.scene.model
        if model is None:
            return
        for method, frame in frames:
            if frame is None:
                continue
            rods, links = self.items.get(method) or self._add(method)
            picture = drawing(model, frame.rotations, frame.origins, frame.mass_centres)
            rods.setData(*_pairs(picture.rods, self.scene.project))
            links.setData(*_pairs(picture.links + [np.array([c, c]) for c in picture.mass_centres],
                                  self.scene.project))

    def _add(self, method: str) -> tuple:
        color = QColor(method_style(method)[0])
        color.setAlpha(GHOST_ALPHA)
        item = self.scene.getPlotItem()
        rods = item.plot([], [], pen=pg.mkPen(color, width=9, cap=Qt.RoundCap), connect="pairs")
        links = item.plot([], [], pen=pg.mkPen(color, width=3, cap=Qt.RoundCap), connect="pairs")
        for curve in (rods, links):
            curve.setZValue(-1)  # under the main mechanism
        self.items[method] = (rods, links)
        return rods, links

    def _remove(self, method: str) -> None:
        for curve in self.items.pop(method):
            self.scene.getPlotItem().removeItem(curve)

    def clear(self) -> None:
        for method in list(self.items):
            self._remove(method)


class TiledScenes(QWidget):
    """One small 2-D scene per run (3-D models in the oblique projection), titled by method."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compare_tiles")
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(2)
        self.scenes: dict[str, Scene2D] = {}

    def set_runs(self, model: Model, methods: list[str]) -> None:
        for scene in self.scenes.values():
            scene.setParent(None)
            scene.deleteLater()
        self.scenes = {}
        columns = 2 if len(methods) > 1 else 1
        for i, method in enumerate(methods):
            scene = Scene2D()
            scene.setObjectName(f"tile_{method}")
            scene.set_model(model)
            color = method_style(method)[0]
            scene.getPlotItem().setTitle(f'<span style="color:{color}">{METHOD_LABELS[method]}</span>')
            self.scenes[method] = scene
            self.grid.addWidget(scene, i // columns, i % columns)

    def show_frames(self, frames: list[tuple[str, object]]) -> None:
        for method, frame in frames:
            if method in self.scenes and frame is not None:
                self.scenes[method].show_frame(frame)


class ComparePanel(QWidget):
    """The dock's contents: which formulations, their settings, the difference plot and the
    cost table."""

    changed = Signal()  # the runs must start again (formulations or settings changed)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compare_panel")
        self.method_boxes: dict[str, QCheckBox] = {}
        # a narrow grid rather than long rows: the dock must fit beside the plots at 24 px fonts
        controls = QGridLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QLabel("Formulations"), 0, 0)
        for i, method in enumerate(METHODS):
            box = QCheckBox(METHOD_LABELS[method])
            box.setChecked(True)
            palette = box.palette()
            palette.setColor(QPalette.WindowText, QColor(method_style(method)[0]))
            box.setPalette(palette)
            box.toggled.connect(lambda _on: self.changed.emit())
            self.method_boxes[method] = box
            controls.addWidget(box, i // 2, 1 + i % 2)
        row = (len(METHODS) + 1) // 2  # below the formulations, however many the registry holds
        controls.addWidget(QLabel("Difference from"), row, 0)
        self.reference_box = QComboBox()
        for method in METHODS:
            self.reference_box.addItem(METHOD_LABELS[method], method)
        self.reference_box.setToolTip("The reference run: each curve is max |q − q_ref| over the coordinates")
        controls.addWidget(self.reference_box, row, 1)
        self.layout_box = QComboBox()
        self.layout_box.addItem("mechanisms overlaid", "overlay")
        self.layout_box.addItem("mechanisms tiled", "tiled")
        controls.addWidget(self.layout_box, row, 2)
        self.same_settings = QCheckBox("same settings for all")
        self.same_settings.setToolTip("The same integrator, tolerances and stabilization for every formulation "
                                      "(the model's); untick to give each its own")
        self.same_settings.setChecked(True)
        self.same_settings.toggled.connect(self._show_own_settings)
        controls.addWidget(self.same_settings, row + 1, 1, 1, 2)
        controls.setColumnStretch(3, 1)

        self.settings_table = QTableWidget(len(METHODS), 5)
        self.settings_table.setObjectName("compare_settings")
        self.settings_table.setHorizontalHeaderLabels(["method", "integrator", "rtol", "atol", "stabilization"])
        self.settings_table.verticalHeader().setVisible(False)
        self.settings_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.settings_table.setVisible(False)
        self.own_editors: dict[str, dict[str, QComboBox]] = {}

        self.difference_plot = pg.PlotWidget()
        self.difference_plot.setObjectName("plot_difference")
        item = self.difference_plot.getPlotItem()
        item.setTitle("Difference from the reference", size="9pt")
        item.setLogMode(x=False, y=True)
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLabel("bottom", "t", units="s")
        item.setLabel("left", "max |q − q_ref|")
        for side in ("left", "bottom"):
            without_si_prefix(item.getAxis(side))
        item.setLimits(minYRange=3.0)  # log10 units: always a few decades, so the ticks are labelled
        self.legend = item.addLegend(offset=(-4, 4), labelTextSize="8pt", brush=pg.mkBrush(255, 255, 255, 210))
        self.difference_curves: dict[str, pg.PlotDataItem] = {}
        self.line_scale = 1.0

        self.cost_table = QTableWidget(0, len(COST_COLUMNS))
        self.cost_table.setObjectName("cost_table")
        self.cost_table.setHorizontalHeaderLabels(list(COST_COLUMNS))
        self.cost_table.verticalHeader().setVisible(False)
        self.cost_table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.cost_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.cost_table.horizontalHeader().setStretchLastSection(True)

        split = QSplitter(Qt.Vertical)
        split.addWidget(self.difference_plot)
        split.addWidget(self.cost_table)
        split.setSizes([260, 160])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addLayout(controls)
        layout.addWidget(self.settings_table)
        layout.addWidget(split, 1)

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
        self.own_editors = {}
        for row, method in enumerate(METHODS):
            label = QTableWidgetItem(METHOD_LABELS[method])
            label.setForeground(QColor(method_style(method)[0]))
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

    def show_differences(self, handles) -> None:
        """Redraw the difference curves: every run against the reference run."""
        by_method = {h.thread.model.settings.method: h for h in handles if h.series is not None}
        reference = by_method.get(self.reference())
        wanted = [m for m in by_method if reference is not None and m != self.reference()]
        for method in list(self.difference_curves):
            if method not in wanted:
                self.difference_plot.getPlotItem().removeItem(self.difference_curves.pop(method))
                self.legend.removeItem(METHOD_LABELS[method])
        if reference is None:
            return
        ref = reference.series
        ref_data = ref.buffer.view()
        for method in wanted:
            series = by_method[method].series
            names = [n for n in ref.info.coordinate_names if n in series.info.columns]
            t, diff = coordinate_difference(ref_data, series.buffer.view(),
                                            [ref.info.columns.index(n) for n in names],
                                            [series.info.columns.index(n) for n in names], ref.info.dt_out)
            curve = self.difference_curves.get(method)
            if curve is None:
                color, style = method_style(method)
                curve = self.difference_plot.getPlotItem().plot(
                    [], [], pen=pg.mkPen(color, width=2.0 * self.line_scale, style=style), name=METHOD_LABELS[method])
                self.difference_curves[method] = curve
            curve.setData(t, np.maximum(diff, DIFFERENCE_FLOOR))

    def restyle(self, line_scale: float) -> None:
        self.line_scale = line_scale
        for method, curve in self.difference_curves.items():
            color, style = method_style(method)
            curve.setPen(pg.mkPen(color, width=2.0 * line_scale, style=style))

    def show_costs(self, handles, stats: dict[int, dict]) -> None:
        self.cost_table.setRowCount(len(handles))
        for row, handle in enumerate(handles):
            method = handle.thread.model.settings.method
            s = stats.get(handle.thread.run_id, {})
            drift_e, drift_c = largest_drifts(handle.series) if handle.series is not None else (0.0, 0.0)
            values = (METHOD_LABELS[method], s.get("rhs_evals", ""), s.get("steps", ""),
                      f"{s['wall_per_sim_second']:.3g}" if "wall_per_sim_second" in s else "",
                      s.get("integrates", ""), s.get("multipliers", ""), f"{drift_e:.2e}", f"{drift_c:.2e}")
            for column, value in enumerate(values):
                cell = self.cost_table.item(row, column)
                if cell is None:
                    cell = QTableWidgetItem()
                    self.cost_table.setItem(row, column, cell)
                cell.setText(str(value))
                if column == 0:
                    cell.setForeground(QColor(method_style(method)[0]))

    def clear(self) -> None:
        for method in list(self.difference_curves):
            self.difference_plot.getPlotItem().removeItem(self.difference_curves.pop(method))
            self.legend.removeItem(METHOD_LABELS[method])
        self.cost_table.setRowCount(0)


class CompareView(QObject):
    """Compare mode of one main window: its dock, the ghosts or tiles, and the run plans."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.stats: dict[int, dict] = {}
        self.panel = ComparePanel()
        self.panel.fill_own_settings(window.model)
        self.panel.set_reference(window.model.settings.method)
        self.dock = QDockWidget("Compare", window)
        self.dock.setObjectName("dock_compare")
        self.dock.setWidget(self.panel)
        self.dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        window.addDockWidget(Qt.BottomDockWidgetArea, self.dock)
        window.splitDockWidget(window.plots_dock, self.dock, Qt.Horizontal)
        window.resizeDocks([window.plots_dock, self.dock], [1000, 600], Qt.Horizontal)
        self.dock.setVisible(False)
        self.ghosts = Ghosts(window.scene2d)
        self.tiles = TiledScenes()
        self.scene_stack: QStackedWidget = window.scene_stack
        self.scene_stack.addWidget(self.tiles)
        self.panel.changed.connect(self._restart)
        self.panel.reference_box.currentIndexChanged.connect(lambda _i: self.redraw(plots=True))
        self.panel.layout_box.currentIndexChanged.connect(lambda _i: self._show_layout())
        window.document.changed.connect(lambda *_: self._on_model_changed())

    # --- the runs --------------------------------------------------------------------------

    def run_models(self, model: Model) -> list[Model]:
        """The models the window starts in compare mode (the model's own method first)."""
        self.panel.lock_main(model.settings.method)
        return run_models(model, self.panel.chosen_methods(), self.panel.own_settings())

    def make_thread(self, run_model: Model, run_id: int, **kwargs) -> CostReportingRunThread:
        lock_step = None
        if self.window.compare:
            if not self.window.runs:  # the first run of a comparison: a fresh clock for all of them
                self._lock_step = LockStep(lead=2.0 * run_model.settings.dt_out)
            lock_step = self._lock_step
        thread = CostReportingRunThread(run_model, run_id, lock_step=lock_step, **kwargs)
        thread.stats.connect(self._on_stats)
        return thread

    def runs_started(self) -> None:
        self.stats = {}
        self.panel.clear()
        self.ghosts.clear()
        if self.window.compare:
            self.tiles.set_runs(self.window.model, self.methods())
        self._show_layout()

    def methods(self) -> list[str]:
        return [h.thread.model.settings.method for h in self.window.runs]

    def _on_stats(self, run_id: int, stats: dict) -> None:
        self.stats[run_id] = stats

    def _restart(self) -> None:
        if self.window.compare:
            self.window.start_runs(running=self.window.state == "running")

    def _on_model_changed(self) -> None:
        self.panel.lock_main(self.window.model.settings.method)
        if self.panel.same_settings.isChecked():
            self.panel.fill_own_settings(self.window.model)
        self._show_layout()

    # --- showing ---------------------------------------------------------------------------

    def set_active(self, on: bool) -> None:
        self.dock.setVisible(on)
        presentation = getattr(self.window, "presentation", None)
        if presentation is not None and presentation.active:
            presentation.apply()  # legends and sizes depend on compare mode there
        if not on:
            self.ghosts.clear()
            self.panel.clear()
        self._show_layout()

    def _show_layout(self) -> None:
        tiled = self.window.compare and self.panel.layout_box.currentData() == "tiled"
        if tiled:
            self.ghosts.clear()
        self.scene_stack.setCurrentWidget(self.tiles if tiled else self.window.scene)

    def redraw(self, plots: bool) -> None:
        """Called from the window's redraw timer: ghosts or tiles every frame, the difference
        plot and the cost table at the plots' cadence."""
        if not self.window.compare:
            return
        runs = self.window.runs
        frames = [(h.thread.model.settings.method, h.latest_frame) for h in runs]
        if self.scene_stack.currentWidget() is self.tiles:
            self.tiles.show_frames(frames)
        elif self.window.scene is self.window.scene2d:
            self.ghosts.show(frames[1:])
        if plots:
            self.panel.show_differences(runs)
            self.panel.show_costs(runs, self.stats)
