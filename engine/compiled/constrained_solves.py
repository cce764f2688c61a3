"""Compiled (numba) solves of the constrained formulations on small dense matrices, one function per
formulation, each the same equations (and the same decisions, with the same tolerances passed in) as its
numpy counterpart in engine.formulations; engine.compiled.constrained_kernels forms M, the forcing and the
rows and calls them.

A solve returns False where its numpy counterpart would take another branch (an SVD for rank-deficient
rows, an error for a singular matrix): the caller then takes the numpy path, which decides and names the
cause, so the compiled path is never worse than the reference.

Imported only in the thread that compiles the kernels (engine.compiled.compiled_step).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

JIT = dict(cache=True, nogil=True, error_model="numpy")


# --- small dense linear algebra ----------------------------------------------------------------------------


@njit(**JIT)
def cholesky(M, L, rtol) -> bool:
    """L (lower) with L Lᵀ = M; False when a pivot is not positive or the smallest pivot² is below
    rtol × M's largest diagonal entry (rtol 0: any positive pivot), as
    engine.formulations.udwadia_kalaba.cholesky decides."""
    n = M.shape[0]
    top = 0.0
    for i in range(n):
        top = max(top, M[i, i])
    for j in range(n):
        d = M[j, j]
        for k in range(j):
            d -= L[j, k] * L[j, k]
        if not d > 0.0 or d < rtol * top:
            return False
        d = math.sqrt(d)
        L[j, j] = d
        for i in range(j + 1, n):
            s = M[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / d
        for i in range(j):
            L[i, j] = 0.0
    return True


@njit(**JIT)
def forward(L, x):
    """x ← L⁻¹ x (L lower)."""
    n = L.shape[0]
    for i in range(n):
        for k in range(i):
            x[i] -= L[i, k] * x[k]
        x[i] /= L[i, i]


@njit(**JIT)
def forward_rows(L, X):
    """X ← X L⁻ᵀ, row by row (each row x ← L⁻¹ x; L lower)."""
    for r in range(X.shape[0]):
        forward(L, X[r])


@njit(**JIT)
def backward_transposed(L, x):
    """x ← L⁻ᵀ x (L lower)."""
    n = L.shape[0]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            x[i] -= L[k, i] * x[k]
        x[i] /= L[i, i]


@njit(**JIT)
def lu_factor(A, piv) -> bool:
    """A ← its LU factors in place, partial pivoting (LAPACK getrf's choice of pivots); False on a zero pivot."""
    n = A.shape[0]
    for j in range(n):
        best, at = abs(A[j, j]), j
        for i in range(j + 1, n):
            if abs(A[i, j]) > best:
                best, at = abs(A[i, j]), i
        piv[j] = at
        if best == 0.0:
            return False
        if at != j:
            for k in range(n):
                A[j, k], A[at, k] = A[at, k], A[j, k]
        for i in range(j + 1, n):
            A[i, j] /= A[j, j]
            f = A[i, j]
            for k in range(j + 1, n):
                A[i, k] -= f * A[j, k]
    return True


@njit(**JIT)
def lu_solve(LU, piv, x):
    """x ← A⁻¹ x from `lu_factor`'s LU and pivots."""
    n = LU.shape[0]
    for j in range(n):
        if piv[j] != j:
            x[j], x[piv[j]] = x[piv[j]], x[j]
    for i in range(n):
        for k in range(i):
            x[i] -= LU[i, k] * x[k]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            x[i] -= LU[i, k] * x[k]
        x[i] /= LU[i, i]


@njit(**JIT)
def lu_solve_columns(LU, piv, X):
    """X ← A⁻¹ X, column by column, from `lu_factor`'s LU and pivots."""
    for c in range(X.shape[1]):
        lu_solve(LU, piv, X[:, c])


@njit(**JIT)
def householder(A, V, beta, R):
    """Aᵀ = Q Rm (Householder QR of Aᵀ, A k × n with k ≤ n; LAPACK geqrf's reflectors, worked on A's rows):
    Q = H_0 … H_{k−1}, H_j = I − beta_j v_j v_jᵀ with v_j = V[j] (zero before j), R (k × k) the upper triangle
    of Rm. The last n − k columns of Q span the null space of A (`apply_q`)."""
    k, n = A.shape
    W = A.copy()  # W[c] is column c of Aᵀ
    for j in range(k):
        norm = 0.0
        for i in range(j, n):
            norm += W[j, i] * W[j, i]
        norm = math.sqrt(norm)
        alpha = -norm if W[j, j] >= 0.0 else norm
        for i in range(n):
            V[j, i] = W[j, i] if i >= j else 0.0
        V[j, j] -= alpha
        vv = 0.0
        for i in range(j, n):
            vv += V[j, i] * V[j, i]
        beta[j] = 2.0 / vv if vv > 0.0 else 0.0
        for c in range(j, k):  # W ← H_j W
            s = 0.0
            for i in range(j, n):
                s += V[j, i] * W[c, i]
            s *= beta[j]
            for i in range(j, n):
                W[c, i] -= s * V[j, i]
    for i in range(k):
        for j in range(k):
            R[i, j] = W[j, i] if j >= i else 0.0


@njit(**JIT)
def apply_q(V, beta, x):
    """x ← Q x with Q = H_0 … H_{k−1} from `householder`."""
    n = x.size
    for j in range(beta.size - 1, -1, -1):
        s = 0.0
        for i in range(j, n):
            s += V[j, i] * x[i]
        s *= beta[j]
        for i in range(j, n):
            x[i] -= s * V[j, i]


# --- the formulations' solves ------------------------------------------------------------------------------


@njit(**JIT)
def lagrange(M, f, A, b, u_dot, singular_rtol) -> bool:
    """Lagrange's equations with multipliers, THEORY.md (2.6)–(2.7) and (4.5): the saddle-point system
    [[M, Aᵀ], [A, 0]] [u̇; −λ] = [f; b] by block elimination where M = L Lᵀ is regular (its smallest pivot² at
    least singular_rtol × max diag M, Udwadia–Kalaba's test) and the Schur complement A M⁻¹ Aᵀ well
    conditioned: (A M⁻¹ Aᵀ) λ = b − A M⁻¹ f, u̇ = M⁻¹ (f + Aᵀλ); else by LU with partial pivoting of the whole
    matrix (numpy's solve; engine.formulations.lagrange). A point mass in absolute coordinates has M singular
    up to rounding: a pivot of 1e-16 passed a bare positivity test, and its noise shrank the steps without
    end. False when the whole matrix is singular or the solution is not finite."""
    n, k = M.shape[0], A.shape[0]
    L = np.empty((n, n))
    if cholesky(M, L, singular_rtol):
        X = A.copy()
        forward_rows(L, X)  # X = A L⁻ᵀ: A M⁻¹ Aᵀ = X Xᵀ
        Lh = np.empty((k, k))
        if cholesky(X @ X.T, Lh, 0.0) and _well_conditioned(Lh):
            a = f.copy()
            forward(L, a)  # L⁻¹ f
            lam = b - X @ a
            forward(Lh, lam)
            backward_transposed(Lh, lam)
            y = a + X.T @ lam  # L⁻¹ (f + Aᵀλ)
            backward_transposed(L, y)
            u_dot[:] = y
            return math.isfinite(np.sum(u_dot))
    K = np.zeros((n + k, n + k))
    rhs = np.empty(n + k)
    for i in range(n):
        for j in range(n):
            K[i, j] = M[i, j]
        rhs[i] = f[i]
    for r in range(k):
        for j in range(n):
            K[n + r, j] = A[r, j]
            K[j, n + r] = A[r, j]
        rhs[n + r] = b[r]
    piv = np.empty(n + k, dtype=np.int64)
    if not lu_factor(K, piv):
        return False
    lu_solve(K, piv, rhs)
    for i in range(n):
        u_dot[i] = rhs[i]
    return math.isfinite(np.sum(rhs))


@njit(**JIT)
def _well_conditioned(L) -> bool:
    """A Cholesky factor whose smallest pivot is above 1e-6 × its largest (engine.formulations.udwadia_kalaba's
    test of the Gram matrix before it takes the SVD)."""
    lo, hi = np.inf, 0.0
    for i in range(L.shape[0]):
        lo, hi = min(lo, L[i, i]), max(hi, L[i, i])
    return L.shape[0] == 0 or lo > 1e-6 * hi


@njit(**JIT)
def udwadia_kalaba(M, f, A, b, u_dot, singular_rtol, augmented_rtol) -> bool:
    """The Udwadia–Kalaba equation, THEORY.md (5.3): u̇ = a + G (A G)⁺ (b − A a), a = M⁻¹ f, G = L⁻ᵀ
    (M = L Lᵀ), with (A G)⁺ = (A G)ᵀ H⁻¹, H = (A G)(A G)ᵀ, for A G well conditioned; a singular M (smallest
    pivot² below singular_rtol × max diag M) replaced by M̂ = M + s AᵀA, f by f + s Aᵀb (Udwadia & Phohomsiri
    2006), as engine.formulations.udwadia_kalaba decides. False where the numpy path takes the SVD (A G
    near rank deficiency) or raises (M̂ singular)."""
    n, k = M.shape[0], A.shape[0]
    L = np.empty((n, n))
    a = f.copy()
    if not cholesky(M, L, singular_rtol):
        top_M, top_A = 0.0, 0.0
        AtA = A.T @ A
        for i in range(n):
            top_M, top_A = max(top_M, M[i, i]), max(top_A, AtA[i, i])
        s = top_M / top_A if top_M > 0.0 and top_A > 0.0 else 1.0
        Mh = M + s * AtA
        a += s * (A.T @ b)
        if not cholesky(Mh, L, augmented_rtol):
            return False
    forward(L, a)
    backward_transposed(L, a)  # a = M⁻¹ f
    X = A.copy()
    forward_rows(L, X)  # A G = A L⁻ᵀ = X
    H = X @ X.T
    Lh = np.empty((k, k))
    if not cholesky(H, Lh, 0.0) or not _well_conditioned(Lh):
        return False
    lam = b - A @ a
    forward(Lh, lam)
    backward_transposed(Lh, lam)
    y = X.T @ lam  # (A G)ᵀ λ
    backward_transposed(L, y)  # G y = L⁻ᵀ y
    for i in range(n):
        u_dot[i] = a[i] + y[i]
    return math.isfinite(np.sum(u_dot))


@njit(**JIT)
def projected(H, rhs, CN, u_p, u_dot) -> bool:
    """u̇ = CN w + u_p with H w = rhs, H = (CN)ᵀ M (CN) the reduced mass matrix (Cholesky); False when H is
    not positive definite (the numpy path names it)."""
    l = H.shape[0]
    L = np.empty((l, l))
    if not cholesky(H, L, 0.0):
        return False
    w = rhs.copy()
    forward(L, w)
    backward_transposed(L, w)
    u_dot[:] = CN @ w + u_p
    return math.isfinite(np.sum(u_dot))


@njit(**JIT)
def partition_factor(A, sel, dep, indep, LU, piv, X) -> bool:
    """Coordinate partitioning of the rows sel of A (engine.formulations.reduced): LU of A_d = A[sel][:, dep]
    and X = A_d⁻¹ A_i, so that u_d = −X u_i."""
    m = sel.size
    for r in range(m):
        for c in range(m):
            LU[r, c] = A[sel[r], dep[c]]
        for c in range(indep.size):
            X[r, c] = A[sel[r], indep[c]]
    if not lu_factor(LU, piv):
        return False
    lu_solve_columns(LU, piv, X)
    return True


@njit(**JIT)
def partitioned_basis(n, dep, indep, X, LU, piv, b_sel, C, p):
    """C = [I; −X] in the speeds' order and p with p_d = A_d⁻¹ b_L, p_i = 0: u̇ = C u̇_i + p satisfies the
    partition rows (engine.formulations.reduced, THEORY.md (4.6)–(4.11))."""
    C[:, :] = 0.0
    for j in range(indep.size):
        C[indep[j], j] = 1.0
        for r in range(dep.size):
            C[dep[r], j] = -X[r, j]
    pd = b_sel.copy()
    lu_solve(LU, piv, pd)
    p[:] = 0.0
    for r in range(dep.size):
        p[dep[r]] = pd[r]


@njit(**JIT)
def orthonormal_basis(A_R, b_R, scale, rank_rtol, N, w_p) -> bool:
    """N, an orthonormal basis of A_R's null space, and w_p with A_R w_p = b_R, from Aᵀ = Q Rm (Maggi's
    acceleration-level rows, THEORY.md (4.6)–(4.11); engine.formulations.reduced's acceleration_basis_for):
    N = Q[:, k:], w_p = Q[:, :k] z with Rmᵀ z = b_R. False where the numpy path takes the SVD (k > n or
    a diagonal entry of Rm below 1e3 rank_rtol × max(its largest, scale))."""
    k, n = A_R.shape
    if k > n:
        return False
    V = np.empty((k, n))
    beta = np.empty(k)
    R = np.empty((k, k))
    householder(A_R, V, beta, R)
    lo, hi = np.inf, 0.0
    for i in range(k):
        lo, hi = min(lo, abs(R[i, i])), max(hi, abs(R[i, i]))
    if k and not lo > 1e3 * rank_rtol * max(hi, scale):
        return False
    w_p[:] = 0.0
    for i in range(k):  # Rᵀ z = b: forward substitution on the lower triangle Rᵀ; w_p = Q (z; 0)
        z = b_R[i]
        for c in range(i):
            z -= R[c, i] * w_p[c]
        w_p[i] = z / R[i, i]
    apply_q(V, beta, w_p)
    e = np.empty(n)
    for c in range(n - k):  # N = Q [0; I]
        e[:] = 0.0
        e[k + c] = 1.0
        apply_q(V, beta, e)
        N[:, c] = e
    return True
