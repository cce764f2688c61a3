"""Analyze ▸ Stability: the eigenvalues of the linearized model against a parameter — real parts and
|Im λ| — with the values where the largest real part crosses zero marked (engine.linearize.vary,
computed in a worker thread)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtWidgets import (
    QComboBox, QDockWidget, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget,
)

from eomlab.engine.linearize.vary import SPEED, parse_range, vary
from eomlab.engine.model import ModelError

REAL_COLOUR, IMAG_COLOUR, CROSSING_COLOUR = "#0072B2", "#E69F00", "#D55E00"  # Okabe–Ito


class _Worker(QObject):
    done = Signal(object)
    failed = Signal(str)

    def __init__(self, model, name, values):
        super().__init__()
        self.model, self.name, self.values = model, name, values

    def run(self) -> None:
        try:
            self.done.emit(vary(self.model, self.name, self.values))
        except (ModelError, ArithmeticError, ValueError) as err:
            self.failed.emit(str(err).splitlines()[0])


class StabilityPanel(QWidget):
    def __init__(self, window):
        super().__init__()
        self.window = window
        self.thread: QThread | None = None
        self.result = None
        self.parameter = QComboBox()
        self.parameter.setEditable(True)
        self.range = QLineEdit("0:10:41")
        self.range.setToolTip("A:B:N — N values from A to B")
        self.go = QPushButton("Compute")
        self.go.clicked.connect(self.compute)
        row = QHBoxLayout()
        row.addWidget(QLabel("vary"))
        row.addWidget(self.parameter, 2)
        row.addWidget(self.range, 1)
        row.addWidget(self.go)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("left", "Re λ [1/s], |Im λ| [rad/s]")
        self.plot.addLegend(offset=(-10, -10))
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.status = QLabel("choose a parameter and its range")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.status)
        self.dock = QDockWidget("Stability", window)
        self.dock.setObjectName("dock_stability")
        self.dock.setWidget(self)
        self.dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                              | QDockWidget.DockWidgetClosable)
        window.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        self.dock.hide()

    def open(self) -> None:
        model = self.window.model
        names = [SPEED] + [n for b in model.bodies for n in _speed_names(b)] + list(model.coordinate_names)
        current = self.parameter.currentText()
        self.parameter.clear()
        self.parameter.addItems(names)
        if current in names:
            self.parameter.setCurrentText(current)
        self.dock.show()
        self.dock.raise_()

    def compute(self) -> None:
        if self.thread is not None:
            return
        name = self.parameter.currentText().strip()
        try:
            name, values = parse_range(f"{name}={self.range.text().strip()}")
        except ModelError as err:
            self.status.setText(str(err))
            return
        self.status.setText(f"linearizing at {len(values)} values of {name}…")
        self.go.setEnabled(False)
        self.thread = QThread(self)
        self._worker = _Worker(self.window.model, name, values)
        self._worker.moveToThread(self.thread)
        self.thread.started.connect(self._worker.run)
        self._worker.done.connect(self.show_result)
        self._worker.failed.connect(self.status.setText)
        for signal in (self._worker.done, self._worker.failed):
            signal.connect(self.thread.quit)
        self.thread.finished.connect(self._finished)
        self.thread.start()

    def wait(self, ms: int = 120_000) -> None:
        """Block until the computation ends (scripts and tests)."""
        if self.thread is not None:
            self.thread.wait(ms)

    def _finished(self) -> None:
        self.thread = None
        self.go.setEnabled(True)

    def show_result(self, result) -> None:
        self.result = result
        self.plot.clear()
        xs_re, ys_re, xs_im, ys_im = [], [], [], []
        for v, e in zip(result.values, result.eigenvalues):
            for z in e:
                xs_re.append(v)
                ys_re.append(z.real)
                xs_im.append(v)
                ys_im.append(abs(z.imag))
        self.plot.plot(xs_re, ys_re, pen=None, symbol="o", symbolSize=5, symbolBrush=REAL_COLOUR,
                       symbolPen=None, name="Re λ")
        self.plot.plot(xs_im, ys_im, pen=None, symbol="o", symbolSize=5, symbolBrush=IMAG_COLOUR,
                       symbolPen=None, name="|Im λ|")
        self.plot.addItem(pg.InfiniteLine(0.0, angle=0, pen=pg.mkPen("#888888")))
        for c in result.crossings:
            line = pg.InfiniteLine(c.value, angle=90, pen=pg.mkPen(CROSSING_COLOUR, width=2, style=Qt.DashLine),
                                   label=f"{c.value:.6g}", labelOpts={"color": CROSSING_COLOUR, "position": 0.9})
            self.plot.addItem(line)
        self.plot.setLabel("bottom", "forward speed [m/s]" if result.name == SPEED else result.name)
        words = [f"{result.name} = {c.value:.8g}: {c.kind}, stable {'above' if c.becomes == 'stable' else 'below'}"
                 for c in result.crossings]
        self.status.setText("; ".join(words) if words else "no real part crosses zero in the range")


def _speed_names(body):
    from eomlab.engine.model import speed_names

    return speed_names(body.name, body.joint)
