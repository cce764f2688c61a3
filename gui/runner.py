"""One run of a model on its own worker thread.

`RunThread` owns its `engine.simulation.Simulation`: it creates it inside `run()` (so every numeric
call happens off the GUI thread), paces the integration to wall time × a speed factor and ships
the new sample rows in batches, at most `MAX_BATCH_RATE` times a second, through queued signals to
slots in the GUI thread. The GUI thread never touches the Simulation.

Control from the GUI thread goes through plain attributes guarded by one lock (pause, step, speed,
stop): the worker looks at them between `advance` calls, each of which is bounded by a short wall
budget, so a stop is honoured within a few milliseconds.
"""
from __future__ import annotations

import math
import threading
import time
import traceback
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QThread, Signal
from threadpoolctl import threadpool_limits

from engine.model import ModelError
# imported here, on the GUI thread at start-up: a first import on the worker (sympy and all) would
# hold the import lock and the GIL for a second while the window tries to draw
from engine.simulation import Simulation

#: batches leave the worker at most this often (per second)
MAX_BATCH_RATE = 60.0
#: longest single `advance` call, seconds of wall time: bounds the latency of pause and stop
ADVANCE_WALL_BUDGET = 0.012
#: pause after every `advance` call (seconds) so the GUI thread gets the GIL to paint
GIL_BREAK = 0.002
#: when the integration falls behind the wall clock by more than this (seconds of wall time), the
#: pacing stops trying to catch up and simply carries on from where it is
MAX_LAG = 0.25
#: `speed` value meaning "as fast as possible"
AS_FAST_AS_POSSIBLE = math.inf
#: samples the worker's Simulation keeps: the window's ring buffers hold the run, the worker only
#: ships new rows, so a long run must not grow the worker's memory as well
WORKER_MAX_SAMPLES = 1000


@dataclass(frozen=True)
class RunInfo:
    """What the GUI needs to know about a run once its Simulation exists."""

    columns: tuple[str, ...]
    coordinate_names: tuple[str, ...]
    speed_names: tuple[str, ...]
    body_names: tuple[str, ...]
    notes: tuple[str, ...]
    t_end: float
    dt_out: float


@dataclass(frozen=True)
class Frame:
    """The pose of every body at one sample, for drawing: world rotations, hinge origins and
    mass centres, as the engine computes them."""

    t: float
    rotations: np.ndarray  # (nb, 3, 3)
    origins: np.ndarray  # (nb, 3)
    mass_centres: np.ndarray  # (nb, 3)


class RunThread(QThread):
    """Integrates one model on a worker thread; see the module docstring.

    Signals (all delivered queued to GUI-thread slots, each starting with the run id):
    ``ready(RunInfo, Frame)`` once the Simulation exists (the first frame is the initial pose);
    ``batch(rows, Frame)`` new sample rows (k, n_columns) and the pose at the last of them;
    ``failed(str)`` the integration stopped (blow-up, step size collapse…), its samples are kept;
    ``crashed(str)`` an exception escaped the engine (message and traceback);
    ``done()`` t_end reached.
    """

    ready = Signal(int, object, object)
    batch = Signal(int, object, object)
    failed = Signal(int, str)
    crashed = Signal(int, str)
    done = Signal(int)

    def __init__(self, model, run_id: int = 0, *, running: bool = True, speed: float = 1.0, label: str = "",
                 parent=None):
        super().__init__(parent)
        self.model = model
        self.run_id = run_id  # every signal carries it: late signals of a stopped run are told apart
        self.label = label
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = False
        self._running = running
        self._steps_requested = 0
        self._speed = float(speed)
        self._reanchor = True

    # --- control, called from the GUI thread --------------------------------------------

    def set_running(self, running: bool) -> None:
        with self._lock:
            self._running = running
            self._reanchor = True
        self._wake.set()

    def step(self, samples: int = 1) -> None:
        """Advance by `samples` output intervals while paused."""
        with self._lock:
            self._steps_requested += samples
        self._wake.set()

    def set_speed(self, speed: float) -> None:
        with self._lock:
            self._speed = float(speed)
            self._reanchor = True

    def request_stop(self) -> None:
        with self._lock:
            self._stop = True
        self._wake.set()

    def stop_and_join(self, timeout_ms: int = 1000) -> bool:
        """Ask the worker to stop and wait for it; True if it ended within the timeout."""
        self.request_stop()
        if self.wait(timeout_ms):
            return True
        # never let Qt destroy a running thread: wait it out (an engine call in progress)
        self.wait()
        return False

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running

    # --- the worker ------------------------------------------------------------------------

    def run(self) -> None:  # noqa: D401 - QThread entry point, runs on the worker thread
        try:
            # small dense solves: extra BLAS threads only fight the GUI thread for 2 cores
            with threadpool_limits(limits=1):
                self._integrate()
        except ModelError as error:  # the model cannot be run as it stands (e.g. inconsistent constraints)
            self.failed.emit(self.run_id, str(error))
        except Exception as error:  # an engine bug must not take the window down
            summary = f"{type(error).__name__}: {error}"
            self.crashed.emit(self.run_id, summary + "\n\n" + traceback.format_exc(limit=8))

    def _integrate(self) -> None:
        sim = Simulation(self.model, max_samples=WORKER_MAX_SAMPLES)
        if self._stopped():
            return
        info = RunInfo(
            columns=tuple(sim.columns),
            coordinate_names=tuple(sim.system.coordinate_names),
            speed_names=tuple(sim.system.speed_names),
            body_names=tuple(sim.system.body_names),
            notes=tuple(sim.notes),
            t_end=float(self.model.settings.t_end),
            dt_out=float(self.model.settings.dt_out),
        )
        n_q = len(info.coordinate_names)
        q_slice = slice(1, 1 + n_q)
        first = _initial_rows(sim, len(info.columns))
        q0 = first[-1, q_slice] if len(first) else _initial_q(sim, n_q)
        self.ready.emit(self.run_id, info, _frame(sim.system, sim.t, q0))
        pending: list[np.ndarray] = [first] if len(first) else []
        last_emit = 0.0
        wall_anchor = sim_anchor = 0.0
        while not self._stopped():
            with self._lock:
                running, speed = self._running, self._speed
                steps, self._steps_requested = self._steps_requested, 0
                reanchor, self._reanchor = self._reanchor, False
            if sim.finished:
                break
            now = time.perf_counter()
            if reanchor:
                wall_anchor, sim_anchor = now, sim.t
            if running:
                if math.isinf(speed):
                    target = info.t_end
                else:
                    target = sim_anchor + (now - wall_anchor) * speed
                    if target - sim.t > MAX_LAG * speed:  # behind: do not race to catch up
                        wall_anchor, sim_anchor = now, sim.t
                        target = sim.t + ADVANCE_WALL_BUDGET * speed
                target = min(target, info.t_end)
            elif steps:
                target = min(sim.t + steps * info.dt_out * (1 + 1e-9), info.t_end)
            else:
                self._flush(pending, sim, q_slice)
                pending = []
                self._wake.wait(0.05)
                self._wake.clear()
                continue
            target = self.limit_target(target, sim)
            if target > sim.t:
                rows = sim.advance(target, wall_budget=ADVANCE_WALL_BUDGET)
                if rows is not None and len(rows):
                    pending.append(np.asarray(rows, dtype=float))
                # hand the GIL over for a moment: the GUI thread's painting makes many short
                # Python↔Qt transitions, each of which would otherwise wait for this thread
                time.sleep(GIL_BREAK)
            else:
                # ahead of the wall clock: sleep a little rather than spin
                self._wake.wait(min(0.01, (sim.t - target) / max(speed, 1e-9) + 0.001))
                self._wake.clear()
            now = time.perf_counter()
            if pending and (now - last_emit >= 1.0 / MAX_BATCH_RATE or not running or sim.finished):
                self._flush(pending, sim, q_slice)
                pending = []
                last_emit = now
        self._flush(pending, sim, q_slice)
        if self._stopped():
            return
        if sim.failure:
            self.failed.emit(self.run_id, str(sim.failure))
        elif sim.finished:
            self.done.emit(self.run_id)

    def limit_target(self, target: float, sim) -> float:
        """Where this run may integrate to now; subclasses hold runs in step (compare mode)."""
        return target

    def _flush(self, pending: list[np.ndarray], sim, q_slice: slice) -> None:
        if not pending:
            return
        rows = np.concatenate(pending, axis=0)
        last = rows[-1]
        self.batch.emit(self.run_id, rows, _frame(sim.system, float(last[0]), last[q_slice]))

    def _stopped(self) -> bool:
        with self._lock:
            return self._stop


def _initial_rows(sim, n_columns: int) -> np.ndarray:
    """The sample at t = 0: the Simulation records it when it is made (`samples()`), before any
    `advance`; an engine without it gives its first advance's rows."""
    samples = getattr(sim, "samples", None)
    rows = samples() if callable(samples) else sim.advance(sim.t, wall_budget=ADVANCE_WALL_BUDGET)
    rows = np.asarray(rows if rows is not None else np.empty((0, n_columns)), dtype=float)
    return rows[:1] if len(rows) else rows


def _initial_q(sim, n_q: int) -> np.ndarray:
    """The coordinates at t = 0 as the Simulation holds them (state vector starts with q)."""
    state = getattr(sim, "state", None)
    if state is not None:
        return np.asarray(state)[:n_q]
    return np.zeros(n_q)


def _frame(system, t: float, q) -> Frame:
    rotations, origins = system.poses(np.asarray(q, dtype=float))
    return Frame(
        t=float(t),
        rotations=np.asarray(rotations, dtype=float),
        origins=np.asarray(origins, dtype=float),
        mass_centres=np.asarray(system.com_positions(np.asarray(q, dtype=float)), dtype=float),
    )
