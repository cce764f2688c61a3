"""Runs that keep pace: a comparison's runs never integrate more than a short lead of simulated
time ahead of the slowest, and ship their cost counters with every batch.

The window's time cursor follows the slowest run (gui/runs/session.py); the lead bounds how far the
others can be ahead of it, so what they integrate beyond the displayed instant stays small.
"""
from __future__ import annotations

import math
import multiprocessing

from PySide6.QtCore import Signal

from eomlab.gui.runs import run_messages as msg
from eomlab.gui.runs.run_thread import PROCESS_WORKERS, RunThread


class LockStep:
    """Shared by the runs of one comparison: none integrates more than `lead` seconds of
    simulated time ahead of the slowest.

    The times live in shared memory (one slot per run, +inf for a run that left), so runs in
    forked child processes (`RunThread(process=True)`) keep pace too; every run joins before any
    starts."""

    SLOTS = 16

    def __init__(self, lead: float):
        self.lead = lead
        self._slots: dict[int, int] = {}
        self._times = multiprocessing.get_context("fork" if PROCESS_WORKERS else None).Array(
            "d", [math.inf] * self.SLOTS)

    def join(self, run_id: int) -> None:
        if run_id not in self._slots and len(self._slots) < self.SLOTS:
            self._slots[run_id] = len(self._slots)
        self._set(run_id, 0.0)

    def leave(self, run_id: int) -> None:
        self._set(run_id, math.inf)

    def _set(self, run_id: int, t: float) -> None:
        slot = self._slots.get(run_id)
        if slot is not None:
            with self._times.get_lock():
                self._times[slot] = t

    def report(self, run_id: int, t: float) -> float:
        """Record this run's time; the furthest it may go now."""
        slot = self._slots.get(run_id)
        with self._times.get_lock():
            if slot is not None:
                self._times[slot] = t
            return min(self._times[:]) + self.lead


class CostReportingRunThread(RunThread):
    """A RunThread that also sends its Simulation's `stats` with every batch (cheap: a dict) and,
    given a LockStep, keeps pace with the other runs of the comparison."""

    stats = Signal(int, object)

    def __init__(self, *args, lock_step: LockStep | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lock_step = lock_step
        if lock_step is not None:
            lock_step.join(self.run_id)
            self.finished.connect(lambda: lock_step.leave(self.run_id))

    def limit_target(self, target: float, sim) -> float:
        if self.lock_step is None:
            return target
        if sim.finished:
            self.lock_step.leave(self.run_id)
            return target
        return min(target, self.lock_step.report(self.run_id, sim.t))

    def _flush(self, taken, sim, *args, **kwargs) -> None:
        super()._flush(taken, sim, *args, **kwargs)
        self._emit(msg.Stats(dict(sim.stats)))
