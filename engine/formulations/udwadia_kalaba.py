"""The Udwadia–Kalaba equations, THEORY.md (5.3) (Proc. R. Soc. A 439 (1992) 407–410).

    q_ddot = a + G (A G)⁺ (b − A a),   a = M⁻¹ (Q − h),   G Gᵀ = M⁻¹ (G = L⁻ᵀ, M = L Lᵀ)

The Moore–Penrose inverse (singular values below PINV_RTOL × the largest are cut) makes
redundant but consistent constraints harmless. The reaction is Q_c = L (A G)⁺ (b − A a) and the
multipliers are the minimum-norm λ with Aᵀλ = Q_c. Diagnostics give the tensor split of Byachkov & Yushkov 2011 (THEORY.md §3):
W = W_K + W_L in the kinetic metric, with R_L = 0 for ideal constraints (3.11).

A singular M (massless frames, point masses in absolute coordinates) is admissible when [M; A]
has full column rank (Udwadia & Phohomsiri, Proc. R. Soc. A 462 (2006) 2097–2117): with
M̂ = M + s AᵀA and Q̂ = Q − h + s Aᵀb the same equations hold for any s > 0 (A q̈ = b adds
s Aᵀ(A q̈ − b) = 0), M̂ is positive definite, and the formula above with M̂, Q̂ gives q̈ and the
same λ. s = max diag M / max diag AᵀA puts both terms on one scale.

Which form runs is decided with a tolerance, never by rounding: Cholesky of M is used when its
smallest pivot² is at least SINGULAR_RTOL × M's largest diagonal entry; below that (cond(M) > 1e8)
M counts as singular and M̂ runs. A point mass makes M singular in exact arithmetic, and its
computed M has a last pivot² of ±1e-16 that rounding (numpy's sums or pinocchio's recursions)
puts on either side of zero: deciding by LAPACK's "positive or not" made the compiled path take a
pivot of 1e-8 at some steps and M̂ at others, and its steps shrank to 1e-10 s. M̂ is refused
(SingularMassMatrix) when its pivot² is below AUGMENTED_RTOL: [M; A] is then rank deficient.

Impulsive form (Udwadia & Kalaba's fundamental equation for impulsive constraints, the same
correction applied to the jump; Udwadia & Kalaba, Analytical Dynamics, 1996, §5): an impulse Q̂
alone would give the jump Δa = M⁻¹ Q̂; the constraints A Δq̇ = 0 add the minimum-norm correction in
the kinetic metric,

    Δq̇ = Δa + G (A G)⁺ (0 − A Δa),   G Gᵀ = M⁻¹     (`impulse_response`; M̂ where M is singular)
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.lazy_imports import lapack_routines
from eomlab.engine.mechanics.system import SingularMassMatrix
from eomlab.engine.formulations.formulation import Formulation

PINV_RTOL = 1e-10
#: M counts as singular when its smallest Cholesky pivot² < SINGULAR_RTOL × max diag M (docstring)
SINGULAR_RTOL = 1e-8
#: M̂ = M + s AᵀA is refused when its smallest pivot² < AUGMENTED_RTOL × max diag M̂ ([M; A] rank deficient)
AUGMENTED_RTOL = 1e-13
_POTRF, _POTRS, _TRTRS = lapack_routines("potrf", "potrs", "trtrs")


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


def cholesky(M: np.ndarray, rtol: float):
    """The lower Cholesky factor of M, or None when M is not positive definite or its smallest
    pivot² is below rtol × its largest diagonal entry (a decision rounding cannot flip)."""
    L, info = _POTRF(M, lower=True, clean=True)
    if info != 0:
        return None
    pivots = np.diag(L)
    if pivots.size and pivots.min() ** 2 < rtol * float(np.max(np.diag(M))):
        return None
    return L


def augmented(M: np.ndarray, forcing: np.ndarray, rows) -> tuple[np.ndarray, np.ndarray]:
    """M̂ = M + s AᵀA and Q̂ = forcing + s Aᵀb (Udwadia–Phohomsiri): positive definite whenever
    [M; A] has full column rank, and the constrained motion is unchanged; s = max diag M /
    max diag AᵀA (1 when either is 0)."""
    A = rows.A
    AtA = A.T @ A
    top_M, top_A = float(np.max(np.diag(M), initial=0.0)), float(np.max(np.diag(AtA), initial=0.0))
    s = top_M / top_A if top_M > 0.0 and top_A > 0.0 else 1.0
    return M + s * AtA, forcing + s * (A.T @ rows.b)


def factored(M: np.ndarray, forcing: np.ndarray, rows):
    """(L, M or M̂, forcing or Q̂): Cholesky of M when it is regular, else of M̂; L None when M̂ is
    singular too. The one decision both `accelerations` and `tensor_split` take."""
    L = cholesky(M, SINGULAR_RTOL)
    if L is None:  # singular M: the augmented form (module docstring)
        M, forcing = augmented(M, forcing, rows)
        L = cholesky(M, AUGMENTED_RTOL)
    return L, M, forcing


class _ImpulseRows:
    """Velocity-level rows with b = 0, as `factored` reads them."""

    def __init__(self, A):
        self.A, self.b = A, np.zeros(A.shape[0])


class UdwadiaKalaba(Formulation):
    name = "udwadia_kalaba"

    @property
    def integrates(self):
        return f"q ({self.system.n_q}), u ({self.system.n_u}); reaction Q_c"

    def accelerations(self, dyn, rows, state):
        if rows is None:
            return self.system.free_accelerations(dyn), np.zeros(0), {}
        L, M, forcing = factored(dyn.M, dyn.forcing, rows)
        if L is None:  # name the speed that neither mass nor a constraint row holds: M̂'s null space
            raise SingularMassMatrix(self.system.describe_singular_mass(M))
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

    def impulse_response(self, ev, Q):
        """Δq̇ = Δa + G (A G)⁺ (−A Δa), Δa = M⁻¹ Q̂ (the module docstring), per column of Q."""
        A = self.impulse_rows(ev.rows)
        M = ev.dynamics.M
        if A is None:
            return np.linalg.solve(M, Q)
        L, M, _ = factored(M, np.zeros(M.shape[0]), _ImpulseRows(A))  # b = 0: Q̂ is unchanged by M̂
        if L is None:
            raise SingularMassMatrix(self.system.describe_singular_mass(M))
        a = _POTRS(L, Q, lower=True)[0]
        AG = _TRTRS(L, A.T, lower=True)[0].T
        y = _pinv(AG) @ (-(A @ a))
        return a + _TRTRS(L, y, lower=True, trans=1)[0]

    def tensor_split(self, dyn, rows) -> dict:
        """The split of Byachkov & Yushkov 2011 in the kinetic metric: W = W_K + W_L, Y = Y_K + Y_L, R_K, R_L (= 0)."""
        u_dot, lam, _ = self.accelerations(dyn, rows, None)
        _, M, forcing = factored(dyn.M, dyn.forcing, rows)  # the same decision and form as `accelerations`
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
