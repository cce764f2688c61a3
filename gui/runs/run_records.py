"""What the window keeps of each run: its samples (`RunSeries`: a ring buffer of rows and the
curves drawn from them) and the run itself (`Run`: its worker, its latest poses, the parameters in
force at each time of its samples, what an undone "continue from here" gives back).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import Qt

from eomlab.engine.simulation import EnergyAccount
from eomlab.engine.model import Model
from eomlab.engine.simulation import ModelHistory, PoseMap
from eomlab.gui.runs.lock_step import CostReportingRunThread
from eomlab.gui.style.method_styles import PALETTE
from eomlab.gui.runs.ring_buffer import RingBuffer
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
    ended: str = ""  # "", "done", "failed", "crashed"
    messages: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # the Simulation's cost counters, for compare mode
    #: t → {reader: value} the run's process computed at its latest batches' last samples (the arrows)
    sent_quantities: dict = field(default_factory=dict)
    model: Model | None = None  # the model the run integrates now (parameters changed while it ran)
    # the model in force at each time of the kept samples (`set_parameter` answered at its time)
    models: ModelHistory | None = None
    pending_models: deque = field(default_factory=deque)  # set_parameter edits sent, not yet answered
    pose_maps: dict = field(default_factory=dict)  # id(model) → (model, poses of its kept samples)
    # per "continue_from" edit: (rows to put back or None, the model history to put back or None)
    put_back: deque = field(default_factory=deque)

    def __post_init__(self):
        if self.models is None and self.model is not None:
            self.models = ModelHistory(self.model)

    def model_at(self, t: float) -> Model | None:
        """The model the run integrated with at time t."""
        return self.models.at(t) if self.models is not None else self.model

    def pose_of_row(self, row: np.ndarray):
        """The pose at a kept sample row of this run (with the parameters in force at its time)."""
        model = self.model_at(float(row[0]))
        known = self.pose_maps.get(id(model))
        if known is None or known[0] is not model:
            known = self.pose_maps[id(model)] = (model, PoseMap(model))
        return known[1].frame(row[slice(*self.series.info.pose_columns)], float(row[0]))

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
