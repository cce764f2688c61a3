"""Read-outs: the values under the mouse on every plot, and the measured period and amplitude of a
chosen coordinate next to the small-oscillation estimate (engine.run.oscillation).

The measurement uses the main run's samples since the last edit of the run (a parameter change or
a drag starts a new motion) up to the instant shown, and is redone twice a second.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QSizePolicy

from eomlab.engine.simulation import measure_oscillation, small_oscillation_period
from eomlab.gui.plots.plot_data import plot_of
from eomlab.gui.style.plot_style import coordinate_unit
from eomlab.gui.plots.plot_panel import LOG_PLOTS, TIME_PLOTS

MEASURE_MS = 500
#: the latest samples measured (enough for several periods of a slow pendulum at dt_out = 0.01 s)
MEASURED_SAMPLES = 4000
#: lines of a plot's mouse read-out (the position, then the curves)
MAX_LINES = 8


class CursorReadout(QObject):
    """The mouse's position in a plot's coordinates and, on a time plot, each curve's value there."""

    def __init__(self, panel, key: str, parent=None):
        super().__init__(parent)
        self.panel, self.key = panel, key
        self.plot: pg.PlotWidget = panel.plots[key]
        self.time_plot, self.log_plot = key in TIME_PLOTS, key in LOG_PLOTS
        self.text = pg.TextItem("", color="#222", fill=pg.mkBrush(255, 255, 255, 220), anchor=(1, 0))
        self.text.setZValue(40)
        self.text.setParentItem(self.plot.getPlotItem().getViewBox())
        self.text.setVisible(False)
        self.plot.scene().sigMouseMoved.connect(self.mouse_moved)

    def _curves(self):
        """(label, curve) of the curves drawn in this plot."""
        compare = len(self.panel.series) > 1
        for s in self.panel.series:
            for curve_key, curve in s.curves.items():
                if plot_of(curve_key) == self.key:
                    name = curve_key.split(":", 1)[-1]
                    yield (f"{s.label} {name}" if compare else name), curve

    def mouse_moved(self, scene_pos) -> None:
        box = self.plot.getPlotItem().getViewBox()
        if not self.plot.isVisible() or not box.sceneBoundingRect().contains(scene_pos):
            self.text.setVisible(False)
            return
        p = box.mapSceneToView(scene_pos)
        y = 10 ** p.y() if self.log_plot else p.y()
        lines = [f"{'t' if self.time_plot else 'x'} = {p.x():.4g}", f"y = {y:.4g}"]
        if self.time_plot:
            for name, curve in self._curves():
                x, values = curve.getData()
                if x is None or not len(x):
                    continue
                k = int(np.clip(np.searchsorted(x, p.x()), 0, len(x) - 1))
                lines.append(f"{name} = {values[k]:.4g}")
        self.text.setText("\n".join(lines[:MAX_LINES]))
        self.text.setPos(box.width() - 4, 4)
        self.text.setVisible(True)


class OscillationReadout(QGroupBox):
    """Period and amplitude of a coordinate, measured, and the small-oscillation period."""

    def __init__(self, session, parent=None):
        super().__init__("Period and amplitude", parent)
        self.setObjectName("oscillation_readout")
        self.session = session
        self.coordinate = QComboBox()
        self.coordinate.setObjectName("oscillation_coordinate")
        self.measured = QLabel("—")
        self.measured.setObjectName("measured_period")
        self.estimate = QLabel("—")
        self.estimate.setObjectName("small_angle_period")
        self.amplitude = QLabel("—")
        for label in (self.measured, self.estimate, self.amplitude):
            # the texts change while the run goes: they must never widen the dock (the views would jump)
            label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.coordinate.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.coordinate.setMinimumContentsLength(10)
        form = QFormLayout(self)
        form.addRow("Coordinate", self.coordinate)
        form.addRow("Period (measured)", self.measured)
        form.addRow("Small-oscillation period", self.estimate)
        form.addRow("Amplitude", self.amplitude)
        self.since = 0.0  # the motion measured starts at the last edit of the run
        self.period = None  # the last measurement (engine.run.oscillation.Oscillation) or None
        self._estimates: dict[int, float | None] = {}
        session.run_ready.connect(self._fill)
        session.runs_started.connect(self._restart)
        session.edited.connect(lambda _run, _name, t: self._edited(t))
        self.timer = QTimer(self)
        self.timer.setInterval(MEASURE_MS)
        self.timer.timeout.connect(lambda: self.isVisible() and self.measure())  # a hidden tab costs nothing
        self.timer.start()

    def _restart(self) -> None:
        self.since, self.period = 0.0, None

    def _edited(self, t: float) -> None:
        self.since = t

    def _fill(self, run) -> None:
        if run is not self.session.runs[0]:
            return
        names = list(run.series.info.coordinate_names)
        if [self.coordinate.itemText(i) for i in range(self.coordinate.count())] != names:
            self.coordinate.clear()
            self.coordinate.addItems(names)

    def small_angle_period(self, run) -> float | None:
        key = id(run.model)
        if key not in self._estimates:
            self._estimates = {key: small_oscillation_period(run.model)}
        return self._estimates[key]

    def measure(self) -> None:
        runs = self.session.runs
        name = self.coordinate.currentText()
        if not runs or runs[0].series is None or not name:
            return
        run = runs[0]
        data = run.series.rows_until(self.session.cursor_time())[-MEASURED_SAMPLES:]
        column = run.series.column(data, name)
        since = data[:, 0] >= self.since  # (two columns picked: the rows are the whole sample)
        found = measure_oscillation(data[since, 0], column[since]) if column is not None else None
        self.period = found
        unit = coordinate_unit(name, run.model)
        if found is None:
            self.measured.setText("— (not one period yet)")
            self.amplitude.setText("—")
        else:
            self.measured.setText(f"{found.period:.4f} s over {found.cycles} cycles")
            self.amplitude.setText(f"{found.amplitude:.4g} {unit}")
        estimate = self.small_angle_period(run) if len(run.series.info.coordinate_names) == 1 else None
        self.estimate.setText("— (one coordinate only)" if estimate is None else f"{estimate:.4f} s")
