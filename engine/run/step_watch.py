"""How a run watches its steps (a collaborator of `Simulation`): NaN in the equations of motion,
the constraint rows' conditioning (a linkage at its dead point), steps that make no progress, and
when within a step an Euler angle reached its singular value. It reads the formulation integrating
now from the run's `RunCourse` and keeps what it found (`max_condition`, `diagnostics`)."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.formulations import ConstraintFailure
from eomlab.engine.run.integrate import Stepper
from eomlab.engine.run.start_checks import RUN_ERRORS

SINGULAR_CONDITION = 1e8  # constraint rows this ill-conditioned mean a singular configuration
GIMBAL_TOL = 1e-6  # |sin θ| (or |cos θ|) below this: the Euler angles are at their singularity
# steps shorter than this times max(|t|, dt_out) make no progress; this many in a row: a collapse
TINY_STEP = 1e-12
TINY_STEPS_IN_A_ROW = 10
# a step shorter than this times dt_out is worth a look at the constraint rows' conditioning
SMALL_STEP = 1e-6
# when the step size collapses, rows this ill-conditioned are named as the likely cause
NEAR_SINGULAR_CONDITION = 1e4
# one step whose solver meets this many NaN derivatives is stuck (scipy may loop on a NaN step size)
MAX_NONFINITE_TRIALS = 200


class StepWatch:
    """`course`: the run's RunCourse. `start(rank0)` at each start: the rank of the constraint
    rows at t = 0 (None: no rows), on which their condition number is measured."""

    def __init__(self, course):
        self.course = course
        self.start(None)

    def start(self, rank0: int | None) -> None:
        self.rank0 = rank0
        self.max_condition = 1.0
        self.diagnostics: dict = {}
        self.restarted()

    def restarted(self) -> None:
        """The integrator starts afresh: no tiny steps or NaN seen yet."""
        self._tiny_steps = 0
        self.step_begins()

    def step_begins(self) -> None:
        """Trial points the solver rejects within one step count towards that step only."""
        self.nonfinite_at, self._nonfinite_trials = None, 0

    def checked_derivative(self, t: float, y: np.ndarray) -> np.ndarray:
        """The formulation's derivative, remembering when it was last NaN or infinite."""
        f = self.course.formulation
        dy = f.derivative(t, y)
        if math.isfinite(np.add.reduce(dy)):  # one reduction: cheaper than isfinite on each entry
            return dy
        if f.derivative != f.checked_derivative:  # the compiled tree's NaN: a singular M is named here
            dy = f.checked_derivative(t, y)
        if not np.all(np.isfinite(dy)):
            self.nonfinite_at = t
            self._nonfinite_trials += 1
            if self._nonfinite_trials > MAX_NONFINITE_TRIALS:
                raise ArithmeticError("the equations of motion stay NaN or infinite however short the step "
                                      "(the state or an expression is out of range)")
        return dy

    def lock_time(self, st: Stepper) -> float:
        """When, within the last step, an Euler angle first reached its singular value."""
        f, kin = self.course.formulation, self.course.formulation.system.kin
        t0, t1 = st.t_old, st.t
        if t0 is None or not t1 > t0:
            return t1

        def locked(t: float) -> bool:
            now = kin.gimbal_values(f.state_to_qu(t, st.sample(t))[0])
            return bool(np.any(np.abs(now) < GIMBAL_TOL) or np.any(now * start < 0))

        start = kin.gimbal_values(f.state_to_qu(t0, st.sample(t0))[0])
        grid = np.linspace(t0, t1, 33)
        hit = next((k for k in range(1, len(grid)) if locked(grid[k])), None)
        if hit is None:
            return t1
        lo, hi = grid[hit - 1], grid[hit]
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if locked(mid) else (mid, hi)
        return float(hi)

    def watch_step_size(self, st: Stepper, h: float):
        """Stop when the steps stop making progress; look at the constraint rows on small steps,
        where a singular configuration (a linkage at its dead point) first shows."""
        dt_out = self.course.settings.dt_out
        if h >= SMALL_STEP * dt_out:
            self._tiny_steps = 0
            return
        if self.course.formulation.n_rows:
            self.watch_condition(self.rows_at(st.t, st.y).A)
        tiny = h < TINY_STEP * max(abs(st.t), dt_out)
        self._tiny_steps = self._tiny_steps + 1 if tiny else 0
        if self._tiny_steps >= TINY_STEPS_IN_A_ROW:
            raise ArithmeticError(self.collapse_reason(st, f"{TINY_STEPS_IN_A_ROW} steps in a row shorter than {h:.2g} s"))

    def collapse_reason(self, st: Stepper, detail: str) -> str:
        """The step size collapsed: name NaN in the equations or ill-conditioned constraint rows
        as the likely cause."""
        reason = f"the step size collapsed ({detail})"
        if self.nonfinite_at is not None:
            reason = (f"the equations of motion became NaN or infinite at t = {self.nonfinite_at:.6g} s "
                      f"(an expression undefined there?); {reason}")
        if not self.course.formulation.n_rows or not np.all(np.isfinite(st.y)):
            return reason
        try:
            self.watch_condition(self.rows_at(st.t, st.y).A, limit=NEAR_SINGULAR_CONDITION)
        except ConstraintFailure as singular:
            return f"{singular}; {reason}"
        except RUN_ERRORS:
            pass
        return reason

    def rows_at(self, t: float, y: np.ndarray):
        f = self.course.formulation
        q, u = f.state_to_qu(t, y)
        return f.constraint_rows(t, q, u, f.system.dynamics(t, q, u))

    def watch_condition(self, A: np.ndarray, limit: float = SINGULAR_CONDITION):
        """Condition number of the constraint rows on their rank at the start; a rank loss
        (a four-bar at a dead point) stops the run naming the rows that become dependent."""
        if not self.rank0:
            return
        s = np.linalg.svd(A, compute_uv=False)
        cond = float(s[0] / s[self.rank0 - 1]) if s[self.rank0 - 1] > 0 else float("inf")
        self.diagnostics["condition_number"] = cond
        self.max_condition = max(self.max_condition, cond)
        if cond > limit:
            U = np.linalg.svd(A, full_matrices=False)[0]
            weights = np.abs(U[:, self.rank0 - 1])
            rows = [self.course.formulation.constraints.row_label(i) for i in np.argsort(-weights)[:3] if weights[i] > 0.1]
            raise ConstraintFailure(f"singular configuration: the constraint rows {', '.join(rows)} lose rank "
                                    f"(condition number {cond:.3g})")
