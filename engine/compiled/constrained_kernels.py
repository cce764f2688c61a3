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
- the closure rows of engine.compiled.point_rows (THEORY.md §2, holonomic rows differentiated twice): a
  point P fixed in joint j's body has J_P columns Sw_s,lin + Sw_s,ang × P over j and its ancestors s,
  v_P = v_j,lin + ω_j × P and, at u̇ = 0, a_P = a_j,lin + α_j × P + ω_j × v_P;
  coincident:  Φ = (P_b − P_a)[axis], A = (J_Pb − J_Pa)[axis], b = −(a_Pb − a_Pa)[axis];
  distance:    Φ = (d·d − L²)/(2L), A = dᵀ (J_Pb − J_Pa)/L, b = −(d·(a_Pb − a_Pa) + ḋ·ḋ)/L, d = P_b − P_a;
  rolling disk (engine.constraints.geometric.RollingDiskRows): a = the world axis, p = k − (a·k) a, s = |p|,
  ρ = −r p/s, contact Φ = C_z − r s; A = J_P[z, x, y] at the material point P = C + ρ;
  b = −(a_C + α × ρ + ω × ρ̇)[z, x, y] with ρ̇ from ȧ = ω × a (the contact point slides along the rim);
  knife edge: ψ = n·v_P, A = nᵀ J_P, b = −(n·a_P + (ω × n)·v_P);
  Baumgarte's terms (THEORY.md §3) taken off b: b − 2α Φ̇ − β² Φ on holonomic rows, b − α ψ on first-order ones;

and then the formulation's own solve (engine.compiled.constrained_solves). `dop853_attempt` takes whole DOP853
step attempts on it as numba_kernels' does on the free tree (scipy's tableau, error norm and step control;
a stage the kernel does not hold ends the attempt as NONFINITE, and scipy's Python step retakes it). The reduced formulations' state
is (q, u_i): u_d = −A_d⁻¹ A_i u_i from the partition the numpy path chose (its `partition` arrays); rows
outside that partition (Maggi's holonomic rows beside first-order ones) stay at the acceleration level.

Imported only in the thread that compiles the kernels (engine.compiled.compiled_step).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from eomlab.engine.compiled import constrained_solves as solves
from eomlab.engine.compiled.numba_kernels import (ACCEPTED, NONFINITE, TOO_SMALL, _cross_force, _cross_motion,
                                                  _outwards, _stage_state, error_estimate, step_factor, workspace)

JIT = dict(cache=True, nogil=True, error_model="numpy")

#: the formulations' codes: their places in engine.methods.METHODS (engine.compiled.constrained_rhs passes them)
LAGRANGE, MAGGI, UDWADIA_KALABA, KANE, GIBBS_APPELL = range(5)
#: the rows' kinds (engine.compiled.kernel_model)
COINCIDENT, DISTANCE, ROLLING, KNIFE = range(4)


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
def point_positions(parents, R, p, Sw, pjoint, plocal, P, JP):
    """Every point's world position P and Jacobian J_P (points, 3, n)."""
    JP[:, :, :] = 0.0
    for k in range(pjoint.size):
        j = pjoint[k]
        if j < 0:
            for r in range(3):
                P[k, r] = plocal[k, r]
            continue
        for r in range(3):
            P[k, r] = p[j, r] + R[j, r, 0] * plocal[k, 0] + R[j, r, 1] * plocal[k, 1] + R[j, r, 2] * plocal[k, 2]
        s = j
        while s >= 0:
            JP[k, 0, s] = Sw[s, 0] + Sw[s, 4] * P[k, 2] - Sw[s, 5] * P[k, 1]
            JP[k, 1, s] = Sw[s, 1] + Sw[s, 5] * P[k, 0] - Sw[s, 3] * P[k, 2]
            JP[k, 2, s] = Sw[s, 2] + Sw[s, 3] * P[k, 1] - Sw[s, 4] * P[k, 0]
            s = parents[s]


@njit(**JIT)
def point_motion(pjoint, P, v, a, vP, aP):
    """Every point's velocity and its acceleration at u̇ = 0 (module docstring)."""
    for k in range(pjoint.size):
        j = pjoint[k]
        if j < 0:
            for r in range(3):
                vP[k, r] = aP[k, r] = 0.0
            continue
        w0, w1, w2 = v[j, 3], v[j, 4], v[j, 5]
        x, y, z = P[k, 0], P[k, 1], P[k, 2]
        vP[k, 0] = v[j, 0] + w1 * z - w2 * y
        vP[k, 1] = v[j, 1] + w2 * x - w0 * z
        vP[k, 2] = v[j, 2] + w0 * y - w1 * x
        aP[k, 0] = a[j, 0] + a[j, 4] * z - a[j, 5] * y + w1 * vP[k, 2] - w2 * vP[k, 1]
        aP[k, 1] = a[j, 1] + a[j, 5] * x - a[j, 3] * z + w2 * vP[k, 0] - w0 * vP[k, 2]
        aP[k, 2] = a[j, 2] + a[j, 3] * y - a[j, 4] * x + w0 * vP[k, 1] - w1 * vP[k, 0]


@njit(**JIT)
def _rim(P, ib, ia, radius):
    """The rolling disk's geometry at its pose, (a, p, s, ρ) as scalars: its world axis a = P_a − P_b,
    p = k − (a·k) a, s = |p| and the centre-to-contact vector ρ = −r p / s
    (engine.constraints.geometric.RollingDiskRows)."""
    a0, a1, a2 = P[ia, 0] - P[ib, 0], P[ia, 1] - P[ib, 1], P[ia, 2] - P[ib, 2]
    p0, p1, p2 = -a2 * a0, -a2 * a1, 1.0 - a2 * a2
    s = math.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
    k = -radius / s
    return a0, a1, a2, p0, p1, p2, s, k * p0, k * p1, k * p2


@njit(**JIT)
def row_matrix(rows, lengths, parents, Sw, pjoint, P, JP, A, phi) -> bool:
    """A and Φ of the rows (rows[r] = kind, point b, point a, axis; engine.compiled.kernel_model); False
    where a disk lies flat (its contact point undefined: the numpy path names it)."""
    n = A.shape[1]
    x = y = z = s_rim = 0.0  # (a rolling disk's contact point and |p|, kept for its slip rows)
    for r in range(rows.shape[0]):
        kind, ib, ia, ax = rows[r, 0], rows[r, 1], rows[r, 2], rows[r, 3]
        if kind == COINCIDENT:
            for s in range(n):
                A[r, s] = JP[ib, ax, s] - JP[ia, ax, s]
            phi[r] = P[ib, ax] - P[ia, ax]
        elif kind == DISTANCE:
            L = lengths[r]
            d0, d1, d2 = P[ib, 0] - P[ia, 0], P[ib, 1] - P[ia, 1], P[ib, 2] - P[ia, 2]
            for s in range(n):
                A[r, s] = (d0 * (JP[ib, 0, s] - JP[ia, 0, s]) + d1 * (JP[ib, 1, s] - JP[ia, 1, s])
                           + d2 * (JP[ib, 2, s] - JP[ia, 2, s])) / L
            phi[r] = (d0 * d0 + d1 * d1 + d2 * d2 - L * L) / (2.0 * L)
        elif kind == ROLLING:  # A = J_P[axis] at the material point P = C + ρ under the rim's lowest point
            if ax == 2:  # a disk's rows come in the order (contact, slip x, slip y): its geometry once
                g = _rim(P, ib, ia, lengths[r])
                s_rim = g[6]
                if s_rim < 1e-9:
                    return False
                x, y, z = P[ib, 0] + g[7], P[ib, 1] + g[8], P[ib, 2] + g[9]
            A[r, :] = 0.0
            s = pjoint[ib]
            while s >= 0:
                if ax == 0:
                    A[r, s] = Sw[s, 0] + Sw[s, 4] * z - Sw[s, 5] * y
                elif ax == 1:
                    A[r, s] = Sw[s, 1] + Sw[s, 5] * x - Sw[s, 3] * z
                else:
                    A[r, s] = Sw[s, 2] + Sw[s, 3] * y - Sw[s, 4] * x
                s = parents[s]
            phi[r] = P[ib, 2] - lengths[r] * s_rim  # (the contact row's; the slip rows have none)
        else:  # KNIFE: A = n̂ᵀ J_P
            n0, n1, n2 = P[ia, 0] - P[ib, 0], P[ia, 1] - P[ib, 1], P[ia, 2] - P[ib, 2]
            for s in range(n):
                A[r, s] = n0 * JP[ib, 0, s] + n1 * JP[ib, 1, s] + n2 * JP[ib, 2, s]
            phi[r] = 0.0
    return True


@njit(**JIT)
def row_bias(rows, lengths, pjoint, v, a, P, vP, aP, A, phi, u, gains, b):
    """b of the rows at u, less Baumgarte's 2α Φ̇ + β² Φ on holonomic rows and α ψ on first-order ones
    (gains = (α, β); zeros: none; THEORY.md §3)."""
    alpha, beta = gains[0], gains[1]
    bias0 = bias1 = bias2 = 0.0  # (a rolling disk's bias, kept for its slip rows)
    for r in range(rows.shape[0]):
        kind, ib, ia, ax = rows[r, 0], rows[r, 1], rows[r, 2], rows[r, 3]
        holonomic = True
        if kind == COINCIDENT:
            b[r] = aP[ia, ax] - aP[ib, ax]
        elif kind == DISTANCE:
            acc = 0.0
            for x in range(3):
                dd = vP[ib, x] - vP[ia, x]
                acc += (P[ib, x] - P[ia, x]) * (aP[ib, x] - aP[ia, x]) + dd * dd
            b[r] = -acc / lengths[r]
        elif kind == ROLLING:  # −d/dt (v_C + ω × ρ) with ρ the geometric contact vector (it slides along the rim)
            holonomic = ax == 2
            if holonomic:  # a disk's rows come in the order (contact, slip x, slip y): its bias once
                j = pjoint[ib]
                w0, w1, w2, e0, e1, e2 = v[j, 3], v[j, 4], v[j, 5], a[j, 3], a[j, 4], a[j, 5]
                a0, a1, a2, p0, p1, p2, sr, r0, r1, r2 = _rim(P, ib, ia, lengths[r])
                d0, d1, d2 = w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0  # ȧ = ω × a
                q0, q1, q2 = -d2 * a0 - a2 * d0, -d2 * a1 - a2 * d1, -d2 * a2 - a2 * d2  # ṗ
                s_dot = (p0 * q0 + p1 * q1 + p2 * q2) / sr
                k = -lengths[r] / (sr * sr)
                t0, t1, t2 = k * (q0 * sr - p0 * s_dot), k * (q1 * sr - p1 * s_dot), k * (q2 * sr - p2 * s_dot)  # ρ̇
                bias0 = aP[ib, 0] + e1 * r2 - e2 * r1 + w1 * t2 - w2 * t1
                bias1 = aP[ib, 1] + e2 * r0 - e0 * r2 + w2 * t0 - w0 * t2
                bias2 = aP[ib, 2] + e0 * r1 - e1 * r0 + w0 * t1 - w1 * t0
            b[r] = -(bias0 if ax == 0 else bias1 if ax == 1 else bias2)
        else:  # KNIFE: −(n̂·a_P + ṅ·v_P), ṅ = ω × n̂
            holonomic = False
            j = pjoint[ib]
            w0, w1, w2 = v[j, 3], v[j, 4], v[j, 5]
            n0, n1, n2 = P[ia, 0] - P[ib, 0], P[ia, 1] - P[ib, 1], P[ia, 2] - P[ib, 2]
            b[r] = -(n0 * aP[ib, 0] + n1 * aP[ib, 1] + n2 * aP[ib, 2] + (w1 * n2 - w2 * n1) * vP[ib, 0]
                     + (w2 * n0 - w0 * n2) * vP[ib, 1] + (w0 * n1 - w1 * n0) * vP[ib, 2])
        if alpha != 0.0 or beta != 0.0:
            rate = 0.0
            for s in range(u.size):
                rate += A[r, s] * u[s]
            b[r] -= 2.0 * alpha * rate + beta * beta * phi[r] if holonomic else alpha * rate


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
        ok = solves.lagrange(M, f, A, b, u_dot)
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
