"""The run controller of one window: the run state, the runs, their samples and the time cursor.

A `Session` owns

- the state: idle (fresh runs at t = 0, not started), running, paused, ended (every run reached
  t_end) or failed (a run stopped on an error; the samples so far are kept);
- the runs: one per formulation in compare mode, else one (`Run`: its worker, its samples in a
  ring buffer, its latest poses);
- the time cursor: the instant the window shows. It follows the slowest run (the latest instant
  every run has reached), so all methods are drawn at the same simulated time; `set_cursor`
  holds it at a chosen earlier instant (a time scrubber) until `follow_latest`. A batch only marks
  it stale: the cursor follows when it is read (`cursor_time`, `frames_at_cursor`, `settle_cursor`,
  which the redraw calls once a tick), not at each of compare mode's ~170 batches a second.

Views never reach into each other: they connect to the signals below and read `runs`,
`cursor_time()` and `frames_at_cursor()`. The only Qt here is QObject/Signal and the worker
threads (gui/runs/run_thread.py, gui/runs/lock_step.py); nothing is drawn.
"""
from __future__ import annotations

import itertools
import time

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal, Slot

from eomlab.engine.model import Model
from eomlab.engine.simulation import model_with_parameter
from eomlab.gui.runs.lock_step import CostReportingRunThread, LockStep
from eomlab.gui.style.method_styles import PALETTE, method_label, method_style
from eomlab.gui.runs.ring_buffer import DEFAULT_CAPACITY, RingBuffer
from eomlab.gui.runs.run_records import _EPS, Run, RunSeries  # noqa: F401 - RunSeries: the plots and tests take it from here
from eomlab.gui.runs.run_thread import PROCESS_WORKERS
from eomlab.gui.runs.run_messages import ContinueFrom, Edit, Edited, SetParameter
from eomlab.gui.runs.run_state import RunEnd, RunState

#: lock step lead, in output intervals
LEAD_SAMPLES = 2.0

#: the quantities of this many of a run's latest batches are kept (a frame drawn a batch late finds its own)
SENT_KEPT = 8


def common_instant(runs: list[Run], bound: float) -> float:
    """The latest instant up to `bound` at which every run has a pose of its own: the runs' dense-output
    instants differ (each paces itself), so the slowest run's latest may fall between another's poses,
    which would then show an earlier instant (compare mode: 1.2333 s beside 1.24 s). The sample grid is
    common to all, so such an instant is never far back: each run's RECENT_INSTANTS latest instants up to
    `bound` are looked at first (every run's whole history, 256 poses each, at every batch held compare
    mode's GUI thread ~1 s in the soak), all of them only when those share none; `bound` itself when none
    is kept."""
    if len(runs) < 2:
        return bound
    for count in (RECENT_INSTANTS, None):
        first = _instants(runs[0], bound, count)
        common = set(first).intersection(*(_instants(run, bound, count) for run in runs[1:]))
        if common:
            return first[max(common)]
    return bound


#: how many of a run's latest instants common_instant looks at first
RECENT_INSTANTS = 16


def _instants(run: Run, bound: float, count: int | None) -> dict[int, float]:
    """A run's latest `count` (None: all) instants up to `bound`, newest first: {their key to within _EPS: t}.
    A run's poses are kept in time order, so its latest instants are the largest."""
    found: dict[int, float] = {}
    newest = [run.latest_frame] if run.latest_frame is not None else []
    for frame in itertools.chain(newest, reversed(run.frames)):
        if frame.t <= bound + _EPS:
            found.setdefault(round(frame.t / _EPS), float(frame.t))
            if count is not None and len(found) >= count:
                break
    return found


class Session(QObject):
    """Signals: ``state_changed(state)``; ``runs_started()`` a fresh set of runs (paused or
    running) replaced the old; ``run_ready(run)`` a run's columns are known (its series exists);
    ``advanced()`` new samples arrived; ``cursor_moved(t)`` the displayed instant changed;
    ``problem(title, message)`` a run stopped on an error; ``notes(text)`` the engine's notes on
    a run; ``finished(t_end)`` every run reached t_end (runs that go on past it: the instant shown
    did); ``edited(run, kind, t)`` an edit of a run (its `EditKind`)
    (`edit`) took at time t; ``refused(message)`` one could not be made."""

    state_changed = Signal(object)  # a RunState
    runs_started = Signal()
    run_ready = Signal(object)
    advanced = Signal()
    cursor_moved = Signal(float)
    problem = Signal(str, str)
    notes = Signal(str)
    finished = Signal(float)
    edited = Signal(object, object, float)  # (run, its EditKind, t)
    refused = Signal(str)
    #: the main run's tree-dynamics path in words changed (the compiled step took over)
    dynamics_path_changed = Signal(str)
    #: the runs go on past the model's t_end until paused (gui/runs/pacing.py); False: they end there
    go_on_past_t_end = True

    def __init__(self, model: Model, *, compare: bool = False, speed: float = 1.0,
                 capacity: int = DEFAULT_CAPACITY, parent=None):
        super().__init__(parent)
        self.model = model
        self.compare = compare
        self.speed = speed
        #: the readers the main run computes at its latest sample (`RunThread.want_quantities`)
        self.quantities_wanted: tuple[str, ...] = ()
        self.capacity = capacity
        #: runs integrate in forked child processes (gui/runs/run_thread.py), else on worker threads
        self.worker_processes = PROCESS_WORKERS
        #: the models compare mode runs for a model (set by the compare view); one otherwise
        self.plan_compare = lambda m: [m]
        self.runs: list[Run] = []
        self._ending: list = []  # stopped workers still ending (`stop`)
        self.state = RunState.IDLE
        self.next_run_id = 1
        self._following = True
        self._cursor = 0.0
        self._cursor_stale = False  # batches came since the cursor last followed them
        self._t_end_said = False
        self._run_next_model = False

    # --- the runs ------------------------------------------------------------------------------

    def start(self, running: bool) -> None:
        """Throw away the current runs and start fresh ones from t = 0 (paused or running)."""
        self.stop()
        if not self.model.bodies:  # File ▸ New: nothing to run, so no run and no "run stopped" warning
            self._following, self._cursor = True, 0.0
            self._set_state(RunState.IDLE)
            self.runs_started.emit()
            self.cursor_moved.emit(0.0)
            return
        models = self.plan_compare(self.model) if self.compare else [self.model]
        lock_step = LockStep(lead=LEAD_SAMPLES * self.model.settings.dt_out) if len(models) > 1 else None
        for i, run_model in enumerate(models):
            method = run_model.settings.method
            thread = CostReportingRunThread(run_model, self.next_run_id, running=running, speed=self.speed,
                                            label=method_label(method), process=self.worker_processes,
                                            lock_step=lock_step, frames_per_sample=lock_step is not None)
            self.next_run_id += 1
            thread.ready.connect(self._on_ready)
            thread.batch.connect(self._on_batch)
            thread.failed.connect(self._on_failed)
            thread.crashed.connect(self._on_crashed)
            thread.done.connect(self._on_done)
            thread.stats.connect(self._on_stats)
            thread.edited.connect(self._on_edited)
            thread.refused.connect(self._on_refused)
            thread.quantities.connect(self._on_quantities)
            thread.want_quantities(self.quantities_wanted if i == 0 else ())  # the arrows read the main run
            thread.hold_when_finished = True  # the timeline may take a finished run back
            thread.go_on_past_t_end = self.go_on_past_t_end
            color, style = method_style(method) if self.compare else (PALETTE[i % len(PALETTE)], Qt.SolidLine)
            self.runs.append(Run(thread, method, method_label(method), color, style, model=run_model))
        self._following, self._cursor = True, 0.0
        self._t_end_said = not self.go_on_past_t_end  # else `finished` comes when they end
        self._set_state(RunState.RUNNING if running else RunState.IDLE)
        self.runs_started.emit()
        self.cursor_moved.emit(0.0)
        for run in self.runs:
            run.thread.start()

    def stop(self, join: bool = False, at_once: bool = False) -> float:
        """Stop every worker and forget its runs; returns the seconds it took. The window never waits for
        them (a child in a long engine call takes up to CHILD_STOP_GRACE to end: five compare runs held an
        undo for 1.7 s, issue 31): they end on their own, kept here until they have. `join`: wait for every
        worker, those stopped earlier too; `at_once`: kill their processes instead of waiting for their answer
        (the window closing)."""
        begin = time.perf_counter()
        for run in self.runs:
            run.thread.request_stop(at_once=at_once)
        for run in self.runs:
            for signal in (run.thread.ready, run.thread.batch, run.thread.failed, run.thread.crashed,
                           run.thread.done, run.thread.stats, run.thread.edited, run.thread.refused,
                           run.thread.quantities):
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError):
                    pass
            run.thread.finished.connect(self._let_go_of_ended, Qt.QueuedConnection)
            self._ending.append(run.thread)
        self.runs = []
        if join:
            for thread in self._ending:
                thread.request_stop(at_once=at_once)
            for thread in self._ending:
                thread.stop_and_join(1000)
        self._let_go_of_ended()
        return time.perf_counter() - begin

    @Slot()
    def _let_go_of_ended(self) -> None:
        """Delete the stopped workers that have ended (a QThread must not be deleted while it runs)."""
        for thread in [t for t in self._ending if t.isFinished()]:
            self._ending.remove(thread)
            thread.deleteLater()

    @property
    def ending(self) -> int:
        """How many stopped workers have not ended yet."""
        return sum(not t.isFinished() for t in self._ending)

    def set_model(self, model: Model) -> None:
        """A new or edited model: the runs start afresh (running if they were running or had
        finished: an edit re-runs a finished run)."""
        again = self._run_next_model or self.state.going_on
        self._run_next_model = False
        self.model = model
        self.start(running=again)

    def run_next_model(self) -> None:
        """The next model (a file opened, a preset chosen) starts running at once."""
        self._run_next_model = True

    def samples(self) -> tuple[list[str], np.ndarray]:
        """The main run's kept samples (columns, rows)."""
        if not self.runs or self.runs[0].series is None:
            return [], np.zeros((0, 0))
        series = self.runs[0].series
        return list(series.info.columns), series.buffer.view().copy()

    def has_progress(self) -> bool:
        return any(r.series is not None and len(r.series.buffer) > 1 for r in self.runs)

    # --- commands ------------------------------------------------------------------------------

    def run(self) -> None:
        if not self.runs or all(r.ended for r in self.runs):
            self.start(running=True)
            return
        for run in self.runs:
            run.thread.set_running(True)
        self._set_state(RunState.RUNNING)

    def pause(self) -> None:
        self._pause_all()
        if self.state == RunState.RUNNING:
            self._set_state(RunState.PAUSED)

    def toggle(self) -> None:
        self.pause() if self.state == RunState.RUNNING else self.run()

    def step(self) -> None:
        if self.state == RunState.RUNNING:
            self.pause()
        if self.state == RunState.IDLE:
            self._set_state(RunState.PAUSED)  # no longer at t = 0
        for run in self.runs:
            run.thread.step(1)

    def reset(self) -> None:
        self.start(running=False)

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        for run in self.runs:
            run.thread.set_speed(speed)

    def set_compare(self, on: bool) -> None:
        self.compare = bool(on)
        self.start(running=self.state == RunState.RUNNING)

    # --- edits of the runs (gui/runs/run_messages.py; engine: Simulation.set_parameter, drag_to…) ----

    def edit(self, edit: Edit) -> None:
        """Make `edit` on every run at its latest sample; `edited` or `refused` answers."""
        for run in self.runs:
            run.thread.edit(edit)

    def set_parameter(self, path: str, value) -> None:
        """Every run goes on with the parameter at `path` set to `value` (ModelError, before any
        run changes, when the value is refused)."""
        models = [model_with_parameter(run.model, path, value) for run in self.runs]
        for run, model in zip(self.runs, models):
            run.model = model  # what it goes on with; its history comes with the answer
        self.edit(SetParameter(path, value))

    def rows_at(self, t: float) -> list[np.ndarray | None]:
        """Each run's kept sample at or before t (None for a run without one)."""
        rows = [run.series.rows_until(t) if run.series is not None else np.zeros((0, 0)) for run in self.runs]
        return [r[-1].copy() if len(r) else None for r in rows]

    def continue_from(self, rows: list, put_back: list | None = None, models: list | None = None) -> None:
        """Each run goes on from its sample row (later samples dropped) with the parameters in force
        at its time; `put_back`: rows each run gets back first and `models` the parameter history
        it had then (`Run.models.items()`; undoing a "continue from here": the run takes that
        history back, going on with its latest)."""
        for i, (run, row) in enumerate(zip(self.runs, rows)):
            if row is not None:
                rows_back = put_back[i] if put_back is not None else None
                history = tuple(models[i]) if models is not None else None
                run.thread.edit(ContinueFrom(row, models=history, put_back=rows_back))

    @Slot(int, str)
    def _on_refused(self, _run_id: int, text: str) -> None:
        self.refused.emit(text)

    @Slot(int, object)
    def _on_edited(self, run_id: int, reply: Edited) -> None:
        run = self._run(run_id)
        if run is None or run.series is None:
            return
        row, frame, edit = reply.row, reply.frame, reply.edit
        t, buffer = float(row[0]), run.series.buffer
        run.take_models(reply.models)  # the run's own parameter history: what it integrated with when
        rows_back = edit.put_back if isinstance(edit, ContinueFrom) else None
        if rows_back is not None and len(rows_back):
            buffer.drop_from(rows_back[0, 0])
            buffer.append(rows_back)
        buffer.drop_from(t)
        buffer.append(row)
        kept = [f for f in run.frames if f.t < t - _EPS]
        run.frames.clear()
        run.frames.extend(kept)
        run.frames.append(frame)
        run.latest_frame = frame
        run.ended = RunEnd.NOT
        if self.state in (RunState.ENDED, RunState.FAILED):
            self._set_state(RunState.PAUSED)
        latest = self.latest_common_time()
        if not self._following and latest is not None and self._cursor > latest:
            self._move_cursor(latest)
        self._update_cursor()
        self.edited.emit(run, edit.kind, t)
        self.advanced.emit()

    def _pause_all(self) -> None:
        for run in self.runs:
            run.thread.set_running(False)

    def _set_state(self, state: RunState) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    # --- the time cursor -------------------------------------------------------------------------

    def latest_common_time(self) -> float | None:
        """The latest instant every run has reached (the slowest run's latest pose: a sample, or
        an instant of the dense output between two, gui/runs/pacing.py)."""
        times = [r.latest_shown for r in self.runs]
        if not times or any(t is None for t in times):
            return None
        return common_instant(self.runs, min(times))

    def cursor_time(self) -> float:
        """The instant the window shows."""
        self.settle_cursor()
        return self._cursor

    def settle_cursor(self) -> None:
        """Move a following cursor to the latest common instant when batches came since it last moved."""
        if self._cursor_stale:
            self._cursor_stale = False
            self._update_cursor()

    @property
    def following(self) -> bool:
        return self._following

    def set_cursor(self, t: float) -> None:
        """Show the instant `t` (clamped to what every run has) and hold it there."""
        latest = self.latest_common_time()
        self._following = False
        self._move_cursor(min(max(float(t), 0.0), latest if latest is not None else 0.0))

    def follow_latest(self) -> None:
        self._following = True
        self._update_cursor()

    def frames_at_cursor(self) -> list[tuple[Run, object]]:
        """(run, its pose at the cursor) for every run; a held cursor (the timeline) poses the kept
        sample itself."""
        t = self.cursor_time()
        if self._following:
            return [(run, run.frame_at(t)) for run in self.runs]
        rows = self.rows_at(t)
        return [(run, run.pose_of_row(row) if row is not None and run.model is not None else run.frame_at(t))
                for run, row in zip(self.runs, rows)]

    def _update_cursor(self) -> None:
        if self._following:
            latest = self.latest_common_time()
            if latest is not None:
                self._move_cursor(latest)

    def _move_cursor(self, t: float) -> None:
        if t != self._cursor:
            self._cursor = t
            self.cursor_moved.emit(t)
            if self._following and not self._t_end_said and t >= self.model.settings.t_end:
                self._t_end_said = True  # said once a run: the runs go on (`go_on_past_t_end`)
                self.finished.emit(self.model.settings.t_end)

    # --- the workers' signals --------------------------------------------------------------------

    def _run(self, run_id: int) -> Run | None:
        for run in self.runs:
            if run.thread.run_id == run_id:
                return run
        return None  # a late signal of a run already thrown away

    @Slot(int, object, object)
    def _on_ready(self, run_id: int, info, frame) -> None:
        run = self._run(run_id)
        if run is None:
            return
        run.series = RunSeries(run.label, info, RingBuffer(len(info.columns), self.capacity), run.color, run.style)
        run.latest_frame = frame
        run.frames.append(frame)
        self.run_ready.emit(run)
        if run is self.runs[0] and info.notes:
            self.notes.emit("; ".join(info.notes))
        self.advanced.emit()

    @Slot(int, object, object)
    def _on_batch(self, run_id: int, rows, frames) -> None:
        run = self._run(run_id)
        if run is None or run.series is None:
            return
        if len(rows):
            run.series.buffer.append(rows)
        if frames:
            run.frames.extend(frames)
            run.latest_frame = frames[-1]
        self._cursor_stale = True  # the cursor follows when it is next read (once a frame)
        self.advanced.emit()

    @Slot(int, float, object)
    def _on_quantities(self, run_id: int, t: float, values: dict) -> None:
        run = self._run(run_id)
        if run is not None:
            run.sent_quantities[t] = values
            while len(run.sent_quantities) > SENT_KEPT:
                del run.sent_quantities[next(iter(run.sent_quantities))]

    def want_quantities(self, readers) -> None:
        """The main run (now and in every start from now on) computes these readers at its latest
        sample (gui/arrows/arrows_view.py asks for what its arrows read; they are drawn on the main run only)."""
        self.quantities_wanted = tuple(readers)
        if self.runs:
            self.runs[0].thread.want_quantities(self.quantities_wanted)

    @Slot(int, object)
    def _on_stats(self, run_id: int, stats: dict) -> None:
        run = self._run(run_id)
        if run is not None:
            path = stats.get("dynamics_path")
            if run is self.runs[0] and path and path != run.stats.get("dynamics_path"):
                self.dynamics_path_changed.emit(path)
            run.stats = stats

    @Slot(int, str)
    def _on_failed(self, run_id: int, message: str) -> None:
        run = self._run(run_id)
        if run is None:
            return
        run.ended = RunEnd.FAILED
        run.messages.append(message)
        prefix = f"{run.label}: " if self.compare else ""
        self._pause_all()
        self._set_state(RunState.FAILED)
        self.problem.emit("The run stopped", f"{prefix}{message} (the samples so far are kept)")

    @Slot(int, str)
    def _on_crashed(self, run_id: int, message: str) -> None:
        run = self._run(run_id)
        if run is None:
            return
        run.ended = RunEnd.CRASHED
        run.messages.append(message)
        self._pause_all()
        self._set_state(RunState.FAILED)
        self.problem.emit("The engine raised an error", message)

    @Slot(int)
    def _on_done(self, run_id: int) -> None:
        run = self._run(run_id)
        if run is None:
            return
        run.ended = RunEnd.DONE
        if all(r.ended for r in self.runs):
            self._set_state(RunState.ENDED if all(r.ended == RunEnd.DONE for r in self.runs) else RunState.FAILED)
            self.finished.emit(self.model.settings.t_end)
