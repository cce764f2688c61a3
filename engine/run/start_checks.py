"""What a run checks before its first step: a finite start, initial conditions projected onto the
constraints (and by how much), constraint rows that are redundant (named) or inconsistent (refused),
and their condition number. Functions of what they check; `Simulation` keeps what they find (its
notes, the rank and condition number of the rows at the start)."""
from __future__ import annotations

import math

import numpy as np

from contextlib import contextmanager

from eomlab.engine.constraints import HOLONOMIC
from eomlab.engine.formulations import FORMULATIONS, ConstraintFailure
from eomlab.engine.kinematics import GimbalLock
from eomlab.engine.formulations.rank import condition_number, dependent_rows, numerical_rank
from eomlab.engine.model import ModelError
from eomlab.engine.mechanics.projection import ProjectionFailure, _rows as constraint_residuals, project_positions, project_velocities
from eomlab.engine.mechanics.system import SingularMassMatrix


# a run asking for more samples or fixed steps than these would never end (or fill the memory)
MAX_RUN_SAMPLES = 10**7
MAX_FIXED_STEPS = 10**9
RUN_ERRORS = (SingularMassMatrix, ConstraintFailure, GimbalLock, ProjectionFailure, ArithmeticError,
              np.linalg.LinAlgError, ValueError, FloatingPointError)


def check_run_length(settings) -> None:
    """Refuse settings whose run could not end: too many samples, or fixed steps."""
    samples = settings.t_end / settings.dt_out
    if samples > MAX_RUN_SAMPLES:
        raise ModelError("settings.dt_out", f"t_end / dt_out = {samples:.3g} samples is too many (at most "
                         f"{MAX_RUN_SAMPLES:.0e}); use a larger dt_out or a shorter t_end")
    steps = settings.t_end / settings.dt
    if settings.integrator == "RK4" and steps > MAX_FIXED_STEPS:
        raise ModelError("settings.dt", f"t_end / dt = {steps:.3g} fixed steps is too many (at most "
                         f"{MAX_FIXED_STEPS:.0e}); use a larger dt or a shorter t_end")


@contextmanager
def refused_at_start():
    """Whatever fails before the first sample is bad input: a ModelError naming t = 0, never a
    traceback or numpy's warnings (non-finite values are named by the checks they reach)."""
    try:
        with np.errstate(all="ignore"):
            yield
    except ModelError:
        raise
    except (SingularMassMatrix, GimbalLock) as err:
        raise ModelError("bodies", f"at t = 0: {err}") from None
    except (ConstraintFailure, ProjectionFailure) as err:
        raise ModelError("constraints", f"at t = 0: {err}") from None
    except RUN_ERRORS as err:
        raise ModelError("", f"at t = 0: the equations of motion cannot be evaluated ({err}): "
                         "a number of the model out of range?") from None


def check_finite_start(columns, first: np.ndarray) -> None:
    """A start that overflows (u0 = 1e300 gives T = inf) is refused, not run or kept."""
    bad = [name for name, v in zip(columns, first) if not math.isfinite(float(v))]
    if bad:
        shown = ", ".join(bad[:4]) + (", …" if len(bad) > 4 else "")
        raise ModelError("bodies", f"at t = 0: the initial state gives non-finite {shown} (overflow): "
                         "initial conditions, masses or lengths out of range")


def consistent_initial_state(system, notes: list[str]):
    """q0, u0 of `system` projected onto the constraints; how far they moved goes into `notes`."""
    q0, u0 = system.q0.copy(), system.u0.copy()
    if system.kin.quaternion_joints:
        q_unit = system.kin.normalised(q0)
        dp = float(np.max(np.abs(q_unit - q0)))
        if dp > 1e-12:
            notes.append(f"Euler parameters normalised to e·e = 1: |Δq| = {dp:.3g}")
        q0 = q_unit
    if system.constraints is None:
        return q0, u0
    try:
        q1, _ = project_positions(system, 0.0, q0, tol=1e-13)
        u1, _ = project_velocities(system, 0.0, q1, u0, tol=1e-13)
    except (ProjectionFailure, np.linalg.LinAlgError, SingularMassMatrix) as err:
        unmet = unmet_rows(system, q0, u0)
        which = f"the constraint rows {', '.join(unmet)} cannot all hold; " if unmet else ""
        raise ModelError("constraints", f"the initial conditions cannot be made consistent: {which}{err}") from None
    dq, du = float(np.max(np.abs(q1 - q0), initial=0)), float(np.max(np.abs(u1 - u0), initial=0))
    if dq > 1e-12 or du > 1e-12:
        notes.append(f"initial conditions projected onto the constraints: |Δq| = {dq:.3g}, |Δu| = {du:.3g}")
    return q1, u1


def unmet_rows(system, q, u, limit: int = 4) -> list[str]:
    """Labels of the constraint rows with the largest residuals at (q, u), for messages."""
    try:
        rows, _ = constraint_residuals(system, 0.0, q, u)
    except (ArithmeticError, np.linalg.LinAlgError, ValueError):
        return []
    residual = np.zeros(rows.A.shape[0])
    residual[rows.velocity_rows] = np.abs(rows.velocity)
    holonomic = np.flatnonzero(rows.level == HOLONOMIC)
    residual[holonomic] = np.maximum(residual[holonomic], np.abs(rows.position))
    order = [i for i in np.argsort(-residual) if residual[i] > 1e-9][:limit]
    return [system.constraints.row_label(int(i)) for i in order]


def check_rows_at_start(f, y0, notes: list[str]) -> tuple[int, float] | None:
    """The constraint rows of formulation `f` at y0: redundant ones named (in `notes`, or refused
    where `f` needs independent rows), inconsistent ones refused; (rank, condition number), or
    None without rows."""
    if not f.n_rows:
        return None
    q, u = f.state_to_qu(0.0, y0)
    dyn = f.system.dynamics(0.0, q, u)
    rows = f.constraint_rows(0.0, q, u, dyn)
    A, b = rows.A, rows.b
    r = numerical_rank(A)
    if r < A.shape[0]:
        dep = dependent_rows(A)
        names = ", ".join(f.constraints.row_label(i) for i in dep)
        if numerical_rank(np.column_stack((A, b))) > r:
            raise ModelError("constraints", f"inconsistent constraints: rows {names} cannot all hold (rank of A is {r} of {A.shape[0]})")
        if not f.handles_redundant:
            raise ModelError("constraints", f"redundant constraint rows (rank {r} of {A.shape[0]}): {names}; "
                             f"{f.name} needs independent rows, {_handling_redundant_rows()} handle them")
        notes.append(f"redundant constraint rows (rank {r} of {A.shape[0]}): {names}; {f.name} handles them")
    return r, condition_number(A)


def _handling_redundant_rows() -> str:
    return ", ".join(key for key, cls in FORMULATIONS.items() if cls.handles_redundant)
