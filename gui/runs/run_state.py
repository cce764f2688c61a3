"""The states of a window's runs, as enums rather than words compared in several places.

`RunState` is the session's (gui/runs/session.py): what Run, Pause and Step may do and what the
status bar says. `RunEnd` is how one run of the session ended. Both are `StrEnum`s, so a state
reads as its name where it is shown or logged (``RunState.PAUSED == "paused"``).
"""
from __future__ import annotations

from enum import StrEnum, auto


class RunState(StrEnum):
    """idle: fresh runs at t = 0, not started; running; paused; ended: every run reached t_end;
    failed: a run stopped on an error (the samples so far are kept)."""

    IDLE = auto()
    RUNNING = auto()
    PAUSED = auto()
    ENDED = auto()
    FAILED = auto()

    @property
    def text(self) -> str:
        """The state in the status bar's words."""
        return _TEXT.get(self, self.value)

    @property
    def going_on(self) -> bool:
        """Running, or at its end: an edited model runs again at once."""
        return self in (RunState.RUNNING, RunState.ENDED)


_TEXT = {RunState.IDLE: "ready", RunState.ENDED: "finished", RunState.FAILED: "stopped on an error"}


class RunEnd(StrEnum):
    """How one run ended: not (NOT, falsy), done (reached t_end), failed (the engine stopped it on
    an error it names) or crashed (an exception escaped the engine)."""

    NOT = ""
    DONE = auto()
    FAILED = auto()
    CRASHED = auto()
