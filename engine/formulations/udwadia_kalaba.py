"""The Udwadia–Kalaba equations, THEORY.md (5.3) (Proc. R. Soc. A 439 (1992) 407–410).

    q_ddot = a + G (A G)⁺ (b − A a),   a = M⁻¹ (Q − h),   G Gᵀ = M⁻¹ (G = L⁻ᵀ, M = L Lᵀ)

The Moore–Penrose inverse (singular values below PINV_RTOL × the largest are cut) makes
redundant but consistent constraints harmless. The reaction is Q_c = L (A G)⁺ (b − A a) and the
multipliers are the minimum-norm λ with Aᵀλ = Q_c. Diagnostics give seed 002's tensor split:
W = W_K + W_L in the kinetic metric, with R_L = 0 for ideal constraints (3.11).

A singular M (massless frames, e.g. in absolute coordinates) is admissible when [M; A] has full
column rank (Udwadia & Phohomsiri, Proc. R. Soc. A 462 (2006) 2097–2117): with
M̂ = M + AᵀA and Q̂ = Q − h + Aᵀb the same equations hold (A q̈ = b adds Aᵀ(A q̈ − b) = 0),
M̂ is positive definite, and the formula above with M̂, Q̂ gives q̈ and the same λ.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from ..system import SingularMassMatrix
from .base import Formulation

PINV_RTOL = 1e-10
_POTRF, _POTRS, _TRTRS = scipy.linalg.get_lapack_funcs(("potrf", "potrs", "trtrs"), dtype=np.float64)


def _full_rank_multipliers(AG: np.ndarray, residual: np.ndarray):
    """H⁻¹ (b − A a) by Cholesky of the Gram matrix H when A G is well conditioned, else None.

    For full row rank this is exactly the Moore–Penrose form and several times cheaper than an
    SVD; anything near rank deficiency goes to the SVD with its stated cutoff.
    """
    Lh, info = _POTRF(AG @ AG.T, lower=True, clean=False)
    if info != 0:
        return None
    d = np.abs(np.diag(Lh))
    if d.min() <= 1e-6 * d.max():
        return None
    return _POTRS(Lh, residual, lower=True)[0]


def _pinv(X: np.ndarray) -> np.ndarray:
    """Moore–Penrose inverse, singular values below PINV_RTOL × the largest cut."""
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    keep = s > PINV_RTOL * (s[0] if s.size else 0.0)
    return (Vt[keep].T / s[keep]) @ U[:, keep].T


def augmented(M: np.ndarray, forcing: np.ndarray, rows) -> tuple[np.ndarray, np.ndarray]:
    """M̂ = M + AᵀA and Q̂ = forcing + Aᵀb (Udwadia–Phohomsiri): positive definite whenever
    [M; A] has full column rank, and the constrained motion is unchanged."""
    return M + rows.A.T @ rows.A, forcing + rows.A.T @ rows.b


class UdwadiaKalaba(Formulation):
    name = "udwadia_kalaba"

    @property
    def integrates(self):
        return f"q ({self.system.n_q}), u ({self.system.n_u}); reaction Q_c"

    def accelerations(self, dyn, rows, state):
        if rows is None:
            return self.system.free_accelerations(dyn), np.zeros(0), {}
        M, forcing = dyn.M, dyn.forcing
        L, info = _POTRF(M, lower=True, clean=True)
        if info != 0:  # singular M: the augmented form (docstring)
            M, forcing = augmented(dyn.M, dyn.forcing, rows)
            L, info = _POTRF(M, lower=True, clean=True)
        if info != 0:
            raise SingularMassMatrix(self.system.describe_singular_mass(dyn.M))
        a = _POTRS(L, forcing, lower=True)[0]
        # A G with G = L⁻ᵀ: solve L X = Aᵀ, then A G = Xᵀ
        AG = _TRTRS(L, rows.A.T, lower=True)[0].T
        residual = rows.b - rows.A @ a
        lam = _full_rank_multipliers(AG, residual)
        if lam is not None:  # (A G)⁺ = (A G)ᵀ H⁻¹ with H = (A G)(A G)ᵀ = A M⁻¹ Aᵀ
            y = AG.T @ lam
        else:
            AG_pinv = _pinv(AG)
            y = AG_pinv @ residual
            lam = AG_pinv.T @ y
        G_y = _TRTRS(L, y, lower=True, trans=1)[0]  # L⁻ᵀ y
        return a + G_y, lam, {}

    def tensor_split(self, dyn, rows) -> dict:
        """Seed 002's split in the kinetic metric: W = W_K + W_L, Y = Y_K + Y_L, R_K, R_L (= 0)."""
        u_dot, lam, _ = self.accelerations(dyn, rows, None)
        M, forcing = dyn.M, dyn.forcing
        if _POTRF(M, lower=True)[1] != 0:  # singular: the same test and form as `accelerations`
            M, forcing = augmented(M, forcing, rows)
        Minv = np.linalg.inv(M)
        A = rows.A
        H = A @ Minv @ A.T  # Gram matrix of the ε vectors (3.9)–(3.10)
        P_K = Minv @ A.T @ np.linalg.pinv(H, rcond=PINV_RTOL) @ A  # projector onto K
        a = Minv @ forcing
        R = A.T @ lam
        W_K, Y_K, R_K = P_K @ u_dot, P_K @ a, P_K @ (Minv @ R)
        return {
            "W_K": W_K, "W_L": u_dot - W_K,
            "Y_K": Y_K, "Y_L": a - Y_K,
            "R_K": R_K, "R_L": Minv @ R - R_K,
            "gram": H,
        }
