"""One run of a model off the GUI thread: on a worker thread, or in a child process.

`RunThread` owns its `engine.simulation.Simulation`: it creates it inside `run()` (so every numeric
call happens off the GUI thread), integrates a little ahead of wall time × a speed factor and
sends the sample rows and the poses at the dense output's instants when the wall clock reaches
them (gui/runs/pacing.py), at most `MAX_BATCH_RATE` times a second, through queued signals to slots in
the GUI thread. The GUI thread never touches the Simulation. In the window a run goes on past
t_end until paused.

Control from the GUI thread goes through plain attributes guarded by one lock (pause, step, speed,
stop): the worker looks at them between `advance` calls, each of which is bounded by a short wall
budget, so a stop is honoured within a few milliseconds.

With ``process=True`` (what the window uses where `fork` exists, see `PROCESS_WORKERS`) the same
integration loop runs in a child process forked by the worker thread (gui/runs/run_process.py): the
integrator is Python and numpy in small pieces and holds the GIL nearly all the time, so on a
thread it halves the GUI thread's share of the interpreter while a run goes flat out (frames
several times the 16.7 ms budget). The child sends its replies (gui/runs/run_messages.py) through
a pipe; the worker thread emits them as the same signals, so the window cannot tell the two apart.
Controls are messages too: the thread applies each to its own state and passes it on to the child.
"""
from __future__ import annotations

import math
import threading
import time
import traceback
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QThread, Qt, Signal, Slot

from eomlab.engine.blas_threads import one_blas_thread
from eomlab.engine.model import ModelError
from eomlab.engine.simulation import read_quantity
from eomlab.gui.runs import run_messages as msg
from eomlab.gui.runs.sent_quantities import Refused
from eomlab.gui.runs.run_process import PROCESS_WORKERS, ChildProcess  # noqa: F401  (PROCESS_WORKERS: for the session)
from eomlab.gui.runs.pacing import (COMPARE_FRAME_RATE, FRAME_RATE, Clock, HeldBack, PacedSending, instant_spacing,
                                    window_run_length)
# imported here, on the GUI thread at start-up: a first import on the worker (sympy and all) would
# hold the import lock and the GIL for a second while the window tries to draw
from eomlab.engine.simulation import Frame, Simulation  # noqa: F401  (Frame: what the scenes draw)

#: batches leave the worker at most this often (per second)
MAX_BATCH_RATE = 60.0
#: longest single `advance` call, seconds of wall time: bounds the latency of pause and stop
ADVANCE_WALL_BUDGET = 0.012
#: the same two in a child process, which costs the GUI thread no GIL between batches: more
#: often than the window's 60 Hz redraw, so that every tick finds a new pose to draw (at 60 Hz
#: the two clocks beat and every few ticks a frame would show the same pose again)
CHILD_BATCH_RATE = 120.0
CHILD_ADVANCE_WALL_BUDGET = 0.004
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


#: the workers started and not yet ended. Were a running worker's last other reference dropped (a session
#: let go of without stopping it), the worker's own, dropped as its run() returns, would free the QThread on
#: its own thread, and Qt aborts the process ("destroyed while the thread is still running")
STARTED: set = set()


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
    #: constraint rows (and Euler-parameter norms) whose drift the run reports; 0: none to plot
    constraint_rows: int = 1
    #: (start, stop) of the integrated coordinates' columns: what a pose is drawn from (the timeline)
    pose_columns: tuple[int, int] = (1, 1)
    #: which tree-dynamics path runs: "pinocchio" (compiled) or "numpy (why)"
    dynamics_path: str = ""


class RunThread(PacedSending, ChildProcess, QThread):
    """Integrates one model on a worker thread; see the module docstring.

    Signals (all delivered queued to GUI-thread slots, each starting with the run id):
    ``ready(RunInfo, Frame)`` once the Simulation exists (the first frame is the initial pose);
    ``batch(rows, frames)`` new sample rows (k, n_columns; k may be 0) and a tuple of poses (may be
    empty), each when the run's paced clock reached it (gui/runs/pacing.py): while paced, the pose at the
    latest dense-output instant, or (``frames_per_sample=True``, compare mode, and recordings) at
    every one, so that a run ahead of the others can still be drawn at the instant they show; as
    fast as possible the pose at the last row (compare mode: at every row);
    ``failed(str)`` the integration stopped (blow-up, step size collapse…), its samples are kept;
    ``crashed(str)`` an exception escaped the engine (message and traceback);
    ``done()`` t_end reached.

    ``process=True``: integrate in a forked child process (module docstring), the same signals.
    """

    ready = Signal(int, object, object)
    batch = Signal(int, object, object)
    failed = Signal(int, str)
    crashed = Signal(int, str)
    done = Signal(int)
    edited = Signal(int, object)  # an edit took: run_messages.Edited (which, the new latest row, its pose, the history)
    refused = Signal(int, str)  # an edit could not be made (the run goes on unchanged)
    #: (t, {reader: value}) at the last row of a batch: what `want_quantities` asked for
    quantities = Signal(int, float, object)

    def __init__(self, model, run_id: int = 0, *, running: bool = True, speed: float = 1.0, label: str = "",
                 process: bool = False, frames_per_sample: bool = False, parent=None):
        super().__init__(parent)
        self.process = bool(process)
        self.frames_per_sample = bool(frames_per_sample)
        self.model = model
        self.run_id = run_id  # every signal carries it: late signals of a stopped run are told apart
        self.label = label
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = False
        self._running = running
        self._steps_requested = 0
        self._edits: list[msg.Edit] = []  # to make on the Simulation, in order (gui/runs/run_messages.py)
        #: a finished run waits for edits (the timeline's "continue from here") until stopped
        self.hold_when_finished = False
        self._speed = float(speed)
        self._reanchor = True
        self._quantities_wanted: tuple[str, ...] = ()
        #: a run in the window goes on past t_end until paused (gui/runs/pacing.py: how far at most)
        self.go_on_past_t_end = False
        self._record: tuple[float, float] | None = None  # (fps, first instant) while a recording goes
        self._conn = None  # process mode: our end of the pipe to the child (None in the child itself)
        self._child = None  # process mode, in the child: its end of the pipe
        self._parent_pid = None
        self.child_pid = None  # process mode: the child's process id once it started
        self.exitcode = None  # process mode: the child's exit code once it ended
        self.finished.connect(self._let_go, Qt.QueuedConnection)

    def start(self, *args) -> None:
        STARTED.add(self)
        super().start(*args)

    @Slot()
    def _let_go(self) -> None:
        """On the GUI thread, once the worker has ended: this run may be freed now."""
        self.wait()  # its run() has returned, and with it the worker's own reference
        STARTED.discard(self)

    # --- control, called from the GUI thread --------------------------------------------

    def set_running(self, running: bool) -> None:
        self._control(msg.SetRunning(bool(running)))

    def step(self, samples: int = 1) -> None:
        """Advance by `samples` output intervals while paused."""
        self._control(msg.StepBy(int(samples)))

    def edit(self, edit: msg.Edit) -> None:
        """Make `edit` (set a parameter, drag, pull…: gui/runs/run_messages.py) on the Simulation
        between two integration calls; `edited` or `refused` answers."""
        self._control(edit)

    def set_speed(self, speed: float) -> None:
        self._control(msg.SetSpeed(float(speed)), wake=False)

    def want_quantities(self, readers) -> None:
        """Have the run compute these `SampleQuantities` readers (`mass_centre_velocities`, …) at
        the last row of each batch (the arrows' engine work, off the GUI thread)."""
        self._control(msg.WantQuantities(tuple(readers)), wake=False)

    def record(self, fps: float | None, t0: float = 0.0) -> None:
        """Send a pose at every instant t0 + k / fps from now on (a recording), or stop (None)."""
        self._control(msg.Record(None if fps is None else (float(fps), float(t0))))

    def request_stop(self, at_once: bool = False) -> None:
        """Ask the run to stop; `at_once`: a child process is killed without waiting for it to answer (the
        window is closing: nothing it would still send is wanted)."""
        self.stop_at_once = self.stop_at_once or at_once
        self._control(msg.Stop())

    def _control(self, message, wake: bool = True) -> None:
        """Apply a control to the thread's state and, in process mode, pass it on to the child."""
        with self._lock:
            if self._conn is None or not isinstance(message, msg.Edit):  # an edit is the child's once it runs
                self._take(message)
            if self._conn is not None:
                try:
                    self._conn.send(message)
                except (OSError, ValueError):  # the child has gone (or the pipe is closed): nothing to tell
                    pass
        if wake:
            self._wake.set()

    def _take(self, message) -> None:
        """Apply one control to the thread's state (the lock held, or in the child)."""
        match message:
            case msg.SetRunning(running=running):
                self._running, self._reanchor = running, True
            case msg.StepBy(samples=samples):
                self._steps_requested += samples
            case msg.SetSpeed(speed=speed):
                self._speed, self._reanchor = speed, True
            case msg.Stop():
                self._stop = True
            case msg.Edit():
                self._edits.append(message)
                self._reanchor = True
            case msg.WantQuantities(readers=readers):
                self._quantities_wanted = readers
            case msg.Record(grid=grid):
                self._record = grid
            case _:
                raise TypeError(f"not a control of a run: {message!r}")

    def stop_and_join(self, timeout_ms: int = 1000) -> bool:
        """Ask the worker to stop and wait for it; True if it ended within the timeout."""
        self.request_stop()
        if self.wait(timeout_ms):
            return True
        # never let Qt destroy a running thread: wait it out (an engine call in progress; a
        # child process is killed after CHILD_STOP_GRACE)
        self.wait()
        return False

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running

    # --- the worker ------------------------------------------------------------------------

    def run(self) -> None:  # noqa: D401 - QThread entry point, runs on the worker thread
        if self.process:
            self._host_child()
        else:
            self._run_here()

    def _run_here(self) -> None:
        """The run itself: on the worker thread, or in the child process."""
        try:
            # small dense solves: extra BLAS threads only fight the GUI thread for 2 cores
            with one_blas_thread():
                self._integrate()
        except ModelError as error:  # the model cannot be run as it stands (e.g. inconsistent constraints)
            self._emit(msg.Failed(str(error)))
        except Exception as error:  # an engine bug must not take the window down
            summary = f"{type(error).__name__}: {error}"
            self._emit(msg.Crashed(summary + "\n\n" + traceback.format_exc(limit=8)))

    def _emit(self, reply) -> None:
        """Send a reply (gui/runs/run_messages.py) as its signal with the run id; from the child, a
        message to the worker thread, which emits it."""
        if self._child is not None:
            self._child.send(reply)
        else:
            self._signal(reply)

    def _signal(self, reply) -> None:
        _REPLIES[type(reply)](self, reply)

    def _integrate(self) -> None:
        settings = self.model.settings
        sim = Simulation(self.model, max_samples=WORKER_MAX_SAMPLES,
                         t_end=window_run_length(settings) if self.go_on_past_t_end else None)
        if self._stopped():
            return
        info = RunInfo(
            columns=tuple(sim.columns),
            coordinate_names=tuple(sim.coordinate_names),  # the joint coordinates, in either coordinates
            speed_names=tuple(sim.speed_names),
            body_names=tuple(sim.system.body_names),
            notes=tuple(sim.notes),
            t_end=float(settings.t_end),
            dt_out=float(settings.dt_out),
            constraint_rows=int(getattr(sim.formulation, "n_rows", 1))
            + sum(bool(body.joint.quaternion) for body in self.model.bodies),
            pose_columns=(sim.state_columns[0].start, sim.state_columns[0].stop),
            dynamics_path=sim.stats["dynamics_path"],
        )
        q_slice = sim.state_columns[0]  # the integrated coordinates: what the poses are drawn from
        first = sim.samples()[:1]  # the sample at t = 0, recorded when the Simulation is made
        self._emit(msg.Ready(info, sim.frame(first[0, q_slice], sim.t)))
        held, clock = HeldBack(), Clock()  # computed, not yet sent (gui/runs/pacing.py)
        held.add(first, [])
        self._shown = (0.0, 0.0)  # the latest pose and the latest row sent
        self._grid = None  # (spacing, origin) of the dense-output instants watched
        last_emit = 0.0
        in_child = self._child is not None
        reported = False
        budget = CHILD_ADVANCE_WALL_BUDGET if in_child else ADVANCE_WALL_BUDGET
        batch_interval = 1.0 / (CHILD_BATCH_RATE if in_child else MAX_BATCH_RATE)
        while not self._stopped():
            if self._child is not None:
                self._take_messages()
            with self._lock:
                edits, self._edits = self._edits, []
                running, speed, record = self._running, self._speed, self._record
                steps, self._steps_requested = self._steps_requested, 0
                reanchor, self._reanchor = self._reanchor, False
            if edits:
                self._settle(sim, held, q_slice)
                self._apply_edits(sim, edits, q_slice)
                self._shown = (sim.sampled_until,) * 2
                sim.watch_instants(*(self._grid or (None,)))
                reported = False  # an edit of a finished run: it says so again (the window un-ended it)
            if sim.finished:
                if not self.hold_when_finished:
                    break
                if not reported:
                    self._flush(held.take_until(math.inf), sim, q_slice)
                    self._report_end(sim)
                    reported = True
                self._wait(0.05)
                continue
            reported = False
            if not running and not steps:
                self._settle(sim, held, q_slice)
                self._wait(0.05)
                continue
            self._watch(sim, instant_spacing(speed, running, record and record[0],
                                             COMPARE_FRAME_RATE if self.frames_per_sample else FRAME_RATE),
                        record[1] if record is not None else 0.0)
            now = time.perf_counter()
            if reanchor:
                clock.anchor(now, self._shown[0])
            if running:
                due = clock.due(now, speed)
                if due - sim.t > MAX_LAG * speed:  # behind: do not race to catch up
                    clock.anchor(now, sim.t)
                    due = sim.t
                target = sim.settings.t_end if math.isinf(speed) else due + budget * speed
            else:  # a Step while paused: one output interval on from the sample shown
                self._settle(sim, held, q_slice)
                target = due = sim.t + steps * info.dt_out * (1 + 1e-9)
            target = self.limit_target(min(target, sim.settings.t_end), sim)
            if target > sim.t:
                held.add(sim.advance(target, wall_budget=budget), sim.take_instants())
                if not in_child:
                    # hand the GIL over for a moment: the GUI thread's painting makes many short
                    # Python↔Qt transitions, each of which would otherwise wait for this thread
                    time.sleep(GIL_BREAK)
            else:  # ahead of the wall clock: sleep until the next instant held is due
                ahead = (held.next_time() - due) / speed if speed > 0 else batch_interval
                self._wait(min(batch_interval, max(0.001, ahead)))
            now = time.perf_counter()
            if held.next_time() <= due and (now - last_emit >= batch_interval or not running or sim.finished):
                self._flush(held.take_until(due), sim, q_slice)
                last_emit = now
            if steps:
                self._settle(sim, held, q_slice)
        self._flush(held.take_until(math.inf), sim, q_slice)
        if not self._stopped() and not reported:
            self._report_end(sim)

    def _report_end(self, sim) -> None:
        if sim.failure:
            self._emit(msg.Failed(str(sim.failure)))
        elif sim.finished:
            self._emit(msg.Done())

    def _apply_edits(self, sim, edits, q_slice: slice) -> None:
        """Make the window's edits, each answered by `edited` (the new latest row and its pose) or
        `refused` (why; the run is as it was)."""
        for edit in edits:
            try:
                msg.apply_edit(edit, sim)
            except ModelError as error:
                self._emit(msg.EditRefused(str(error)))
                continue
            row = sim.samples()[-1]
            self._emit(msg.Edited(edit, row, sim.frame(row[q_slice], float(row[0])), sim.model_history()))

    def limit_target(self, target: float, sim) -> float:
        """Where this run may integrate to now; subclasses hold runs in step (compare mode)."""
        return target

    def _send_quantities(self, sim, row: np.ndarray) -> None:
        with self._lock:
            wanted = self._quantities_wanted
        values = {}
        for reader in wanted:
            try:
                values[reader] = read_quantity(sim.quantities, reader, row)
            except (ModelError, ArithmeticError, ValueError, np.linalg.LinAlgError) as error:
                values[reader] = Refused.of(error)  # the window says why there is nothing to draw
        if values:
            self._emit(msg.Quantities(float(row[0]), values))

    def _wait(self, timeout: float) -> None:
        """Sleep until a control arrives or `timeout` seconds pass."""
        if self._child is not None:
            self._take_messages(timeout)
        else:
            self._wake.wait(timeout)
            self._wake.clear()

    def _stopped(self) -> bool:
        with self._lock:
            return self._stop



#: the signal each reply is emitted as (the run id first)
_REPLIES = {
    msg.Ready: lambda thread, r: thread.ready.emit(thread.run_id, r.info, r.frame),
    msg.Batch: lambda thread, r: thread.batch.emit(thread.run_id, r.rows, r.frames),
    msg.Failed: lambda thread, r: thread.failed.emit(thread.run_id, r.message),
    msg.Crashed: lambda thread, r: thread.crashed.emit(thread.run_id, r.message),
    msg.Done: lambda thread, _r: thread.done.emit(thread.run_id),
    msg.Edited: lambda thread, r: thread.edited.emit(thread.run_id, r),
    msg.EditRefused: lambda thread, r: thread.refused.emit(thread.run_id, r.message),
    msg.Quantities: lambda thread, r: thread.quantities.emit(thread.run_id, r.t, r.values),
    msg.Stats: lambda thread, r: thread.stats.emit(thread.run_id, r.stats),
}
