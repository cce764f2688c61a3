"""Run ▸ Sweep: vary two initial coordinates or speeds over a grid, measure each run, watch the map fill.

The sweep itself is the engine's (`eomlab.engine.sweep`): a worker thread runs it in this process
chunk by chunk (the batched engine where it serves, single runs elsewhere) and hands each chunk's
columns to the window, which paints them into the map. A click on the map opens that run in the
main view (an undoable edit of the initial state, then Run).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from eomlab.engine.model import ModelError
from eomlab.gui.sweeps import sweep_export

CHUNK = 100  # runs per chunk: the map fills in steps this big


class _Stopped(Exception):
    """Raised inside the sweep when the user presses Stop (the chunks so far are kept)."""


class SweepThread(QThread):
    chunk = Signal(object)  # the chunk's columns (dict of arrays)
    failed = Signal(str)

    def __init__(self, spec, parent=None):
        super().__init__(parent)
        self.spec, self.stop_requested = spec, False

    def run(self) -> None:
        from eomlab.engine.sweep.distribute import execute
        from eomlab.engine.sweep.store import MemoryStore

        def deliver(_k, columns, _notes):
            self.chunk.emit(columns)
            if self.stop_requested:
                raise _Stopped

        try:
            execute(self.spec, MemoryStore(), CHUNK, workers=0, on_chunk=deliver)
        except _Stopped:
            pass
        except (ModelError, ArithmeticError, ValueError, np.linalg.LinAlgError) as err:
            self.failed.emit(str(err))


def _measures(window) -> list[str]:
    """What the panel offers, the default first: for a pendulum, its last body going over the top
    (`over_top`: its angle π from hanging), then |θ| = π (`flip_time`), drifts and final values."""
    model = window.model
    over = [c for c in reversed(model.coordinate_names) if _turns_in_a_plane(model, c)]
    return [*(f"over_top:{c}" for c in over), *(f"flip_time:{c}" for c in model.coordinate_names), "energy_drift",
            "rhs_evals", *(f"final:{c}" for c in model.coordinate_names)]


def _turns_in_a_plane(model, name: str) -> bool:
    from eomlab.engine.sweep.hanging import turning_chain

    try:
        turning_chain(model, name)
    except ValueError:
        return False
    return True


class SweepPanel(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Sweep")
        self.thread: SweepThread | None = None
        self.spec = None
        self.chunks: list[dict] = []  # the columns of every chunk so far (the Parquet export)
        model = window.model
        names = list(model.coordinate_names) + [f"{c}_dot" for c in model.coordinate_names
                                                if f"{c}_dot" in _state_names(model)]
        layout = QVBoxLayout(self)
        grid = QGridLayout()
        self.axes = []
        for row, (label, default) in enumerate((("x", 0), ("y", 1))):
            name = QComboBox()
            name.addItems(names)
            name.setCurrentIndex(min(default, len(names) - 1))
            low, high = _spin(-math.pi), _spin(math.pi)
            count = QSpinBox()
            count.setRange(2, 400)
            count.setValue(40)
            for col, widget in enumerate((QLabel(f"{label}:"), name, QLabel("from"), low, QLabel("to"), high,
                                          QLabel("points"), count)):
                grid.addWidget(widget, row, col)
            self.axes.append((name, low, high, count))
        self.measure = QComboBox()
        self.measure.addItems(_measures(window))
        self.t_end = _spin(10.0, 0.01, 1e4)
        grid.addWidget(QLabel("measure:"), 2, 0)
        grid.addWidget(self.measure, 2, 1, 1, 3)
        grid.addWidget(QLabel("t_end (s):"), 2, 4)
        grid.addWidget(self.t_end, 2, 5)
        layout.addLayout(grid)
        buttons = QHBoxLayout()
        self.start_button = QPushButton("Start")
        self.start_button.clicked.connect(self.start_or_stop)
        self.progress = QProgressBar()
        self.status = QLabel("")
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.progress, 1)
        self.png_button = QPushButton("Export PNG…")
        self.png_button.clicked.connect(lambda: self._export("PNG picture (*.png)", ".png", self.export_png))
        self.parquet_button = QPushButton("Export Parquet…")
        self.parquet_button.clicked.connect(
            lambda: self._export("Parquet table (*.parquet)", ".parquet", self.export_parquet))
        for button in (self.png_button, self.parquet_button):
            button.setEnabled(False)  # nothing to export before a sweep
            buttons.addWidget(button)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.plot = pg.PlotWidget()
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self.bar = pg.ColorBarItem(colorMap=pg.colormap.get("viridis"), interactive=False)
        self.bar.setImageItem(self.image, insert_in=self.plot.getPlotItem())
        self.image.mouseClickEvent = self._clicked
        layout.addWidget(self.plot, 1)
        self.resize(900, 800)

    # --- running -----------------------------------------------------------------------------

    def start_or_stop(self) -> None:
        if self.thread is not None and self.thread.isRunning():
            self.thread.stop_requested = True
            self.start_button.setEnabled(False)
            return
        from eomlab.engine.sweep.spec import make_sweep

        vary = [f"{name.currentText()}={low.value()}:{high.value()}:{count.value()}"
                for name, low, high, count in self.axes]
        try:
            self.spec = make_sweep(self.window_.model, vary, [self.measure.currentText()], t_end=self.t_end.value())
        except ModelError as err:
            self.status.setText(str(err))
            return
        (nx, ny) = (self.axes[0][3].value(), self.axes[1][3].value())
        self.values = np.full((nx, ny), np.nan)
        self.done = 0
        self.chunks = []
        self.progress.setRange(0, self.spec.n_runs)
        self.progress.setValue(0)
        self._draw()
        self.thread = SweepThread(self.spec, self)
        self.thread.chunk.connect(self._on_chunk)
        self.thread.failed.connect(self.status.setText)
        self.thread.finished.connect(self._finished)
        self.start_button.setText("Stop")
        self.status.setText(f"{self.spec.n_runs} runs")
        self.thread.start()

    def _on_chunk(self, columns: dict) -> None:
        ny = self.values.shape[1]
        runs = np.asarray(columns["run"])
        measure = self.measure_column()
        self.values[runs // ny, runs % ny] = np.asarray(columns[measure], float)
        self.chunks.append(columns)
        self.done += len(runs)
        self.png_button.setEnabled(True)
        self.parquet_button.setEnabled(True)
        self.progress.setValue(self.done)
        engines = np.asarray(columns["engine"])
        together = int(np.sum((engines == "batched") | (engines == "compiled")))
        self.status.setText(f"{self.done} of {self.spec.n_runs} runs ({together} of the last {len(runs)} batched or compiled)")
        self._draw()

    def measure_column(self) -> str:
        return self.spec.columns[3]

    def _finished(self) -> None:
        self.start_button.setText("Start")
        self.start_button.setEnabled(True)

    def _draw(self) -> None:
        (x, xl, xh, _), (y, yl, yh, _) = self.axes
        shown = self.values
        label = self.measure_column()
        if label.startswith(("flip_time", "over_top")):
            with np.errstate(divide="ignore", invalid="ignore"):
                shown = np.log10(self.values)
            label = f"log10 {label} (s)"
        finite = shown[np.isfinite(shown)]
        self.image.setImage(shown, autoLevels=False)
        nx, ny = shown.shape
        # pixel centres on the varied values: the rectangle reaches half a step beyond each end
        dx, dy = (xh.value() - xl.value()) / (nx - 1), (yh.value() - yl.value()) / (ny - 1)
        self.image.setRect(xl.value() - dx / 2, yl.value() - dy / 2, nx * dx, ny * dy)
        if finite.size:
            low, high = float(finite.min()), float(finite.max())
            self.bar.setLevels((low, high if high > low else low + 1e-12))
        self.plot.setLabel("bottom", x.currentText())
        self.plot.setLabel("left", y.currentText())
        self.plot.setTitle(f"{label}; empty: not yet run, or never")

    # --- export (gui/sweeps/sweep_export.py) ---------------------------------------------------------

    def export_png(self, path: str) -> str | None:
        """The map as shown, as a PNG; None, or the one-line reason it was not written."""
        return sweep_export.write_png(self.plot, path)

    def export_parquet(self, path: str) -> str | None:
        """Every run measured so far, one row each (the columns `eomlab sweep` writes)."""
        return sweep_export.write_parquet(self.chunks, path)

    def _export(self, kind: str, suffix: str, write) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the sweep", f"sweep{suffix}", kind)
        if not path:
            return
        if not path.endswith(suffix):
            path += suffix
        error = write(path)
        self.status.setText(error or f"Wrote {path}")

    # --- opening one run -----------------------------------------------------------------------

    def _clicked(self, event) -> None:
        if self.spec is None:
            return
        pos = event.pos()  # image pixels
        i, j = int(pos.x()), int(pos.y())
        nx, ny = self.values.shape
        if not (0 <= i < nx and 0 <= j < ny):
            return
        self.open_run(i * ny + j)

    def open_run(self, run: int) -> None:
        """Open run `run` of the sweep in the main view and run it."""
        from eomlab.engine.sweep.members import members, with_initial_state

        table = self.spec.run_table(run, run + 1)
        (member,), _ = members(self.spec, table)
        shown = ", ".join(f"{v.name} = {table[v.name][0]:.4g}" for v in self.spec.varies)
        start = with_initial_state(self.window_.model, member.q0, member.u0)
        if self.window_.edit(lambda _m: start, f"Sweep run {run}: {shown}"):
            self.window_.reset()
            self.window_.run()


def _state_names(model) -> set[str]:
    from eomlab.engine.sweep.measures import state_names

    return set(state_names(model))


def _spin(value: float, low: float = -1e6, high: float = 1e6) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setDecimals(3)
    box.setValue(value)
    return box


def open_for(window) -> SweepPanel:
    """The window's sweep panel (one per window), shown and raised."""
    panel = getattr(window, "_sweep_panel", None)
    if panel is None:
        panel = window._sweep_panel = SweepPanel(window)
    panel.show()
    panel.raise_()
    return panel
