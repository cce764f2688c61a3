"""A constrained right-hand side in one compiled (numba) call: loop closures (coincident and distance
constraints between points on bodies), rolling disks and knife edges on a FlatTree (engine.compiled.kernel_model:
joint coordinates, one revolute or prismatic joint per speed), for every formulation.

At the state y the kernel forms, in the world frame at the world origin as numba_kernels' ABA does:

- the joints' poses and motion subspaces Sw (numba_kernels._outwards), velocities v_i = v_λ + Sw_i u_i and
  velocity-product accelerations c_i = v_i ×ₘ Sw_i u_i;
- M by the composite-rigid-body algorithm (Featherstone 2008, §6.2): I^c_i = I_i + Σ_children I^c,
  M_ij = Sw_jᵀ I^c_i Sw_i for j an ancestor of i or i itself;
- the velocity products C and the gravity forces G by the recursive Newton–Euler algorithm (Featherstone
  2008, §5.3) with u̇ = 0: a_i = a_λ + c_i from a resting ground, f_i = I_i a_i + v_i ×* I_i v_i, and
  f^g_i = I_i (g; 0), summed inwards, C_i = Sw_iᵀ f_i, G_i = Sw_iᵀ f^g_i; forcing = G − C;
- every constraint row's A, Φ and bias b with Baumgarte's terms (engine.compiled.row_kernels);

and then the formulation's own solve (engine.compiled.constrained_solves). `dop853_attempt` takes whole DOP853
step attempts on it as numba_kernels' does on the free tree (scipy's tableau, error norm and step control;
a stage the kernel does not hold ends the attempt as NONFINITE, and scipy's Python step retakes it). The reduced formulations' state
is (q, u_i): u_d = −A_d⁻¹ A_i u_i from the partition the numpy path chose (its `partition` arrays); rows
outside that partition (Maggi's holonomic rows beside first-order ones) stay at the acceleration level.

Imported only in the thread that compiles the kernels (engine.compiled.compiled_step).
"""
from __future__ import annotations


import numpy as np
from numba import njit

from eomlab.engine.compiled import constrained_solves as solves
from eomlab.engine.compiled.row_kernels import point_motion, point_positions, row_bias, row_matrix
from eomlab.engine.compiled.numba_kernels import (ACCEPTED, NONFINITE, TOO_SMALL, _cross_force, _cross_motion,
                                                  _outwards, _stage_state, error_estimate, step_factor, workspace)

JIT = dict(cache=True, nogil=True, error_model="numpy")

#: the formulations' codes: their places in engine.methods.METHODS (engine.compiled.constrained_rhs passes them)
LAGRANGE, MAGGI, UDWADIA_KALABA, KANE, GIBBS_APPELL = range(5)


@njit(**JIT)
def _velocities(parents, Sw, Ib, u, v, c, pA):
    """v_i, c_i = v_i ×ₘ Sw_i u_i and the bias force v_i ×* (I_i v_i) of every joint's bodies."""
    h = np.empty(6)
    for i in range(u.size):
        lam = parents[i]
        for r in range(6):
            v[i, r] = Sw[i, r] * u[i] + (v[lam, r] if lam >= 0 else 0.0)
        _cross_motion(v[i], Sw[i], c[i])
        for r in range(6):
            c[i, r] *= u[i]
        for r in range(6):
            acc = 0.0
            for k in range(6):
                acc += Ib[i, r, k] * v[i, k]
            h[r] = acc
        _cross_force(v[i], h, pA[i])


@njit(**JIT)
def tree_terms(parents, gravity, Sw, Ib, c, pA, M, C, G, a):
    """M (CRBA), the velocity products C and the gravity forces G (RNEA at u̇ = 0), and every joint's
    spatial acceleration a at u̇ = 0 from a resting ground (module docstring). M's entries of two joints on
    different branches are 0."""
    n = parents.size
    M[:, :] = 0.0
    f = np.empty((n, 6))
    fg = np.empty((n, 6))
    Ic = Ib.copy()
    for i in range(n):
        lam = parents[i]
        for r in range(6):
            a[i, r] = c[i, r] + (a[lam, r] if lam >= 0 else 0.0)
        for r in range(6):
            acc = pA[i, r]
            for k in range(6):
                acc += Ib[i, r, k] * a[i, k]
            f[i, r] = acc
            fg[i, r] = Ib[i, r, 0] * gravity[0] + Ib[i, r, 1] * gravity[1] + Ib[i, r, 2] * gravity[2]
    F = np.empty(6)
    for i in range(n - 1, -1, -1):
        cs, gs = 0.0, 0.0
        for r in range(6):
            cs += Sw[i, r] * f[i, r]
            gs += Sw[i, r] * fg[i, r]
            acc = 0.0
            for k in range(6):
                acc += Ic[i, r, k] * Sw[i, k]
            F[r] = acc
        C[i], G[i] = cs, gs
        j = i
        while j >= 0:
            m = 0.0
            for r in range(6):
                m += Sw[j, r] * F[r]
            M[i, j] = M[j, i] = m
            j = parents[j]
        lam = parents[i]
        if lam >= 0:
            for r in range(6):
                f[lam, r] += f[i, r]
                fg[lam, r] += fg[i, r]
                for k in range(6):
                    Ic[lam, r, k] += Ic[i, r, k]


@njit(**JIT)
def constrained_derivative(tree, pjoint, plocal, rows, lengths, method, sel, dep, indep, gains, tolerances, y, out):
    """out = the state derivative of `method` at y: (q̇ = u, u̇) for Lagrange and Udwadia–Kalaba and for
    Maggi without first-order rows (its holonomic rows stay at the acceleration level), (q̇ = u, u̇_i) for
    Kane, Gibbs–Appell and Maggi with rows eliminated (state (q, u_i), u = C u_i by the partition sel, dep,
    indep; the rows not in sel kept at the acceleration level on an orthonormal basis). tolerances = (Udwadia–Kalaba's
    singular and augmented rtol, the rank rtol). False where the numpy path must decide (module
    docstring of engine.compiled.constrained_solves) or a result is not finite."""
    parents, gravity = tree[0], tree[8]
    n = parents.size
    work = workspace(n)
    R, p, Sw, v, c, IA, pA = work[0], work[1], work[2], work[3], work[4], work[5], work[6]
    q = y[:n]
    u = np.zeros(n)
    _outwards(tree, q, u, work)  # poses, Sw and the bodies' inertias (upper triangles)
    Ib = IA.copy()
    for i in range(n):
        for r in range(1, 6):
            for k in range(r):
                Ib[i, r, k] = Ib[i, k, r]
    k_rows, n_points = rows.shape[0], pjoint.size
    P = np.empty((n_points, 3))
    JP = np.empty((n_points, 3, n))
    point_positions(parents, R, p, Sw, pjoint, plocal, P, JP)
    A = np.empty((k_rows, n))
    phi = np.empty(k_rows)
    if not row_matrix(rows, lengths, parents, Sw, pjoint, P, JP, A, phi):
        return False
    m, l = dep.size, indep.size
    # the state (q, u_i) where rows are eliminated at the velocity level: Kane's and Gibbs–Appell's every
    # row, Maggi's first-order rows (engine.formulations.reduced); else (q, u)
    reduced = (method == KANE or method == GIBBS_APPELL or method == MAGGI) and m > 0
    LU = np.empty((m, m))
    piv = np.empty(m, dtype=np.int64)
    X = np.empty((m, l))
    if reduced:
        if not solves.partition_factor(A, sel, dep, indep, LU, piv, X):
            return False
        for j in range(l):
            u[indep[j]] = y[n + j]
        for r in range(m):
            acc = 0.0
            for j in range(l):
                acc += X[r, j] * y[n + j]
            u[dep[r]] = -acc
    else:
        for j in range(n):
            u[j] = y[n + j]
    _velocities(parents, Sw, Ib, u, v, c, pA)
    M = np.empty((n, n))
    C = np.empty(n)
    G = np.empty(n)
    a = np.empty((n, 6))
    tree_terms(parents, gravity, Sw, Ib, c, pA, M, C, G, a)
    vP = np.empty((n_points, 3))
    aP = np.empty((n_points, 3))
    point_motion(pjoint, P, v, a, vP, aP)
    b = np.empty(k_rows)
    row_bias(rows, lengths, pjoint, v, a, P, vP, aP, A, phi, u, gains, b)
    f = G - C
    u_dot = np.empty(n)
    for j in range(n):
        out[j] = u[j]
    if method == LAGRANGE:
        ok = solves.lagrange(M, f, A, b, u_dot, tolerances[0])
    elif method == UDWADIA_KALABA:
        ok = solves.udwadia_kalaba(M, f, A, b, u_dot, tolerances[0], tolerances[1])
    elif method == MAGGI and not reduced:
        scale = 0.0
        for r in range(k_rows):
            for s in range(n):
                scale = max(scale, abs(A[r, s]))
        N = np.empty((n, n - k_rows)) if k_rows <= n else np.empty((n, 0))
        w_p = np.empty(n)
        if not solves.orthonormal_basis(A, b, scale, tolerances[2], N, w_p):
            return False
        # Maggi's first group, THEORY.md (4.6)–(4.11): Nᵀ (M u̇ − f) = 0 with u̇ = N w + w_p
        ok = solves.projected(N.T @ (M @ N), N.T @ (f - M @ w_p), N, w_p, u_dot)
    else:
        CN = np.empty((n, l))
        u_p = np.empty(n)
        b_sel = np.empty(m)
        for r in range(m):
            b_sel[r] = b[sel[r]]
        solves.partitioned_basis(n, dep, indep, X, LU, piv, b_sel, CN, u_p)
        if k_rows > m:  # rows kept at the acceleration level: u̇_i = N w + w_p on their null space
            CN, u_p = _rest_basis(A, b, sel, CN, u_p, tolerances[2])
            if CN.shape[0] == 0:
                return False
        MC = M @ CN
        H = CN.T @ MC
        if method == GIBBS_APPELL:  # Appell's equations ∂S/∂w = F_r, S = ½ u̇ᵀ M u̇ + Cᵀ u̇ (Gibbs 1879, Appell 1900; engine.formulations.gibbs_appell)
            rhs = CN.T @ G - CN.T @ (M @ u_p + C)
        else:  # Kane's F_r + F*_r = 0 with the nonholonomic partial velocities C (THEORY.md §3), Maggi's first group
            rhs = CN.T @ (f - M @ u_p)
        ok = solves.projected(H, rhs, CN, u_p, u_dot)
        if ok:
            for j in range(l):
                out[n + j] = u_dot[indep[j]]
        return ok
    if ok:
        for j in range(n):
            out[n + j] = u_dot[j]
    return ok


@njit(**JIT)
def _rest_basis(A, b, sel, C, p, rank_rtol):
    """(C N, C w_p + p): the rows not in sel (A_R u̇ = b_R) on u̇ = C u̇_i + p, by an orthonormal basis N of
    A_R C's null space and A_R C w_p = b_R − A_R p (engine.formulations.reduced's accelerations, scale
    max |A_R|); an empty CN where the numpy path takes the SVD."""
    k_rows, n = A.shape
    l = C.shape[1]
    kept = np.ones(k_rows, dtype=np.bool_)
    for r in range(sel.size):
        kept[sel[r]] = False
    rest = np.flatnonzero(kept)
    k = rest.size
    A_R = np.empty((k, n))
    b_R = np.empty(k)
    scale = 0.0
    for i in range(k):
        A_R[i] = A[rest[i]]
        for s in range(n):
            scale = max(scale, abs(A_R[i, s]))
    for i in range(k):
        acc = b[rest[i]]
        for s in range(n):
            acc -= A_R[i, s] * p[s]
        b_R[i] = acc
    if k > l:
        return np.empty((0, 0)), p
    N = np.empty((l, l - k))
    w_p = np.empty(l)
    if not solves.orthonormal_basis(A_R @ C, b_R, scale, rank_rtol, N, w_p):
        return np.empty((0, 0)), p
    return C @ N, C @ w_p + p


@njit(**JIT)
def _derivative(data, y, out) -> bool:
    """`constrained_derivative` on data = (tree, point joints, points, rows, lengths, method, sel, dep,
    indep, gains, tolerances), as engine.compiled.constrained_rhs.ConstrainedStep.arrays packs them."""
    tree, pjoint, plocal, rows, lengths, method, sel, dep, indep, gains, tolerances = data
    return constrained_derivative(tree, pjoint, plocal, rows, lengths, method, sel, dep, indep, gains, tolerances,
                                  y, out)


@njit(**JIT)
def dop853_attempt(data, t, y, f, h_abs, min_step, max_step,
                   t_bound, direction, rtol, atol, A, B, E3, E5, error_exponent, K):
    """One DOP853 step from (t, y, f) as numba_kernels.dop853_attempt takes it on the free tree (its
    arguments and results), on the constrained right-hand side (the closure rows do not depend on t)."""
    N = y.size
    n_stages = B.size
    y_stage = np.empty(N)
    y_new = np.empty(N)
    h_abs = min(max(h_abs, min_step), max_step)
    rejected = False
    evaluations = 0
    while True:
        if h_abs < min_step:
            return TOO_SMALL, t, 0.0, h_abs, y_new, K[n_stages].copy(), evaluations
        t_new = t + h_abs * direction
        if direction * (t_new - t_bound) > 0:
            t_new = t_bound
        h = t_new - t
        h_abs = abs(h)
        K[0, :] = f
        for s in range(1, n_stages + 1):
            stage = y_stage if s < n_stages else y_new
            _stage_state(K, A[s] if s < n_stages else B, s, y, h, stage)
            evaluations += 1
            if not _derivative(data, stage, K[s]):
                return NONFINITE, t, h, h_abs, y_new, K[s].copy(), evaluations
        error_norm = error_estimate(K, E3, E5, y, y_new, h, rtol, atol)
        factor = step_factor(error_norm, error_exponent, rejected)
        if error_norm < 1.0:
            return ACCEPTED, t_new, h, h_abs * factor, y_new, K[n_stages].copy(), evaluations
        h_abs *= factor
        rejected = True


@njit(**JIT)
def dop853_extra_stages(data, y_old, h, A_extra, K) -> bool:
    """The three extra stages of DOP853's dense output into K's rows after the step's; False when the
    kernel does not hold one."""
    y_stage = np.empty(y_old.size)
    first = K.shape[0] - A_extra.shape[0]
    for e in range(A_extra.shape[0]):
        _stage_state(K, A_extra[e], first + e, y_old, h, y_stage)
        if not _derivative(data, y_stage, K[first + e]):
            return False
    return True
