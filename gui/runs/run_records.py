"""What the window keeps of each run: its samples (`RunSeries`: a ring buffer of rows and the
curves drawn from them) and the run itself (`Run`: its worker, its latest poses, and the engine's
`RunView` of its rows, which holds the parameter history the run sends with each edit's answer).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import Qt

from eomlab.engine.simulation import EnergyAccount, RunView
from eomlab.engine.model import Model
from eomlab.gui.runs.lock_step import CostReportingRunThread
from eomlab.gui.style.method_styles import PALETTE
from eomlab.gui.runs.ring_buffer import RingBuffer
from eomlab.gui.runs.run_state import RunEnd
from eomlab.gui.runs.run_thread import RunInfo

#: poses kept per run (compare mode ships one per sample): enough to draw a run that is ahead of
#: the cursor by the lock step's lead, with room for a batch
FRAME_HISTORY = 256

@dataclass
class RunSeries:
    """One run's samples as kept: its columns and a ring buffer of rows (and, for the plots, the
    curves drawn from them and the energy the drift is measured from)."""

    label: str
    info: RunInfo
    buffer: RingBuffer
    color: str = PALETTE[0]
    style: Qt.PenStyle = Qt.SolidLine  # compare mode: each formulation its own dash pattern
    curves: dict = field(default_factory=dict)
    reductions: dict = field(default_factory=dict)  # curve key -> GrowingM4 (gui/plots/decimate.py)
    energy_reference: tuple | None = None  # (E(0), scale of the relative drift)
    #: W and the drift per stretch between edits (gui/runs/energy_book.py begins the stretches)
    account: EnergyAccount = field(default_factory=EnergyAccount)

    def column(self, data: np.ndarray, name: str) -> np.ndarray | None:
        try:
            return data[:, self.info.columns.index(name)]
        except ValueError:
            return None

    def rows_until(self, t: float | None) -> np.ndarray:
        """The kept rows with time ≤ t (all of them for None)."""
        data = self.buffer.view()
        if t is None or not len(data) or data[-1, 0] <= t:
            return data
        return data[:int(np.searchsorted(data[:, 0], t, side="right"))]


@dataclass
class Run:
    """One simulation of the session and what the window keeps of it."""

    thread: CostReportingRunThread
    method: str
    label: str
    color: str
    style: Qt.PenStyle = Qt.SolidLine
    series: RunSeries | None = None
    latest_frame: object = None
    frames: deque = field(default_factory=lambda: deque(maxlen=FRAME_HISTORY))
    ended: RunEnd = RunEnd.NOT
    messages: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # the Simulation's cost counters, for compare mode
    #: t → {reader: value} the run's process computed at its latest batches' last samples (the arrows)
    sent_quantities: dict = field(default_factory=dict)
    model: Model | None = None  # the model the run goes on with (parameters changed while it ran)
    #: the engine's answers about the kept rows (poses, quantities), with the run's parameter history
    view: RunView | None = None

    def __post_init__(self):
        if self.view is None and self.model is not None:
            self.view = RunView(self.model, method=self.method)

    @property
    def models(self):
        """The parameters in force over the run's time (a ModelHistory), as the run last sent them."""
        return self.view.models if self.view is not None else None

    def take_models(self, items) -> None:
        """The run's parameter history ((start, model), …) from its answer to an edit."""
        if self.view is not None:
            self.view.take_history(items)
            self.model = self.view.latest

    def model_at(self, t: float) -> Model | None:
        """The model the run integrated with at time t."""
        return self.view.model_at(t) if self.view is not None else self.model

    def pose_of_row(self, row: np.ndarray):
        """The pose at a kept sample row of this run (with the parameters in force at its time)."""
        return self.view.frame(row, self.series.info.pose_columns)

    @property
    def latest_time(self) -> float | None:
        if self.series is None or not len(self.series.buffer):
            return None
        return float(self.series.buffer.last()[0])

    @property
    def latest_shown(self) -> float | None:
        """The latest instant this run can be drawn at: its latest pose (None before its first sample)."""
        if self.latest_time is None or self.latest_frame is None:
            return None
        return float(self.latest_frame.t)

    def frame_at(self, t: float):
        """The latest pose kept at or before `t` (a sample's, or a dense-output instant's)."""
        latest = self.latest_frame
        if latest is None or latest.t <= t + _EPS:
            return latest
        for frame in reversed(self.frames):
            if frame.t <= t + _EPS:
                return frame
        return self.frames[0] if self.frames else latest


_EPS = 1e-9
