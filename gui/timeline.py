"""The timeline: a slider over the kept samples of the run, under the mechanism.

Scrubbing holds the session's time cursor at a kept sample (every method at that instant in
compare mode): the mechanism is drawn at that sample's pose and every time plot shows a cursor
line (gui/plots/plot_marks.py). Left/Right step one sample while paused. "Continue from here" drops the
later samples and runs on from the shown one (one undoable step: undo puts them back); "Live"
follows the run again.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QWidget

from eomlab.gui.runs.run_state import RunState
from eomlab.gui.runs.session import Session
from eomlab.gui.style.steady_label import SteadyLabel


class ContinueFromHere(QUndoCommand):
    """The runs go on from their samples at `t` (with the parameters in force there); undo gives
    back the samples dropped and the parameters the runs had."""

    def __init__(self, session: Session, t: float):
        super().__init__(f"Continue from t = {t:.3f} s")
        self.session = session
        self.rows = session.rows_at(t)
        self.dropped = []
        for run, row in zip(session.runs, self.rows):
            data = run.series.buffer.view() if run.series is not None else np.zeros((0, 0))
            self.dropped.append(data[data[:, 0] > row[0]].copy() if row is not None and len(data) else None)
        self.histories = [run.models.items() for run in session.runs]

    def redo(self) -> None:
        self.session.follow_latest()
        self.session.continue_from(self.rows)

    def undo(self) -> None:
        back = [d[-1] if d is not None and len(d) else None for d in self.dropped]
        self.session.continue_from(back, put_back=[d[:-1] if d is not None else None for d in self.dropped],
                                   models=self.histories)


class Timeline(QWidget):
    def __init__(self, session: Session, undo_stack, drawn, parent=None):
        """`drawn`: the window's signal that a frame was drawn (gui/redraw.py), which the slider
        follows."""
        super().__init__(parent)
        self.setObjectName("timeline")
        self.session = session
        self.undo_stack = undo_stack
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setObjectName("timeline_slider")
        self.slider.setToolTip("The run's kept samples: drag to look back (Left/Right: one sample while paused)")
        self.slider.setFocusPolicy(Qt.NoFocus)  # Left/Right belong to the window's shortcut
        self.label = SteadyLabel("live", "t = 00000.000 s (live)")
        self.live_button = QPushButton("Live")
        self.live_button.setToolTip("Follow the run again")
        self.continue_button = QPushButton("Continue from here")
        self.continue_button.setToolTip("Drop the later samples and run on from the instant shown (undoable)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(QLabel("Timeline"))
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.label)
        layout.addWidget(self.live_button)
        layout.addWidget(self.continue_button)
        self.slider.valueChanged.connect(self._slid)
        self.live_button.clicked.connect(self.follow)
        self.continue_button.clicked.connect(self.continue_here)
        drawn.connect(self._sync)
        session.runs_started.connect(self._sync)
        # Run goes on from the runs' latest samples: the picture follows them again
        session.state_changed.connect(lambda state: state == RunState.RUNNING and session.follow_latest())
        self._syncing = False
        self._shown = None  # (samples, cursor, held) the slider and label show
        self._sync()

    def _times(self) -> np.ndarray:
        runs = self.session.runs
        if not runs or runs[0].series is None:
            return np.zeros(0)
        return runs[0].series.buffer.view()[:, 0]

    def _sync(self) -> None:
        """The slider shows the kept samples and where the cursor is among them."""
        t = self.session.cursor_time()
        held = not self.session.following
        runs = self.session.runs
        count = len(runs[0].series.buffer) if runs and runs[0].series is not None else 0
        # a batch moves the cursor and then says it advanced: one update (a full buffer keeps its
        # count while its samples move on: the latest time tells)
        shown = (count, t, held, id(runs[0].series) if runs else None, runs[0].latest_time if count else None)
        if shown == self._shown:
            return
        self._shown = shown
        self._syncing = True
        self.slider.setRange(0, max(count - 1, 0))
        if held and count:  # the times only when the cursor is held: a wrapped buffer's view is a copy
            times = self._times()
            self.slider.setValue(int(np.clip(np.searchsorted(times, t + 1e-9) - 1, 0, count - 1)))
        elif count:
            self.slider.setValue(count - 1)  # live: the end (compare mode: the slowest run, a sample or two back)
        self._syncing = False
        self.label.setText(f"t = {t:.3f} s" + ("" if held else " (live)"))
        self.live_button.setEnabled(held)
        self.continue_button.setEnabled(held)

    def _slid(self, index: int) -> None:
        if self._syncing:
            return
        self.show_sample(index)

    def show_sample(self, index: int) -> None:
        """Hold the cursor at kept sample `index` of the main run (every run at that instant)."""
        times = self._times()
        if not len(times):
            return
        index = int(np.clip(index, 0, len(times) - 1))
        if self.session.state == RunState.RUNNING:
            self.session.pause()
        self.session.set_cursor(float(times[index]))

    def step_samples(self, steps: int) -> None:
        """Left/Right: one sample back or on, while paused."""
        if self.session.state == RunState.RUNNING:
            return
        self.show_sample(self.slider.value() + steps)

    def follow(self) -> None:
        self.session.follow_latest()

    def continue_here(self) -> None:
        if self.session.following or not self.session.runs:
            return
        self.undo_stack.push(ContinueFromHere(self.session, self.session.cursor_time()))
        self.session.run()
