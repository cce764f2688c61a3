"""Posing a mechanism by one of its points: the coordinates that bring a body-fixed point as near
as the joints and constraints allow to a target (a mouse dragging a body).

Damped least squares (Levenberg–Marquardt) on |P(q) − target|², with each step kept in the null
space of the holonomic constraint rows (A δu = 0) and the pose projected back onto Φ(q) = 0 after
it, so a closed loop stays closed at every iterate:

    δu = N (Jₙᵀ Jₙ + μ² I)⁻¹ Jₙᵀ (target − P),   Jₙ = J_P N,   N = null(A_holonomic)

A target out of reach gives the reachable pose nearest to it (the arm points at it).
"""
from __future__ import annotations

import numpy as np
from eomlab.engine.lazy_imports import scipy_linalg

from eomlab.engine.constraints import HOLONOMIC
from eomlab.engine.forcing.generalized_forces import _body_index, _world_point
from eomlab.engine.mechanics.projection import _rows as constraint_rows, project_positions

#: damping of the least-squares step, relative to the largest singular value of Jₙ
DAMPING = 1e-3
#: the largest change of any speed coordinate in one iteration (rad or m): keeps the iterates near
MAX_STEP = 0.25
MAX_ITERATIONS = 200
#: the point stops when an iteration moves it less than this (m)
TOLERANCE = 1e-12


def _step_space(system, t: float, q: np.ndarray) -> np.ndarray:
    """(n_u, k) basis of the speeds that keep the holonomic constraints (all speeds without any)."""
    if system.constraints is None:
        return np.eye(system.n_u)
    rows, _ = constraint_rows(system, t, q, np.zeros(system.n_u))
    holonomic = np.flatnonzero(rows.level == HOLONOMIC)
    if holonomic.size == 0:
        return np.eye(system.n_u)
    return scipy_linalg.null_space(rows.A[holonomic], rcond=1e-10)


def pose_reaching(system, t: float, q, body: str, point, target) -> np.ndarray:
    """Coordinates near q that put `point` (body frame, from the body's origin) of `body` as close
    to the world point `target` as the joints and the constraints allow; on the constraints."""
    kin = system.kin
    index = _body_index(kin, body)
    point, target = np.asarray(point, float), np.asarray(target, float)
    q = np.array(q, dtype=float)
    for _ in range(MAX_ITERATIONS):
        ks = kin.positions(q)
        P = _world_point(kin, ks, index, point)
        N = _step_space(system, t, q)
        if N.shape[1] == 0:
            break  # nothing can move
        Jn = kin.point_jacobian(ks, index, P) @ N
        s_max = np.linalg.norm(Jn, 2)
        if s_max == 0.0:
            break  # the point does not move with any coordinate
        mu = DAMPING * s_max
        z = np.linalg.solve(Jn.T @ Jn + mu**2 * np.eye(Jn.shape[1]), Jn.T @ (target - P))
        du = N @ z
        largest = float(np.max(np.abs(du)))
        if largest > MAX_STEP:
            du *= MAX_STEP / largest
        W = kin.rate_matrix(q) if system.has_body_rates else None
        q_next = kin.normalised(q + (W @ du if W is not None else du))
        if system.constraints is not None:
            q_next, _ = project_positions(system, t, q_next, tol=1e-13)
        moved = np.linalg.norm(_world_point(kin, kin.positions(q_next), index, point) - P)
        q = q_next
        if moved < TOLERANCE:
            break
    return q
