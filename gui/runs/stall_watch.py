"""A run that makes no progress says so: while the session runs, the instant every run has reached
is looked at a few times a second; when it has not moved for `STALL_SECONDS` of wall time (a
four-bar at its dead centre, a singular point: the integrator's steps shrink to nothing) the
status bar says where the run is stuck and offers Pause and Reset. Progress, a pause or a new
run takes the message away."""
from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from eomlab.gui.runs.run_state import RunState

#: wall seconds without progress before the run is called stuck
STALL_SECONDS = 2.0
#: how often the watch looks (ms)
CHECK_MS = 250


class StallWatch(QObject):
    def __init__(self, window, clock=time.monotonic):
        """`clock`: wall seconds (the tests pass their own)."""
        super().__init__(window)
        self.session = window.session
        self.clock = clock
        self.widget = QWidget()
        self.widget.setObjectName("stall_notice")
        self.label = QLabel("")
        self.label.setStyleSheet("color: #b71c1c; font-weight: bold;")
        self.pause_button = QPushButton("Pause")
        self.reset_button = QPushButton("Reset")
        self.pause_button.clicked.connect(self.session.pause)
        self.reset_button.clicked.connect(window.run_actions.reset)
        layout = QHBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        for part in (self.label, self.pause_button, self.reset_button):
            layout.addWidget(part)
        self.widget.hide()
        window.statusBar().addPermanentWidget(self.widget)
        self._seen: tuple | None = None  # (runs, instant) last seen and since when
        self._since = 0.0
        self.session.state_changed.connect(lambda _s: self.check())
        self.session.runs_started.connect(self.check)
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    @property
    def stalled(self) -> bool:
        return not self.widget.isHidden()

    def check(self) -> None:
        session = self.session
        latest = session.latest_common_time()
        if session.state != RunState.RUNNING or latest is None or not session.speed > 0:
            self._seen = None
            self.widget.hide()
            return
        now = self.clock()
        seen = (tuple(id(run) for run in session.runs), latest)
        if seen != self._seen:
            self._seen, self._since = seen, now
            self.widget.hide()
            return
        waited = now - self._since
        if waited >= STALL_SECONDS:
            self.label.setText(f"No progress for {waited:.0f} s at t = {latest:.3f} s: the run is stuck "
                               "(a dead-centre pose or a singular point?)")
            self.widget.show()
