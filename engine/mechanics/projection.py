"""Projection onto the constraints: least squares in the mass metric (Gauss–Newton).

Positions: δq = W δu with δu = −M⁻¹ A_hᵀ (A_h M⁻¹ A_hᵀ)⁺ Φ (A_h: rows of the holonomic
constraints, Φ their residuals); Euler parameters are scaled back to e·e = 1 (the nearest point,
which changes no pose, so the other rows do not notice). Velocities: u ← u − M⁻¹ Aᵀ (A M⁻¹ Aᵀ)⁺ ψ(u) over every
velocity-level row. The pseudo-inverse keeps redundant rows harmless.
"""
from __future__ import annotations

import numpy as np
from eomlab.engine.lazy_imports import scipy_linalg

from eomlab.engine.constraints import HOLONOMIC, StateContext


class ProjectionFailure(ArithmeticError):
    pass


def _rows(system, t, q, u):
    ks = system.kinematic_state(q, u)  # pinocchio's on the compiled path
    W = system.rate_matrix(q) if system.has_body_rates else None
    qd = W @ u if W is not None else u
    return system.constraints.evaluate(StateContext(t=t, q=q, u=u, qd=qd, W=W, ks=ks)), W


def _metric_step(M, A, residual):
    """The least-squares step in the mass metric; a singular M (massless frames) is replaced by
    M + AᵀA, which has the same minimiser on A δu = residual (the added term is constant there)."""
    try:
        factor = scipy_linalg.cho_factor(M)
    except np.linalg.LinAlgError:
        factor = scipy_linalg.cho_factor(M + A.T @ A)
    Minv_At = scipy_linalg.cho_solve(factor, A.T)
    return -Minv_At @ (np.linalg.pinv(A @ Minv_At, rcond=1e-12) @ residual)


def project_positions(system, t, q, tol=1e-12, max_iter=30):
    """q on Φ(q, t) = 0; returns (q, iterations). Raises ProjectionFailure when it stalls."""
    q = system.kin.normalised(q)
    zero = np.zeros(system.n_u)
    for it in range(max_iter + 1):
        rows, W = _rows(system, t, q, zero)
        holo = np.flatnonzero(rows.level == HOLONOMIC)
        if holo.size == 0 or np.max(np.abs(rows.position)) <= tol:
            return q, it
        if it == max_iter:
            break
        M = system.mass_matrix(q)
        du = _metric_step(M, rows.A[holo], rows.position)
        q = system.kin.normalised(q + (W @ du if W is not None else du))
    raise ProjectionFailure(
        f"projection onto the position constraints did not converge in {max_iter} iterations "
        f"(residual {np.max(np.abs(rows.position)):.3g}); the configuration may be near a singular one"
    )


def project_velocities(system, t, q, u, tol=1e-12, max_iter=10):
    """u on the velocity-level rows (holonomic rows differentiated and first-order rows)."""
    u = np.array(u, float)
    M = system.mass_matrix(q)
    for it in range(max_iter + 1):
        rows, _ = _rows(system, t, q, u)
        if rows.velocity.size == 0 or np.max(np.abs(rows.velocity)) <= tol:
            return u, it
        if it == max_iter:
            break
        u = u + _metric_step(M, rows.A[rows.velocity_rows], rows.velocity)
    raise ProjectionFailure(
        f"projection onto the velocity constraints did not converge (residual {np.max(np.abs(rows.velocity)):.3g})"
    )


def projected_state(f, t, y, tol: float, quaternions: bool):
    """The state y of formulation `f` projected onto its constraints when they drift beyond `tol`
    (and Euler parameters scaled back to e·e = 1 when `quaternions`); None when nothing drifted."""
    q, u = f.state_to_qu(t, y)
    normalised = None  # Euler parameters scaled back to e·e = 1: the pose does not change
    if quaternions and np.max(np.abs(f.system.kin.normalisation_residuals(q))) > tol:
        q = f.system.kin.normalised(q)
        normalised = f.qu_to_state(q, u)
    if not f.n_rows:
        return normalised
    dyn = f.system.dynamics(t, q, u)
    rows = f.constraint_rows(t, q, u, dyn)
    if rows.drift_position <= tol and rows.drift_velocity <= tol:
        return normalised
    q, _ = project_positions(f.system, t, q, tol=tol * 1e-2)
    u, _ = project_velocities(f.system, t, q, u, tol=tol * 1e-2)
    return f.qu_to_state(q, u)
