"""Analyze ▸ Modes: the eigenvalues of the model linearized about its initial state (or the nearest
equilibrium) in a table — frequency, damping ratio, stable or not — and the chosen mode moving on
the mechanism, in 2-D or 3-D, with an amplitude slider (engine.linearize.ModeMotion)."""
from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView, QApplication, QComboBox, QDockWidget, QHBoxLayout, QHeaderView, QLabel, QSlider, QTableWidget,
    QTableWidgetItem, QVBoxLayout, QWidget,
)

from eomlab.engine.linearize import ModeMotion, linearize
from eomlab.engine.model import ModelError

FPS = 60
AMPLITUDE_STEPS = 100  # slider steps
MAX_AMPLITUDE = 0.5  # rad or m at the slider's end
MIN_WIDTH = 540  # px: the table's four columns whole


class ModesPanel(QWidget):
    """A dock beside the mechanism; choosing a row animates that mode while the run is paused."""

    def __init__(self, window):
        super().__init__()
        self.window = window
        self.motion: ModeMotion | None = None
        self.mode: int | None = None
        self._start = time.perf_counter()
        self.about = QComboBox()
        self.about.addItems(["initial state", "nearest equilibrium"])
        self.about.currentIndexChanged.connect(lambda _i: self.compute())
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["eigenvalue λ", "f [Hz]", "ζ", "stable"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)  # whole at any font
        self.table.itemSelectionChanged.connect(self._chosen)
        self.amplitude = QSlider(Qt.Horizontal)
        self.amplitude.setRange(0, AMPLITUDE_STEPS)
        self.amplitude.setValue(AMPLITUDE_STEPS // 5)
        self.amplitude_label = QLabel()
        self.amplitude.valueChanged.connect(lambda _v: self._show_amplitude())
        row = QHBoxLayout()
        row.addWidget(QLabel("amplitude"))
        row.addWidget(self.amplitude, 1)
        row.addWidget(self.amplitude_label)
        layout = QVBoxLayout(self)
        layout.addWidget(self.about)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        self._show_amplitude()
        self.setMinimumWidth(MIN_WIDTH)
        self.timer = QTimer(self)
        self.timer.setInterval(int(1000 / FPS))
        self.timer.timeout.connect(self._tick)
        self.dock = QDockWidget("Modes", window)
        self.dock.setObjectName("dock_modes")
        self.dock.setWidget(self)
        self.dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                              | QDockWidget.DockWidgetClosable)
        window.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.dock.visibilityChanged.connect(lambda shown: None if shown else self.stop())
        window.session.state_changed.connect(lambda state: self.stop() if state == "running" else None)

    @property
    def amplitude_value(self) -> float:
        return MAX_AMPLITUDE * self.amplitude.value() / AMPLITUDE_STEPS

    def _show_amplitude(self) -> None:
        self.amplitude_label.setText(f"{self.amplitude_value:.2f}")

    def open(self) -> None:
        self.dock.show()
        self.dock.raise_()
        self.compute()

    def compute(self) -> None:
        """Linearize the window's model (the run is paused first: the mode takes the mechanism)."""
        self.stop()
        if self.window.state == "running":
            self.window.pause()
        about = "initial" if self.about.currentIndex() == 0 else "equilibrium"
        model = self.window.model
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            lin = linearize(model, about=about)
        except (ModelError, ArithmeticError, ValueError) as err:
            self.motion = None
            self.table.setRowCount(0)
            self.summary.setText(str(err).splitlines()[0])
            return
        finally:
            QApplication.restoreOverrideCursor()
        self.motion = ModeMotion(model, lin)
        words = [f"{'stable' if lin.stable else 'unstable'} ({lin.method}, {lin.coordinates} coordinates)"]
        if lin.cyclic:
            words.append(f"cyclic: {', '.join(lin.cyclic)}")
        if lin.conserved:
            words.append(f"constant to first order: {', '.join(lin.conserved)}")
        self.summary.setText("; ".join(words))
        self.table.setRowCount(len(lin.modes))
        for k, m in enumerate(lin.modes):
            lam = m.eigenvalue
            zeta = "–" if m.damping_ratio != m.damping_ratio else f"{m.damping_ratio:.3f}"
            cells = (f"{lam.real:+.4g} {'+' if lam.imag >= 0 else '−'} {abs(lam.imag):.4g}i", f"{m.frequency_hz:.3g}",
                     zeta, "yes" if m.stable else "no")
            for c, text in enumerate(cells):
                self.table.setItem(k, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        if lin.modes:
            self.table.selectRow(0)

    def _chosen(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or self.motion is None:
            self.stop()
            return
        self.choose(rows[0].row())

    def choose(self, mode: int) -> None:
        """Animate mode `mode` (a row of the table) on the mechanism."""
        self.mode = mode
        self._start = time.perf_counter()
        if self.window.state == "running":
            self.window.pause()
        self.timer.start()
        self._tick()

    def stop(self) -> None:
        self.timer.stop()
        self.mode = None

    def _tick(self) -> None:
        if self.motion is None or self.mode is None:
            return
        t = time.perf_counter() - self._start
        self.window.scene.show_frame(self.motion.frame(self.mode, self.amplitude_value, t))
