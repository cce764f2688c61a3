"""When a run's samples and poses reach the window: a run integrates ahead of the wall clock (a
step of the tumbling box covers 0.27 s), and its process holds back what it computed until the
wall-paced clock reaches it, so the window, which draws the latest instant it was sent, shows
the motion at the clock's instant rather than at the end of each step.

The poses come from the integrator's dense output at instants k·spacing (`Simulation.watch_instants`),
`FRAME_RATE` of them per wall second at the run's speed, so a frame is drawn between two samples
too; every run of a comparison uses the same instants. As fast as possible ships everything at
once (the latest instant is drawn). `HeldBack` also brings a paused or edited run back to the
instant shown (`PacedSending._settle`), so that Step and the edits act where the window is.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import ModelError
from eomlab.gui.runs.run_messages import Batch

#: poses per wall second taken from the dense output: twice the window's 60 Hz redraw, so every
#: tick finds a new one (at 60 Hz the two clocks would beat and some ticks show a pose again)
FRAME_RATE = 120.0
#: a comparison's runs send every pose they take (the window draws the latest instant all of them posed):
#: one per redraw is enough, and five runs sending 120 a second each kept two cores busy
COMPARE_FRAME_RATE = 60.0
#: a window's run goes on past t_end until paused: it may go as far as this many output intervals
#: (1e6 × 0.01 s: 2.8 hours; a Simulation refuses runs of more than 1e7 samples)
WINDOW_RUN_SAMPLES = 1e6


def instant_spacing(speed: float, running: bool, fps: float | None = None, rate: float = FRAME_RATE) -> float | None:
    """Simulated seconds between two poses of a paced run, `rate` of them per wall second (None: no poses
    between the samples, as fast as possible or paused). With `fps` (a recording) the instants include
    every k / fps."""
    if fps:
        per_frame = 1.0 / fps
        if not running or math.isinf(speed):
            return per_frame
        return per_frame / max(1, math.ceil(per_frame * rate / speed))
    if not running or math.isinf(speed) or not speed > 0:
        return None
    return speed / rate


def window_run_length(settings) -> float:
    """How far a run in the window may integrate: far past t_end (never below it)."""
    length = WINDOW_RUN_SAMPLES * settings.dt_out
    if settings.integrator == "RK4":
        length = min(length, 1e8 * settings.dt)
    return max(float(settings.t_end), length)


class Clock:
    """The simulated instant due now: anchored at a start, a resume, a speed change or an edit,
    then wall time × speed."""

    def __init__(self):
        self.wall = self.sim = 0.0

    def anchor(self, wall: float, sim: float) -> None:
        self.wall, self.sim = wall, sim

    def due(self, wall: float, speed: float) -> float:
        return math.inf if math.isinf(speed) else self.sim + (wall - self.wall) * speed


class HeldBack:
    """Sample rows and dense-output instants (t, q) computed but not yet sent, in time order."""

    def __init__(self):
        self.rows: list[np.ndarray] = []
        self.instants: list[tuple[float, np.ndarray]] = []

    def add(self, rows: np.ndarray | None, instants) -> None:
        if rows is not None and len(rows):
            self.rows.extend(np.asarray(rows, dtype=float))
        self.instants.extend(instants)

    def __bool__(self) -> bool:
        return bool(self.rows or self.instants)

    def next_time(self) -> float:
        """The earliest instant held (inf: none)."""
        times = [self.rows[0][0]] if self.rows else []
        if self.instants:
            times.append(self.instants[0][0])
        return min(times) if times else math.inf

    def take_until(self, t: float) -> tuple[np.ndarray, list]:
        """The rows and the instants up to t (a little past it: rounding), no longer held."""
        t = t + 1e-12 * max(1.0, abs(t))
        k = next((i for i, row in enumerate(self.rows) if row[0] > t), len(self.rows))
        j = next((i for i, (t_i, _) in enumerate(self.instants) if t_i > t), len(self.instants))
        rows, self.rows = self.rows[:k], self.rows[k:]
        instants, self.instants = self.instants[:j], self.instants[j:]
        return (np.array(rows) if rows else np.zeros((0, 0))), instants

    def first_row_from(self, t: float) -> float | None:
        """The time of the first held row at or after t (None: none held there)."""
        for row in self.rows:
            if row[0] >= t - 1e-9:
                return float(row[0])
        return None

    def clear(self) -> None:
        self.rows, self.instants = [], []


class PacedSending:
    """`RunThread`'s sending half (a mixin: its Simulation, signals and controls are the thread's):
    which dense-output instants the Simulation keeps, what a batch carries, and going back to the
    instant shown."""

    def _watch(self, sim, spacing: float | None, origin: float = 0.0) -> None:
        """Have the Simulation keep its dense output at origin + k·spacing (gui/runs/pacing.py)."""
        grid = (spacing, origin) if spacing is not None else None
        if grid != self._grid:
            self._grid = grid
            sim.watch_instants(*(grid or (None,)))

    def _settle(self, sim, held: HeldBack, q_slice: slice) -> None:
        """Bring the run back to the instant the window shows: send the rows up to the first
        sample at or after it (with that sample's pose) and go back there, dropping what was
        computed beyond (Pause, Step and the edits then act where the window is)."""
        shown, shown_row = self._shown
        if not held and sim.sampled_until <= shown_row + 1e-9 * sim.settings.dt_out:
            return
        t = shown_row if shown_row >= shown - 1e-9 else held.first_row_from(shown)
        if t is None:  # the run has not yet sampled past the pose shown
            held.add(sim.advance(shown + sim.settings.dt_out), sim.take_instants())
            t = held.first_row_from(shown)
            t = sim.sampled_until if t is None else t
        rows, _instants = held.take_until(t)
        held.clear()
        self._flush((rows, []), sim, q_slice, rows_posed=True)
        if sim.sampled_until > t + 1e-9 * sim.settings.dt_out and sim.failure is None:
            try:
                sim.restore(t)
            except ModelError:  # not kept any more (a step longer than the kept samples): go on from there
                pass
        self._shown = (max(self._shown[0], t), t)
        sim.watch_instants(*(self._grid or (None,)))

    def _flush(self, taken: tuple, sim, q_slice: slice, rows_posed: bool = False) -> None:
        """Send rows and dense-output instants (`HeldBack.take_until`): the rows, and the poses at
        the instants (compare mode and recordings: every one; else the latest), or without
        instants the pose at the last row (every row's in compare mode)."""
        rows, instants = taken
        if not len(rows) and not instants:
            return
        if instants:
            posed = instants if self.frames_per_sample or self._record is not None else instants[-1:]
            frames = tuple(sim.frame(q, t) for t, q in posed)
        elif self._grid is not None and not rows_posed:
            frames = ()  # paced: the poses are the instants', one comes soon
        else:
            frames = tuple(sim.frame(row[q_slice], float(row[0])) for row in (rows if self.frames_per_sample else rows[-1:]))
        if len(rows):
            self._send_quantities(sim, rows[-1])  # before the batch: its frame finds them there
            self._shown = (self._shown[0], float(rows[-1][0]))
        else:
            rows = np.zeros((0, len(sim.columns)))
        if frames:
            self._shown = (max(self._shown[0], frames[-1].t), self._shown[1])
        self._emit(Batch(rows, frames))
