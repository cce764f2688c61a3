"""Compiled (numba) kernels of the free tree's DOP853 step: the articulated-body algorithm and
whole DOP853 step attempts, so that none of a step's twelve stages returns to Python.

The tree is a FlatTree (engine.compiled.tree_backend): joints in pinocchio's depth-first order, one speed
each (revolute or prismatic on any axis); per joint its parent (−1: the ground), its placement in
the parent joint's frame (R, p), its motion subspace S (6-vector in the joint frame, linear part
first as pinocchio's), its kind, and the mass, mass centre (lever) and rotational inertia of the
bodies it carries.

ABA (Featherstone, Rigid Body Dynamics Algorithms, §7.3; pinocchio's `aba`), every quantity in the
world frame at the world origin so that articulated inertias add without a transform: velocities
v_i = v_λ + S_i q̇_i and bias terms c_i = v_i ×ₘ S_i q̇_i outwards; articulated inertias
I^A_λ += I^A_i − U_i U_iᵀ / D_i (U = I^A S, D = Sᵀ U) and bias forces inwards; then
q̈_i = (τ_i − S_iᵀ p^A_i − U_iᵀ (a_λ + c_i)) / D_i outwards, the ground accelerating at −g.

Imported only by engine.compiled.compiled_step, in a background thread (importing numba takes ~0.5 s).
Compiled once and cached on disk (`cache=True`); error_model="numpy" so a singular tree gives
NaN or inf (reported, never raised) and the caller re-runs the step on the checked Python path.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

REVOLUTE, PRISMATIC = 0, 1
#: dop853_attempt's outcome
ACCEPTED, TOO_SMALL, NONFINITE = 0, 1, 2
# scipy's step-size control (scipy.integrate._ivp.rk)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0

JIT = dict(cache=True, nogil=True, error_model="numpy")


@njit(**JIT)
def _outwards(tree, q, qd, work):
    """ABA's first pass: every joint's world pose (R, p), motion subspace Sw, velocity v, bias
    acceleration c, its bodies' spatial inertia (upper triangle, into IA), momentum (into U) and
    bias force pA."""
    parents, kinds, place_R, place_p, S, mass, lever, rot_inertia, gravity = tree
    R, p, Sw, v, c, IA, pA, U, D, u, a = work
    n = q.size
    Rj = np.empty((3, 3))
    Rl = np.empty((3, 3))
    pl = np.empty(3)
    aw = np.empty(3)
    cw = np.empty(3)
    Ic = np.empty((3, 3))
    T = np.empty((3, 3))
    for i in range(n):
        lam = parents[i]
        Rp, pp = place_R[i], place_p[i]
        # the joint frame before the joint's own motion: Rl, pl (world)
        if lam >= 0:
            for r in range(3):
                pl[r] = p[lam, r] + R[lam, r, 0] * pp[0] + R[lam, r, 1] * pp[1] + R[lam, r, 2] * pp[2]
                for k in range(3):
                    Rl[r, k] = R[lam, r, 0] * Rp[0, k] + R[lam, r, 1] * Rp[1, k] + R[lam, r, 2] * Rp[2, k]
        else:
            for r in range(3):
                pl[r] = pp[r]
                for k in range(3):
                    Rl[r, k] = Rp[r, k]
        if kinds[i] == REVOLUTE:
            ax, ay, az = S[i, 3], S[i, 4], S[i, 5]
            s, co = math.sin(q[i]), math.cos(q[i])
            w = 1.0 - co  # Rodrigues: I + sin q [a]× + (1 − cos q) [a]×²
            Rj[0, 0], Rj[0, 1], Rj[0, 2] = co + w * ax * ax, w * ax * ay - s * az, w * ax * az + s * ay
            Rj[1, 0], Rj[1, 1], Rj[1, 2] = w * ax * ay + s * az, co + w * ay * ay, w * ay * az - s * ax
            Rj[2, 0], Rj[2, 1], Rj[2, 2] = w * ax * az - s * ay, w * ay * az + s * ax, co + w * az * az
            for r in range(3):
                aw[r] = Rl[r, 0] * ax + Rl[r, 1] * ay + Rl[r, 2] * az
                p[i, r] = pl[r]
                for k in range(3):
                    R[i, r, k] = Rl[r, 0] * Rj[0, k] + Rl[r, 1] * Rj[1, k] + Rl[r, 2] * Rj[2, k]
            # a turn about aw through p: the world-origin point moves at p × aw
            Sw[i, 0] = p[i, 1] * aw[2] - p[i, 2] * aw[1]
            Sw[i, 1] = p[i, 2] * aw[0] - p[i, 0] * aw[2]
            Sw[i, 2] = p[i, 0] * aw[1] - p[i, 1] * aw[0]
            Sw[i, 3], Sw[i, 4], Sw[i, 5] = aw[0], aw[1], aw[2]
        else:  # a slide along S's linear part
            ax, ay, az = S[i, 0], S[i, 1], S[i, 2]
            for r in range(3):
                aw[r] = Rl[r, 0] * ax + Rl[r, 1] * ay + Rl[r, 2] * az
                p[i, r] = pl[r] + aw[r] * q[i]
                for k in range(3):
                    R[i, r, k] = Rl[r, k]
            Sw[i, 0], Sw[i, 1], Sw[i, 2] = aw[0], aw[1], aw[2]
            Sw[i, 3] = Sw[i, 4] = Sw[i, 5] = 0.0
        qi = qd[i]
        if lam >= 0:
            for r in range(6):
                v[i, r] = Sw[i, r] * qi + v[lam, r]
        else:
            for r in range(6):
                v[i, r] = Sw[i, r] * qi
        # c = v ×ₘ (S q̇) = q̇ (v ×ₘ S)
        _cross_motion(v[i], Sw[i], c[i])
        for r in range(6):
            c[i, r] *= qi
        _body_terms(mass[i], R[i], p[i], lever[i], rot_inertia[i], v[i], IA[i], U[i], pA[i], cw, T, Ic)  # (U: free until the inward pass)


@njit(**JIT)
def _body_terms(m, Ri, pi, lever, rot_inertia, vi, IAi, h, pAi, cw, T, Ic):
    """A joint's bodies (mass m, mass centre `lever` and rotational inertia in the joint frame, posed at (Ri, pi)
    in the world) moving at vi: their spatial inertia about the origin (upper triangle, into IAi), momentum
    (into h) and bias force pAi = vi ×* h. cw, T, Ic: scratch."""
    for r in range(3):
        cw[r] = pi[r] + Ri[r, 0] * lever[0] + Ri[r, 1] * lever[1] + Ri[r, 2] * lever[2]
        for k in range(3):
            T[r, k] = Ri[r, 0] * rot_inertia[0, k] + Ri[r, 1] * rot_inertia[1, k] + Ri[r, 2] * rot_inertia[2, k]
    for r in range(3):
        for k in range(r, 3):
            Ic[r, k] = T[r, 0] * Ri[k, 0] + T[r, 1] * Ri[k, 1] + T[r, 2] * Ri[k, 2]
            Ic[k, r] = Ic[r, k]
    _spatial_inertia(m, cw, Ic, IAi)
    # momentum: m (v + ω × c), and about the origin I_c ω + c × that
    vx, vy, vz, wx, wy, wz = vi[0], vi[1], vi[2], vi[3], vi[4], vi[5]
    hx = m * (vx + wy * cw[2] - wz * cw[1])
    hy = m * (vy + wz * cw[0] - wx * cw[2])
    hz = m * (vz + wx * cw[1] - wy * cw[0])
    h[0], h[1], h[2] = hx, hy, hz
    h[3] = Ic[0, 0] * wx + Ic[0, 1] * wy + Ic[0, 2] * wz + cw[1] * hz - cw[2] * hy
    h[4] = Ic[1, 0] * wx + Ic[1, 1] * wy + Ic[1, 2] * wz + cw[2] * hx - cw[0] * hz
    h[5] = Ic[2, 0] * wx + Ic[2, 1] * wy + Ic[2, 2] * wz + cw[0] * hy - cw[1] * hx
    _cross_force(vi, h, pAi)


@njit(**JIT)
def aba(tree, q, qd, tau, qdd, work):
    """qdd = the free tree's accelerations at (q, qd) under joint forces tau (ABA, O(n), in the
    world frame). `work`: `workspace(n)`, reused between calls."""
    parents, gravity = tree[0], tree[8]
    R, p, Sw, v, c, IA, pA, U, D, u, a = work
    n = q.size
    _outwards(tree, q, qd, work)
    for i in range(n - 1, -1, -1):  # inwards: articulated inertias and bias forces
        for r in range(1, 6):  # the lower triangle from the upper (the only one accumulated)
            for k in range(r):
                IA[i, r, k] = IA[i, k, r]
        d = 0.0
        sp = 0.0
        uc = 0.0
        for r in range(6):
            acc = 0.0
            for k in range(6):
                acc += IA[i, r, k] * Sw[i, k]
            U[i, r] = acc
            d += Sw[i, r] * acc
            sp += Sw[i, r] * pA[i, r]
            uc += acc * c[i, r]
        D[i] = d
        u[i] = tau[i] - sp
        lam = parents[i]
        if lam < 0:
            continue
        # I^A_λ += I^A − U Uᵀ / D;  p^A_λ += p^A + (I^A − U Uᵀ/D) c + U u / D
        g = (u[i] - uc) / d
        for r in range(6):
            acc = pA[i, r] + U[i, r] * g
            for k in range(6):
                acc += IA[i, r, k] * c[i, k]
            pA[lam, r] += acc
            f = U[i, r] / d
            for k in range(r, 6):
                IA[lam, r, k] += IA[i, r, k] - f * U[i, k]
    for i in range(n):  # outwards: accelerations (the ground accelerates at −g)
        lam = parents[i]
        ua = 0.0
        for r in range(6):
            if lam >= 0:
                a[i, r] = a[lam, r] + c[i, r]
            else:
                a[i, r] = (-gravity[r] if r < 3 else 0.0) + c[i, r]
            ua += U[i, r] * a[i, r]
        qdd[i] = (u[i] - ua) / D[i]
        for r in range(6):
            a[i, r] += Sw[i, r] * qdd[i]


@njit(**JIT)
def _spatial_inertia(m, c, Ic, out):
    """The upper triangle of [[m 1, −m [c]×], [m [c]×, I_c − m [c]×[c]×]] (about the origin; linear
    part first): the articulated inertias are kept by their upper triangles."""
    cx, cy, cz = c[0], c[1], c[2]
    mx, my, mz = m * cx, m * cy, m * cz
    out[0, 0], out[0, 1], out[0, 2], out[1, 1], out[1, 2], out[2, 2] = m, 0.0, 0.0, m, 0.0, m
    out[0, 3], out[0, 4], out[0, 5] = 0.0, mz, -my  # −m [c]×
    out[1, 3], out[1, 4], out[1, 5] = -mz, 0.0, mx
    out[2, 3], out[2, 4], out[2, 5] = my, -mx, 0.0
    out[3, 3] = Ic[0, 0] + my * cy + mz * cz
    out[3, 4] = Ic[0, 1] - mx * cy
    out[3, 5] = Ic[0, 2] - mx * cz
    out[4, 4] = Ic[1, 1] + mx * cx + mz * cz
    out[4, 5] = Ic[1, 2] - my * cz
    out[5, 5] = Ic[2, 2] + mx * cx + my * cy


@njit(**JIT)
def _cross_motion(m, n, out):
    """out = m ×ₘ n for motions (linear, angular)."""
    v0, v1, v2, w0, w1, w2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = w1 * n[2] - w2 * n[1] + v1 * n[5] - v2 * n[4]
    out[1] = w2 * n[0] - w0 * n[2] + v2 * n[3] - v0 * n[5]
    out[2] = w0 * n[1] - w1 * n[0] + v0 * n[4] - v1 * n[3]
    out[3] = w1 * n[5] - w2 * n[4]
    out[4] = w2 * n[3] - w0 * n[5]
    out[5] = w0 * n[4] - w1 * n[3]


@njit(**JIT)
def _cross_force(m, f, out):
    """out = m ×* f for a motion m and a force f (force, moment)."""
    v0, v1, v2, w0, w1, w2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = w1 * f[2] - w2 * f[1]
    out[1] = w2 * f[0] - w0 * f[2]
    out[2] = w0 * f[1] - w1 * f[0]
    out[3] = w1 * f[5] - w2 * f[4] + v1 * f[2] - v2 * f[1]
    out[4] = w2 * f[3] - w0 * f[5] + v2 * f[0] - v0 * f[2]
    out[5] = w0 * f[4] - w1 * f[3] + v0 * f[1] - v1 * f[0]


@njit(**JIT)
def workspace(n):
    """The arrays `aba` works in, for a tree of n joints."""
    return (np.empty((n, 3, 3)), np.empty((n, 3)), np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6)),
            np.empty((n, 6, 6)), np.empty((n, 6)), np.empty((n, 6)), np.empty(n), np.empty(n), np.empty((n, 6)))


@njit(**JIT)
def free_derivative(tree, y, tau, out, work) -> bool:
    """out = (q̇ = u, u̇ by ABA) at y = (q, u); False when u̇ is not finite."""
    n = y.size // 2
    for j in range(n):
        out[j] = y[n + j]
    aba(tree, y[:n], y[n:], tau, out[n:], work)
    return math.isfinite(np.sum(out[n:]))


@njit(**JIT)
def _stage_state(K, a, s, y0, h, out):
    """out = y0 + h Σ_{k<s} a[k] K[k]: where stage s is evaluated (with B: the step's new state)."""
    for j in range(y0.size):
        acc = 0.0
        for k in range(s):
            acc += K[k, j] * a[k]
        out[j] = y0[j] + acc * h


@njit(**JIT)
def dop853_attempt(tree, t, y, f, h_abs, min_step, max_step,
                   t_bound, direction, rtol, atol, A, B, E3, E5, error_exponent, K):
    """One DOP853 step from (t, y, f) as scipy's RungeKutta._step_impl takes it (same tableau,
    error norm and step-size control), retried with smaller steps until accepted; K (stages and
    the new derivative) filled for scipy's dense output. The free tree's derivative does not
    depend on t, so the stages' times (the tableau's C) are not needed.
    (outcome, t_new, h, h_abs for the next step, y_new, f_new, right-hand sides evaluated)."""
    N = y.size
    n_stages = B.size
    work = workspace(N // 2)
    tau = np.zeros(N // 2)
    y_stage = np.empty(N)
    y_new = np.empty(N)
    if h_abs > max_step:
        h_abs = max_step
    elif h_abs < min_step:
        h_abs = min_step
    rejected = False
    evaluations = 0
    while True:
        if h_abs < min_step:
            return TOO_SMALL, t, 0.0, h_abs, y_new, K[n_stages].copy(), evaluations
        h = h_abs * direction
        t_new = t + h
        if direction * (t_new - t_bound) > 0:
            t_new = t_bound
        h = t_new - t
        h_abs = abs(h)
        for j in range(N):
            K[0, j] = f[j]
        for s in range(1, n_stages):
            _stage_state(K, A[s], s, y, h, y_stage)
            evaluations += 1
            if not free_derivative(tree, y_stage, tau, K[s], work):
                return NONFINITE, t, h, h_abs, y_new, K[s].copy(), evaluations
        _stage_state(K, B, n_stages, y, h, y_new)
        evaluations += 1
        if not free_derivative(tree, y_new, tau, K[n_stages], work):
            return NONFINITE, t, h, h_abs, y_new, K[n_stages].copy(), evaluations
        error_norm = error_estimate(K, E3, E5, y, y_new, h, rtol, atol)
        if error_norm < 1.0:
            return ACCEPTED, t_new, h, h_abs * step_factor(error_norm, error_exponent, rejected), y_new, \
                K[n_stages].copy(), evaluations
        h_abs *= step_factor(error_norm, error_exponent, rejected)
        rejected = True


@njit(**JIT)
def error_estimate(K, E3, E5, y, y_new, h, rtol, atol):
    """DOP853's error norm of a step from y to y_new with stages K (scipy's RungeKutta._estimate_error_norm)."""
    N, n_stages = y.size, E5.size - 1
    err5 = 0.0
    err3 = 0.0
    for j in range(N):
        scale = atol[j] + max(abs(y[j]), abs(y_new[j])) * rtol
        e5 = 0.0
        e3 = 0.0
        for k in range(n_stages + 1):
            e5 += K[k, j] * E5[k]
            e3 += K[k, j] * E3[k]
        err5 += (e5 / scale) ** 2
        err3 += (e3 / scale) ** 2
    if err5 == 0.0 and err3 == 0.0:
        return 0.0
    return abs(h) * err5 / math.sqrt((err5 + 0.01 * err3) * N)


@njit(**JIT)
def step_factor(error_norm, error_exponent, rejected):
    """scipy's step-size factor: after an accepted step (error_norm < 1; at most 1 after a rejection in the
    same attempt), or the shrink of a rejected one (a NaN norm shrinks as scipy's max(MIN_FACTOR, nan)
    does: by MIN_FACTOR)."""
    if error_norm < 1.0:
        factor = MAX_FACTOR if error_norm == 0.0 else min(MAX_FACTOR, SAFETY * error_norm ** error_exponent)
        return min(1.0, factor) if rejected else factor
    shrink = SAFETY * error_norm ** error_exponent
    return shrink if shrink > MIN_FACTOR else MIN_FACTOR


@njit(**JIT)
def dop853_extra_stages(tree, y_old, h, A_extra, K) -> bool:
    """The three extra stages of DOP853's dense output into K's rows after the step's (scipy's
    DOP853._dense_output_impl evaluates them through Python); False when one is not finite."""
    N = y_old.size
    work = workspace(N // 2)
    tau = np.zeros(N // 2)
    y_stage = np.empty(N)
    first = K.shape[0] - A_extra.shape[0]
    for e in range(A_extra.shape[0]):
        s = first + e
        _stage_state(K, A_extra[e], s, y_old, h, y_stage)
        if not free_derivative(tree, y_stage, tau, K[s], work):
            return False
    return True


@njit(**JIT)
def energies_and_centres(tree, q, qd, body_joint, body_lever, centres):
    """(kinetic energy, gravity's potential energy −Σ m g·c over the joints' bodies) at (q, qd), and
    every body's mass centre into centres: body_lever[b] in the frame of joint body_joint[b]
    (−1: fixed to the ground, body_lever then in the world)."""
    work = workspace(q.size)
    _outwards(tree, q, qd, work)
    T2, V = _energies_and_centres(tree, work[0], work[1], work[3], work[7], body_joint, body_lever, centres)
    return 0.5 * T2, V  # (U holds the momenta after the outward pass)


@njit(**JIT)
def _energies_and_centres(tree, R, p, v, momenta, body_joint, body_lever, centres):
    """(2 T, V) of the joints' bodies from the outward pass's poses (R, p), velocities and momenta, and the
    bodies' mass centres into centres (`energies_and_centres` says how)."""
    mass, lever, gravity = tree[5], tree[6], tree[8]
    T = 0.0
    V = 0.0
    for i in range(mass.size):
        for r in range(6):
            T += v[i, r] * momenta[i, r]
        for r in range(3):
            V -= mass[i] * gravity[r] * (p[i, r] + R[i, r, 0] * lever[i, 0] + R[i, r, 1] * lever[i, 1]
                                         + R[i, r, 2] * lever[i, 2])
    for b in range(body_joint.size):
        j = body_joint[b]
        for r in range(3):
            if j < 0:
                centres[b, r] = body_lever[b, r]
            else:
                centres[b, r] = p[j, r] + R[j, r, 0] * body_lever[b, 0] + R[j, r, 1] * body_lever[b, 1] \
                    + R[j, r, 2] * body_lever[b, 2]
    return T, V
