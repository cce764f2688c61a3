"""The run commands of a window: Run, Pause, Step, Reset, compare mode, the speed, and the read-outs
of the run's state and the displayed time. They act on the session and follow its signals."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QLabel

from eomlab.gui.style.steady_label import SteadyLabel
from eomlab.gui.runs.run_thread import AS_FAST_AS_POSSIBLE
from eomlab.gui.runs.run_state import RunState
from eomlab.gui.runs.session import Session

SPEEDS = [("0.1×", 0.1), ("0.25×", 0.25), ("0.5×", 0.5), ("1×", 1.0), ("2×", 2.0), ("5×", 5.0), ("10×", 10.0),
          ("as fast as possible", AS_FAST_AS_POSSIBLE)]
NORMAL_SPEED_INDEX = 3
TIME_LABEL_STYLE = "font-family: monospace; font-size: 11pt; padding: 0 8px;"
#: the widest reading of the clock, whose size it holds
WIDEST_TIME = "t = 10000.000 s / 10000 s"


class RunActions(QObject):
    def __init__(self, session: Session, window):
        super().__init__(window)
        self.session = session
        self.window = window  # for its status bar and to make actions
        a = window.action
        self.act_run = a("Run", session.run, "F5", "Run (continue) the simulation")
        self.act_pause = a("Pause", session.pause, "F6")
        self.act_step = a("Step", session.step, "F7", "Advance one output step")
        self.act_reset = a("Reset", self.reset, "F8", "Back to t = 0")
        self.act_compare = a("Compare the formulations", lambda: self.set_compare(not session.compare))
        self.act_compare.setCheckable(True)
        self.act_compare.setChecked(session.compare)
        self.speed_box = QComboBox()
        for text, value in SPEEDS:
            self.speed_box.addItem(text, value)
        self.speed_box.setCurrentIndex(NORMAL_SPEED_INDEX)
        self.speed_box.setToolTip("Simulated seconds per wall-clock second")
        self.speed_box.activated.connect(lambda _i: self.set_speed(self.speed_box.currentData()))
        session.speed = self.speed_box.currentData()
        self.time_label = SteadyLabel("t = 0.000 s", WIDEST_TIME)
        self.time_label.setObjectName("time_label")
        self.time_label.setStyleSheet(TIME_LABEL_STYLE)
        self.state_label = QLabel(session.state.text)
        session.state_changed.connect(self._show_state)
        self._show_state(session.state)

    def add_to(self, bar) -> None:
        for action in (self.act_run, self.act_pause, self.act_step, self.act_reset):
            bar.addAction(action)
        bar.addSeparator()
        bar.addWidget(QLabel(" Speed "))
        bar.addWidget(self.speed_box)

    def fill_menu(self, menu) -> None:
        for action in (self.act_run, self.act_pause, self.act_step, self.act_reset):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.act_compare)

    def reset(self) -> None:
        self.session.reset()
        self.window.statusBar().showMessage("Reset to t = 0", 5000)

    def set_speed(self, speed: float) -> None:
        index = self.speed_box.findData(speed)
        if index >= 0:
            self.speed_box.setCurrentIndex(index)
        self.session.set_speed(speed)

    def change_speed(self, steps: int) -> None:
        """`steps` entries up (+) or down (−) the speed list."""
        box = self.speed_box
        index = min(max(box.currentIndex() + steps, 0), box.count() - 1)
        self.set_speed(box.itemData(index))
        self.window.statusBar().showMessage(f"Speed {box.itemText(index)}", 3000)

    def set_compare(self, on: bool) -> None:
        self.act_compare.setChecked(bool(on))
        self.session.set_compare(on)

    def show_time(self, t: float, t_end: float) -> None:
        # a window run goes on past t_end: "9.6 s / 5 s" would read as a fault on a projector
        ending = f"/ {t_end:g} s" if t <= t_end else f"(past {t_end:g} s)"
        self.time_label.setText(f"t = {t:8.3f} s {ending}")

    def _show_state(self, state: str) -> None:
        self.state_label.setText(state.text)
        self.act_run.setEnabled(state != RunState.RUNNING)
        self.act_pause.setEnabled(state == RunState.RUNNING)
        self.act_step.setEnabled(state != RunState.ENDED)
