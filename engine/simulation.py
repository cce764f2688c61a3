"""Simulation: one run of one formulation — state, stepping, samples, energy, drift and cost.

    sim = Simulation(model)            # settings from the model, overrides as keywords
    rows = sim.advance(2.0)            # new sample rows up to t = 2 s (columns: sim.columns)
    sim.failure                        # None, or when and why the run stopped
    sim.set_parameter("gravity", [0, -1.62, 0]); sim.advance(3.0)   # edits: engine.run.run_edits

A run that blows up (NaN, overflow, singular matrix, step-size collapse, gimbal lock) stops with
a one-line message and keeps every sample it had.

The Simulation steps; its collaborators share its `RunCourse` (engine/run/run_course.py: what is in
force, the samples, the pushes) and hold their own state: `edits` (RunEdits), `manipulation`,
`quantities` (SampleQuantities), `instants` (DenseInstants). Their public methods are the
Simulation's too (`sim.set_parameter`, `sim.drag_to`, `sim.constraint_forces`, ...).
"""
from __future__ import annotations

import math
import time
from dataclasses import replace
from operator import attrgetter

import numpy as np

from eomlab.engine.blas_threads import one_blas_thread
from eomlab.engine.formulations import ConstraintFailure, make_formulation
from eomlab.engine.run.frames import DenseInstants, Frame, PoseMap, assembled_frame, frame_at, initial_frame  # noqa: F401  (PoseMap, initial_frame, assembled_frame: for the window)
from eomlab.engine.run.integrate import Stepper
from eomlab.engine.kinematics import GimbalLock
from eomlab.engine.limits import check_settings
from eomlab.engine.model import Model, ModelError, Stabilization
from eomlab.engine.mechanics.projection import projected_state
from eomlab.engine.run.manipulation import Manipulation
from eomlab.engine.run.run_course import RunCourse
from eomlab.engine.run.oscillation import Oscillation, measure_oscillation, small_oscillation_period  # noqa: F401  (for the window)
from eomlab.engine.run.quantities import RunQuantities, SampleQuantities, csv_columns, read_quantity, state_columns  # noqa: F401  (RunQuantities, read_quantity: for the window)
from eomlab.engine.run.run_view import RunView  # noqa: F401  (for the window: poses and quantities of a run's rows)
from eomlab.engine.run.energy_account import SAME_TIME, EnergyAccount  # noqa: F401  (for the window: W and the drift between edits)
from eomlab.engine.model_facts import ModelFacts, conservative, model_facts  # noqa: F401  (for the window's words)
from eomlab.engine.mechanics.energy_ceiling import mass_centre_ceilings  # noqa: F401  (for the window: the 2-D fit)
from eomlab.engine.run.run_edits import RunEdits, expression_constants, model_with_parameter  # noqa: F401  (for the window)
from eomlab.engine.run.start_checks import (MAX_FIXED_STEPS, MAX_RUN_SAMPLES, RUN_ERRORS,  # noqa: F401
                                            check_finite_start, check_rows_at_start, check_run_length,
                                            consistent_initial_state, refused_at_start)
from eomlab.engine.run.step_watch import GIMBAL_TOL, StepWatch
from eomlab.engine.mechanics.system import SingularMassMatrix, build_system
from eomlab.engine.unilateral import Unilateral, clamped_start
from eomlab.engine.unilateral.events import CutStep

BLOW_UP = 1e12  # a state component beyond this is taken as a blow-up


def _delegate(part: str, method):
    """A method of Simulation that is `method` of its collaborator `part` (its docstring too)."""
    collaborator = attrgetter(part)

    def delegated(self, *args, **kwargs):
        return method(collaborator(self), *args, **kwargs)

    delegated.__name__, delegated.__doc__ = method.__name__, method.__doc__
    return delegated


class Simulation:
    @refused_at_start()
    def __init__(self, model: Model, method=None, coordinates=None, integrator=None, rtol=None,
                 atol=None, t_end=None, dt_out=None, dt=None, stabilization: Stabilization | None = None,
                 variant: str | None = None, max_samples: int | None = None):
        # max_samples: keep only the latest samples (a long run in the window); None keeps all
        self.max_samples = max_samples
        overrides = dict(method=method, coordinates=coordinates, integrator=integrator, rtol=rtol,
                         atol=atol, t_end=t_end, dt_out=dt_out, dt=dt, stabilization=stabilization)
        self.settings = replace(model.settings, **{k: v for k, v in overrides.items() if v is not None})
        check_run_length(self.settings)
        check_settings(self.settings)
        self._unilateral = Unilateral.of(model)  # joint limits and contacts (engine.unilateral), or None
        start_model, self._start_notes = clamped_start(model) if self._unilateral is not None else (model, [])
        system = build_system(start_model, self.settings.coordinates)
        if system.n_u == 0:
            raise ModelError("bodies", "nothing to simulate: no body has a moving joint (add one, or change a fixed joint)")
        variant = variant or self.settings.maggi_basis
        formulation = make_formulation(self.settings.method, system, self.settings, variant)
        self.columns = csv_columns(system, formulation)
        self._index = {c: i for i, c in enumerate(self.columns)}
        self.state_columns = state_columns(system)
        self.course = RunCourse(self.settings, variant, model, system, formulation, self.columns, self.state_columns)
        sample = lambda t, y: self._sample(t, y)  # noqa: E731 - looked up at each call (tests wrap it)
        self.edits = RunEdits(self.course, sample, self._restart)
        self.manipulation = Manipulation(self.course, self.edits, sample, self._restart)
        self.quantities = SampleQuantities(self.course.formulation_at, self.state_columns, self.course.pushes,
                                           self.course.time_eps(), latest=lambda: self.course.samples[-1])
        self.instants = DenseInstants(self.course)
        self.watch = StepWatch(self.course)
        self.reset()

    # --- what is in force now (the course's) -----------------------------------------------------

    model = property(lambda self: self.course.model, doc="The model integrated now (edits change it).")
    system = property(lambda self: self.course.system)
    formulation = property(lambda self: self.course.formulation)

    @property
    def failure(self) -> str | None:
        """None, or when and why the run stopped."""
        return self.course.failure

    @failure.setter
    def failure(self, why: str | None) -> None:
        self.course.failure = why

    @property
    def _samples(self) -> list[np.ndarray]:
        return self.course.samples

    # --- the collaborators' methods ----------------------------------------------------------------

    restore = _delegate("edits", RunEdits.restore)
    set_state = _delegate("edits", RunEdits.set_state)
    set_parameter = _delegate("edits", RunEdits.set_parameter)
    push = _delegate("edits", RunEdits.push)
    model_history = _delegate("course", RunCourse.model_history)
    _sample_state = _delegate("course", RunCourse.sample_state)
    drag_to = _delegate("manipulation", Manipulation.drag_to)
    pull = _delegate("manipulation", Manipulation.pull)
    move_pull = _delegate("manipulation", Manipulation.move_pull)
    release = _delegate("manipulation", Manipulation.release)
    pull_anchor = _delegate("manipulation", Manipulation.pull_anchor)
    continue_from = _delegate("manipulation", Manipulation.continue_from)
    constraint_forces = _delegate("quantities", SampleQuantities.constraint_forces)
    applied_forces = _delegate("quantities", SampleQuantities.applied_forces)
    constraint_force_arrays = _delegate("quantities", SampleQuantities.constraint_force_arrays)
    applied_force_arrays = _delegate("quantities", SampleQuantities.applied_force_arrays)
    joint_forces = _delegate("quantities", SampleQuantities.joint_forces)
    mass_centre_velocities = _delegate("quantities", SampleQuantities.mass_centre_velocities)
    angular_velocities = _delegate("quantities", SampleQuantities.angular_velocities)
    angular_momenta = _delegate("quantities", SampleQuantities.angular_momenta)
    _evaluated = _delegate("quantities", SampleQuantities._evaluated)
    take_instants = _delegate("instants", DenseInstants.take)

    _watch_condition = _delegate("watch", StepWatch.watch_condition)
    max_condition = property(lambda self: self.watch.max_condition)
    _nonfinite_at = property(lambda self: self.watch.nonfinite_at)
    diagnostics = property(lambda self: self.watch.diagnostics)

    def watch_instants(self, spacing: float | None, origin: float = 0.0) -> None:
        """From the next step on, keep the coordinates at origin + k·spacing (None: none);
        `take_instants()` gives the (t, q) kept since it was last called."""
        self.instants.watch(spacing, origin, self.t)

    @property
    def coordinate_names(self) -> list[str]:
        """The model's joint coordinates: the first columns after t, in either coordinates."""
        joint = self.system.joint_coordinates
        return list(joint.coordinate_names if joint else self.system.coordinate_names)

    @property
    def speed_names(self) -> list[str]:
        joint = self.system.joint_coordinates
        return list(joint.speed_names if joint else self.system.speed_names)

    def reset(self):
        """Back to t = 0 (initial conditions projected again)."""
        with one_blas_thread():
            self._reset()

    def column_index(self, name: str) -> int:
        return self._index[name]

    def _reset(self):
        s = self.settings
        self.course.start()
        self.notes: list[str] = list(self._start_notes)
        self.course.sync_joint_reference()
        self.watch.start(None)
        self.rhs_evals_sampling = 0
        self.E0 = None
        f = self.formulation
        f.rhs_evals = 0
        self._quaternions = bool(f.system.kin.quaternion_joints)
        q0, u0 = consistent_initial_state(self.system, self.notes)
        try:
            y0 = f.initial_state(q0, f.model_to_own(q0, u0))
            if self._unilateral is not None:  # impacts at t = 0, resting rows
                self._unilateral = Unilateral(self.model)
                y0 = self._unilateral.start(f, y0)
                self.notes += self._unilateral.notes
            q_start = f.state_to_qu(0.0, y0)[0]
            f.system.kin.gimbal_crossing(q_start, q_start, GIMBAL_TOL)  # at or within GIMBAL_TOL of a lock: refused
            at_start = check_rows_at_start(f, y0, self.notes)
            if at_start is not None:
                rank0, self.condition = at_start
                self.watch.start(rank0)
                self.diagnostics["condition_number"] = self.condition
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named just below
                first = self._sample(0.0, y0)
            check_finite_start(self.columns, first)
            # the solver evaluates near y0 too (its first step size): a singular M there is the model's
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # named by the first step
                self.stepper = Stepper(s.integrator, self.watch.checked_derivative, 0.0, y0, s.t_end, s.rtol, s.atol, s.dt,
                                       kernel=self._step_kernel)
        except (SingularMassMatrix, GimbalLock, ConstraintFailure) as err:
            where = "bodies" if isinstance(err, (SingularMassMatrix, GimbalLock)) else "constraints"
            raise ModelError(where, f"at t = 0: {err}") from None
        self.t = 0.0
        self.wall_time = 0.0
        self._out_k = 0
        # with projection the samples, too, are taken on the constraints (dense output drifts within a step)
        self._projecting = s.stabilization.kind == "projection" and (f.n_rows > 0 or self._quaternions)
        self._euler_joints = any(jl.euler is not None for jl in f.system.kin.joints)
        self._q_last = f.state_to_qu(0.0, y0)[0]
        self._samples.append(first)
        self._out_k = 1

    # --- samples -----------------------------------------------------------------------------

    def _sample(self, t: float, y: np.ndarray) -> np.ndarray:
        f = self.formulation
        self.rhs_evals_sampling += 1
        drift_pos = drift_vel = 0.0
        if f.n_rows == 0 and f.system.joint_coordinates is None:  # no rows: nothing to evaluate but T, V, c
            q, u = f.state_to_qu(t, y)
            T, V, com = f.system.energy_and_centres(q, u)  # the compiled path's forward pass when it runs
            joint_values, multipliers = (), ()
        else:
            ev = f.evaluate(t, y)
            q, u, ks = ev.q, ev.u, ev.dynamics.ks  # every formulation's system has the model's bodies
            (T, V), com, multipliers = f.system.energy_at(ks, q, u, t), ks.com, ev.multipliers
            joint_values = self._joint_values(t, q, u, ks)
            if ev.rows is not None:
                drift_pos, drift_vel = ev.rows.drift_position, ev.rows.drift_velocity
                self.watch.watch_condition(ev.rows.A)
        if self._quaternions:  # the normalisation constraints count among the holonomic rows
            drift_pos = max(drift_pos, float(np.max(np.abs(f.system.kin.normalisation_residuals(q)))))
        E = T + V
        if self.E0 is None:
            self.E0, self.T0, self.V0 = E, T, V
        return np.concatenate(([t], *joint_values, q, f.model_speeds(q, u), com.ravel(),
                               [T, V, E, drift_pos, drift_vel], multipliers))

    def _joint_values(self, t, q, u, ks) -> tuple:
        """In absolute coordinates the joint coordinates and speeds at this sample, each angle on
        the branch nearest the previous sample's (that becomes the reference of what follows)."""
        joint = self.formulation.system.joint_coordinates
        if joint is None:
            return ()
        self.course.sync_joint_reference()
        q_j, u_j = joint.values(t, q, u, ks)
        joint.reference = q_j
        return q_j, u_j

    def frame(self, q, t: float = 0.0) -> Frame:
        """The drawable poses of every body at coordinates q of this run (a stored sample row's
        integrated coordinates, `row[sim.state_columns[0]]`), at time t; nothing is integrated or changed."""
        return frame_at(self.system.kin, q, t)

    def samples(self) -> np.ndarray:
        return np.array(self._samples) if self._samples else np.zeros((0, len(self.columns)))

    @property
    def sampled_until(self) -> float:
        """Time of the latest sample (a step may pass many sampling times: it can lead self.t)."""
        return float(self._samples[-1][0]) if self._samples else self.t

    @property
    def finished(self) -> bool:
        return self.failure is not None or self.t >= self.settings.t_end

    def relative_energy_drift(self, E: np.ndarray | float) -> np.ndarray | float:
        """|E − E(0)| / max(|E(0)|, T(0) + |V(0)|, 1e-12), THEORY.md §5."""
        scale = max(abs(self.E0), self.T0 + abs(self.V0), 1e-12)
        return np.abs(np.asarray(E) - self.E0) / scale

    @property
    def stats(self) -> dict:
        t = max(self.t, 1e-300)
        return {
            "rhs_evals": self.formulation.rhs_evals,
            "sample_evals": self.rhs_evals_sampling,
            "steps": self.stepper.steps,
            "wall_time": self.wall_time,
            "wall_per_sim_second": self.wall_time / t if self.t > 0 else 0.0,
            "integrates": self.formulation.integrates,
            "multipliers": len(self.formulation.multiplier_names),
            "repartitions": getattr(self.formulation, "repartitions", 0),
            # "pinocchio" (the compiled tree path, "+ numba DOP853 step" once that ran) or "numpy (why)"
            "dynamics_path": self.formulation.dynamics_path,
        }

    # --- stepping ----------------------------------------------------------------------------

    def advance(self, t_stop: float, wall_budget: float | None = None) -> np.ndarray:
        """Integrate to t_stop (or until wall_budget seconds pass); the new sample rows."""
        start = time.perf_counter()
        first = len(self._samples)
        t_stop = min(t_stop, self.settings.t_end)
        # non-finite values are caught and named below: numpy's warnings would only add noise
        with one_blas_thread(), np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            while self.failure is None and self.t < t_stop - 1e-12:
                self._one_step()
                if wall_budget is not None and time.perf_counter() - start > wall_budget:
                    break
        self.wall_time += time.perf_counter() - start
        new = self._samples[first:]
        self._drop_old_samples()
        return np.array(new) if new else np.zeros((0, len(self.columns)))

    def _drop_old_samples(self):
        """Keep at most `max_samples` (the newest): memory stays bounded on long runs."""
        if self.max_samples is not None and len(self._samples) > self.max_samples:
            del self._samples[:len(self._samples) - max(1, self.max_samples)]

    def run(self) -> np.ndarray:
        self.advance(self.settings.t_end)
        return self.samples()

    def _fail(self, t: float, why: str):
        self.failure = f"run stopped at t = {t:.6g} s: {why}"

    def _one_step(self):
        self._at_segment_end()
        st = self.stepper
        t_before = st.t
        self.watch.step_begins()
        try:
            message = st.step()
        except RUN_ERRORS as err:
            self._fail(t_before, str(err))
            return
        if message is not None:
            self._fail(st.t, self.watch.collapse_reason(st, f"{self.settings.integrator}: {message}"))
            return
        y = st.y
        if not np.all(np.isfinite(y)):
            self._fail(st.t, "the state became NaN or infinite")
            return
        if np.max(np.abs(y)) > BLOW_UP:
            self._fail(st.t, f"the state exceeds {BLOW_UP:.0e} (the motion blew up)")
            return
        try:
            event = self._unilateral.event_in_step(self.formulation, st) if self._unilateral is not None else None
            if event is not None:  # no step straddles an event: sample up to it, restart after it
                cut = CutStep(st, event)
                self._emit_samples(cut)
                self.instants.emit(cut)
                self.t = event.t
                self._restart(event.t, self._unilateral.after_event(self.formulation, event))
                return
            self._emit_samples(st)
            self.instants.emit(st)
            self.t = st.t
            self._after_step(st)
            self.watch.watch_step_size(st, st.t - t_before)
        except GimbalLock as err:
            # a long step may carry the dense output through the lock: stop at the lock itself
            t_lock = self.watch.lock_time(st)
            self._samples[1:] = [row for row in self._samples[1:] if row[0] <= t_lock]
            self.instants.drop_after(t_lock)
            self._fail(t_lock, str(err))
        except RUN_ERRORS as err:
            self._fail(st.t, str(err))

    def _at_segment_end(self) -> None:
        """The integrator reached a push's start or end before t_end: restart it there, so the
        force switches between steps, never within one."""
        st = self.stepper
        if st.finished and st.t_bound < self.settings.t_end:
            self._restart(st.t, st.y)

    def _step_kernel(self):
        """The compiled DOP853 step of the formulation integrating now, or None (engine.compiled.compiled_step;
        None while unilateral rows rest: the right-hand side holds them)."""
        uni = self._unilateral
        return None if uni is not None and uni.holding else self.formulation.compiled_step

    def _restart(self, t: float, y: np.ndarray) -> None:
        """Start the integrator afresh at (t, y); the next sample is the next k·dt_out after t."""
        s, eps, pushes = self.settings, self.course.time_eps(), self.course.pushes
        if self._unilateral is not None:  # which rows rest from here (engine.unilateral)
            self._unilateral.classify(self.formulation, t, y, self.model)
        bound = min([s.t_end] + [b for p in pushes for b in (p.t_start, p.t_stop) if b > t + eps])
        for push in pushes:
            push.active = push.t_start - eps <= t < push.t_stop - eps
        steps = self.stepper.steps
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # named by the first step
            self.stepper = Stepper(s.integrator, self.watch.checked_derivative, t, y, bound, s.rtol, s.atol, s.dt,
                                   kernel=self._step_kernel)
        self.stepper.steps = steps
        self.t = t
        self._out_k = int(math.floor(t / s.dt_out + 1e-9)) + 1
        self._q_last = self.formulation.state_to_qu(t, y)[0]
        self.course.sync_joint_reference()
        self.watch.restarted()

    def _emit_samples(self, st: Stepper):
        """Samples at k·dt_out (and at t_end) that the last step passed, from its dense output."""
        dt_out, t_end = self.settings.dt_out, self.settings.t_end
        eps = 1e-9 * dt_out
        while True:
            t_k = self._out_k * dt_out
            if t_k > t_end - eps:
                t_k = t_end
            if t_k > st.t + eps or self._samples[-1][0] >= t_k - eps:
                break
            y_k = st.y if abs(t_k - st.t) <= eps else st.sample(t_k)
            if self._projecting:
                projected = projected_state(self.formulation, t_k, y_k, self.settings.stabilization.tolerance,
                                            self._quaternions)
                y_k = y_k if projected is None else projected
            self._samples.append(self._sample(t_k, y_k))
            self._out_k += 1

    def _after_step(self, st: Stepper):
        f = self.formulation
        y = st.y
        if self._euler_joints:
            q_now = f.state_to_qu(st.t, y)[0]
            f.system.kin.gimbal_crossing(self._q_last, q_now, GIMBAL_TOL)
            self._q_last = q_now
        if self._projecting:
            y_new = projected_state(f, st.t, y, self.settings.stabilization.tolerance, self._quaternions)
            if y_new is not None:
                st.replace_state(y_new)
                y = y_new
        y_new = f.state_changed(st.t, y)
        if y_new is not None:
            st.replace_state(y_new)


def prefetch_compiled_kernels(timeout: float = 60.0) -> bool:
    """The compiled kernels loaded into this process from numba's cache, for a process that forks runs: its
    runs inherit them instead of each loading them (engine.compiled.compiled_step.load_cached_kernels; never
    compiles). False when the fast path is off or the cache is not complete."""
    from eomlab.engine.compiled.compiled_step import load_cached_kernels
    from eomlab.engine.compiled.tree_backend import fast_path_wanted

    return fast_path_wanted() and load_cached_kernels(timeout)
