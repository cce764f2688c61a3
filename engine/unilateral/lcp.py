"""A small linear complementarity problem: λ ≥ 0, w = W λ + a ≥ 0, λᵀ w = 0.

W is the Delassus matrix G X of a few unilateral rows (G the rows, X the formulation's response of
the speeds to unit impulses along them), symmetric positive semidefinite; a is the free normal
speed (impacts: v⁻ + e v⁻, Newton's law) or the free normal acceleration (resting contacts).
With W positive semidefinite the LCP has a solution and w is unique (Cottle, Pang & Stone 1992,
Thm 3.1.7). Up to ENUMERATE_UP_TO rows every active set is tried, smallest first (exact); beyond,
the equivalent bound-constrained least squares (W = L Lᵀ: min ½ λᵀWλ + aᵀλ over λ ≥ 0 is
min ‖Lᵀλ + L⁻¹a‖ over λ ≥ 0) goes to Lawson and Hanson's active-set NNLS, and projected
Gauss–Seidel is the last resort. (Enumerating every active set of a robot's many joint limits costs
2^k least-squares solves at each restart.)
"""
from __future__ import annotations

import itertools

import numpy as np

ENUMERATE_UP_TO = 4
PGS_ITERATIONS = 10_000


class LCPFailure(ArithmeticError):
    """No λ satisfies the complementarity conditions to the tolerance."""


def solve_lcp(W: np.ndarray, a: np.ndarray, tol: float) -> np.ndarray:
    """λ with λ ≥ −tol, Wλ + a ≥ −tol and λᵀ(Wλ + a) ≈ 0 (`tol` in the units of a)."""
    k = a.shape[0]
    if k == 0 or np.all(a >= -tol):
        return np.zeros(k)
    if k <= ENUMERATE_UP_TO:
        order = sorted(range(k), key=lambda i: a[i])  # the most negative rows are likeliest active
        for size in range(1, k + 1):
            for active in itertools.combinations(order, size):
                lam = _with_active(W, a, list(active))
                if lam is not None and _holds(W, a, lam, tol):
                    return lam
    lam = _bounded_least_squares(W, a)
    if lam is not None and _holds(W, a, lam, tol):
        return lam
    lam = _projected_gauss_seidel(W, a, tol)
    if not _holds(W, a, lam, 10 * tol):
        raise LCPFailure(f"no contact impulse satisfies the {k} complementarity conditions")
    return lam


def _with_active(W, a, active):
    lam = np.zeros(a.shape[0])
    sub = W[np.ix_(active, active)]
    sol, *_ = np.linalg.lstsq(sub, -a[active], rcond=1e-12)
    lam[active] = sol
    return lam if np.all(np.isfinite(lam)) else None


def _holds(W, a, lam, tol) -> bool:
    w = W @ lam + a
    return bool(np.all(lam >= -tol * max(1.0, float(np.max(np.abs(lam), initial=0.0)))) and np.all(w >= -tol))


def _bounded_least_squares(W, a):
    from scipy.optimize import nnls  # on first use: scipy.optimize stays off the run's start

    scale = float(np.max(np.abs(np.diag(W)), initial=0.0)) or 1.0
    try:  # W is positive semidefinite; a shift at rounding level makes its Cholesky factor exist
        L = np.linalg.cholesky(W + 1e-13 * scale * np.eye(W.shape[0]))
    except np.linalg.LinAlgError:
        return None
    lam, _ = nnls(L.T, -np.linalg.solve(L, a), maxiter=50 * W.shape[0])
    return lam if np.all(np.isfinite(lam)) else None


def _projected_gauss_seidel(W, a, tol):
    lam = np.zeros(a.shape[0])
    diag = np.diag(W).copy()
    diag[diag <= 0] = 1.0
    for _ in range(PGS_ITERATIONS):
        change = 0.0
        for i in range(a.shape[0]):
            new = max(0.0, lam[i] - (W[i] @ lam + a[i]) / diag[i])
            change = max(change, abs(new - lam[i]))
            lam[i] = new
        if change < 1e-3 * tol:
            break
    return np.maximum(lam, 0.0)
