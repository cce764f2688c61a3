"""One sweep member's whole run in one compiled (numba) call: the free tree (a FlatTree, engine.compiled.tree_backend)
integrated by DOP853 from t = 0 to t_end, measured on every accepted step.

The integration is scipy's DOP853 (Hairer, Nørsett & Wanner, Solving ODEs I, §II.5 and II.10; scipy's tableau,
error norm and step-size factors; numba_kernels' `error_estimate`) with scipy's initial step
(HNW §II.4, `select_initial_step`) and the stopping rules of engine.sweep.integrator's BatchedRungeKutta, member
by member, so that a member gives what that batched integrator gives it (to rounding). The right-hand side is
numba_kernels' ABA (Featherstone 2008, §7.3), or, when the tree is planar (every joint revolute about ±z, every
joint frame turned about z only), the planar tree's closed form of engine.sweep.batched_chains (THEORY.md (2.6):
M(θ) θ̈ = Σ_i m_i J_iᵀ (g − a_i), M = Σ_i m_i J_iᵀ J_i + Izz_i S_iᵀ S_i, solved by Cholesky), the same ODE with far
less arithmetic (bench/README.md, "Sweeps"). `run_sweep_member` stops at t_end or, asked to (`until_crossed`:
the caller measures crossings only, fixed once found), at the last crossing. Measured along the accepted steps as
engine.sweep.measures does:

- a crossing (flip_time, over_top): the first step at whose end |Σ_chain q − offset| ≥ π, the time found on
  the step's quintic Hermite interpolant of that angle (values, rates and accelerations at both ends) by
  45 bisections (measures.hermite_crossing);
- the energy drift max |E − E(0)| / max(|E(0)|, T(0) + |V(0)|) (THEORY.md §5), E = T + V with V gravity's.

Imported only in the thread that compiles the kernels (engine.compiled.compiled_step).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from eomlab.engine.compiled.constrained_solves import backward_transposed, cholesky, forward
from eomlab.engine.compiled.numba_kernels import _outwards, _stage_state, error_estimate, free_derivative, workspace

JIT = dict(cache=True, nogil=True, error_model="numpy")
#: the right-hand side's and the step's parts, inlined into the run (numba IR): a call between compiled functions
#: takes and gives back a reference count (atomic) on every array it passes, a large part of a planar step's time
INLINED = dict(JIT, inline="always")
#: numba_kernels' stage sum and error norm, inlined here (not cached apart: only as parts of the run)
_stage_state = njit(inline="always", nogil=True, error_model="numpy")(_stage_state.py_func)
error_estimate = njit(inline="always", nogil=True, error_model="numpy")(error_estimate.py_func)
cholesky, forward, backward_transposed = (njit(inline="always", nogil=True, error_model="numpy")(f.py_func)
                                          for f in (cholesky, forward, backward_transposed))

#: a member's outcome (engine.sweep.compiled_members words them as engine.sweep.integrator does)
FINISHED, NONFINITE_START, TOO_SMALL, NONFINITE_TRIALS, STATE_NONFINITE, BLOWN_UP, TINY_STEPS = 0, 1, 2, 3, 4, 5, 6
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
BLOW_UP, MAX_NONFINITE_TRIALS, TINY_STEP, TINY_STEPS_IN_A_ROW = 1e12, 200, 1e-12, 10


@njit(**JIT)
def _energy(tree, y, work):
    """T + V and T + |V| at y = (q, u): T = ½ Σ vᵀ h over the joints' bodies (h their momenta, which
    numba_kernels._outwards leaves in U), V = −Σ m g·c."""
    mass, lever, gravity = tree[5], tree[6], tree[8]
    n = y.size // 2
    R, p, v, U = work[0], work[1], work[3], work[7]
    _outwards(tree, y[:n], y[n:], work)
    T = 0.0
    V = 0.0
    for i in range(n):
        for r in range(6):
            T += v[i, r] * U[i, r]
        for r in range(3):
            V -= mass[i] * gravity[r] * (p[i, r] + R[i, r, 0] * lever[i, 0] + R[i, r, 1] * lever[i, 1]
                                         + R[i, r, 2] * lever[i, 2])
    return 0.5 * T + V, 0.5 * T + abs(V)


#: how far from planar a tree's numbers may be and still take the planar right-hand side (exact zeros in practice)
PLANAR_TOL = 1e-12
#: the columns of a planar tree's numbers (`planar_tree`) and of its scratch (`_planar_kinematics`)
SIGN, BETA, AT_X, AT_Y, COM_X, COM_Y, MASS, IZZ, RISE, LEVER_Z = range(10)
PHI, OMEGA, O_X, O_Y, C_X, C_Y, A0_X, A0_Y, AC_X, AC_Y, J_X, J_Y, COS, SIN, HEIGHT, VO_X, VO_Y, VC_X, VC_Y = range(19)


@njit(**JIT)
def planar_tree(tree):
    """(True, its numbers) when every joint of the tree turns about ±z of a joint frame turned about z only
    (the tree moves in planes z = const: engine.model.is_planar's trees, as the FlatTree holds them), else
    (False, zeros). Per body: the axis' sign, the placement's angle β and x, y, z, mass, mass centre, Izz."""
    kinds, R, p, S, mass, lever, inertia = tree[1], tree[2], tree[3], tree[4], tree[5], tree[6], tree[7]
    n = kinds.size
    P = np.zeros((n, 10))
    for i in range(n):
        if kinds[i] != 0 or abs(abs(S[i, 5]) - 1.0) > PLANAR_TOL or abs(R[i, 2, 2] - 1.0) > PLANAR_TOL:
            return False, P
        for r in range(5):
            if abs(S[i, r]) > PLANAR_TOL:
                return False, P
        for r in range(2):
            if abs(R[i, 2, r]) > PLANAR_TOL or abs(R[i, r, 2]) > PLANAR_TOL:
                return False, P
        P[i, SIGN] = S[i, 5]
        P[i, BETA] = math.atan2(R[i, 1, 0], R[i, 0, 0])
        P[i, AT_X], P[i, AT_Y], P[i, RISE] = p[i, 0], p[i, 1], p[i, 2]
        P[i, COM_X], P[i, COM_Y], P[i, LEVER_Z] = lever[i, 0], lever[i, 1], lever[i, 2]
        P[i, MASS], P[i, IZZ] = mass[i], inertia[i, 2, 2]
    return True, P


@njit(**INLINED)
def _planar_kinematics(P, parent, y, W):
    """Each body's angle φ, rate ω, joint origin o, mass centre c, their velocities and accelerations at θ̈ = 0
    (every turning step r pulls inwards: a = a_parent − ω_parent² r, then − ω² ρ to the mass centre), outwards
    from the ground (parents precede children in the FlatTree)."""
    n = P.shape[0]
    for i in range(n):
        k = parent[i]
        if k >= 0:
            phi, om, cp, sp = W[k, PHI], W[k, OMEGA], W[k, COS], W[k, SIN]
            ox, oy, ax, ay, vx, vy, z = W[k, O_X], W[k, O_Y], W[k, A0_X], W[k, A0_Y], W[k, VO_X], W[k, VO_Y], W[k, HEIGHT]
        else:
            phi, om, cp, sp, ox, oy, ax, ay, vx, vy, z = 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        rx = cp * P[i, AT_X] - sp * P[i, AT_Y]
        ry = sp * P[i, AT_X] + cp * P[i, AT_Y]
        W[i, PHI] = phi + P[i, BETA] + P[i, SIGN] * y[i]
        w = om + P[i, SIGN] * y[n + i]
        W[i, OMEGA] = w
        c, s = math.cos(W[i, PHI]), math.sin(W[i, PHI])
        W[i, COS], W[i, SIN] = c, s
        rho_x = c * P[i, COM_X] - s * P[i, COM_Y]
        rho_y = s * P[i, COM_X] + c * P[i, COM_Y]
        W[i, O_X], W[i, O_Y] = ox + rx, oy + ry
        W[i, C_X], W[i, C_Y] = ox + rx + rho_x, oy + ry + rho_y
        W[i, A0_X], W[i, A0_Y] = ax - om * om * rx, ay - om * om * ry
        W[i, AC_X], W[i, AC_Y] = W[i, A0_X] - w * w * rho_x, W[i, A0_Y] - w * w * rho_y
        W[i, VO_X], W[i, VO_Y] = vx - om * ry, vy + om * rx
        W[i, VC_X], W[i, VC_Y] = W[i, VO_X] - w * rho_y, W[i, VO_Y] + w * rho_x
        W[i, HEIGHT] = z + P[i, RISE]


@njit(**INLINED)
def _planar_derivative(P, parent, g, y, out, W, M) -> bool:
    """out = (θ̇, θ̈) of a planar tree (THEORY.md (2.6), engine.sweep.batched_chains' terms): J_ik = s_k ẑ × (c_i − o_k)
    for the joints k on body i's path, M = Σ_i m_i J_iᵀ J_i + Izz_i S_iᵀ S_i, forcing Σ_i m_i J_iᵀ (g − a_i);
    M θ̈ = forcing by Cholesky (M[0]; its factor in M[1]). False (and NaN) when M is singular or θ̈ not finite."""
    n = P.shape[0]
    _planar_kinematics(P, parent, y, W)
    for k in range(n):
        out[k] = y[n + k]
        out[n + k] = 0.0
        for l in range(n):
            M[0, k, l] = 0.0
    for i in range(n):
        m, izz = P[i, MASS], P[i, IZZ]
        fx, fy = g[0] - W[i, AC_X], g[1] - W[i, AC_Y]
        k = i
        while k >= 0:
            W[k, J_X] = -P[k, SIGN] * (W[i, C_Y] - W[k, O_Y])
            W[k, J_Y] = P[k, SIGN] * (W[i, C_X] - W[k, O_X])
            k = parent[k]
        k = i
        while k >= 0:
            out[n + k] += m * (W[k, J_X] * fx + W[k, J_Y] * fy)
            l = i
            while l >= 0:
                M[0, k, l] += m * (W[k, J_X] * W[l, J_X] + W[k, J_Y] * W[l, J_Y]) + izz * P[k, SIGN] * P[l, SIGN]
                l = parent[l]
            k = parent[k]
    qdd = out[n:]
    if not cholesky(M[0], M[1], 0.0):  # any positive pivot, as batched_chains' Cramer takes any nonzero det
        for k in range(n):
            qdd[k] = np.nan
        return False
    forward(M[1], qdd)
    backward_transposed(M[1], qdd)
    return math.isfinite(np.sum(out[n:]))


@njit(**JIT)
def _planar_energy(P, parent, g, y, W):
    """T + V and T + |V| of a planar tree: T = ½ Σ m_i |ċ_i|² + Izz_i ω_i², V = −Σ m_i g·c_i."""
    n = P.shape[0]
    _planar_kinematics(P, parent, y, W)
    T = 0.0
    V = 0.0
    for i in range(n):
        T += P[i, MASS] * (W[i, VC_X] ** 2 + W[i, VC_Y] ** 2) + P[i, IZZ] * W[i, OMEGA] ** 2
        V -= P[i, MASS] * (g[0] * W[i, C_X] + g[1] * W[i, C_Y] + g[2] * (W[i, HEIGHT] + P[i, LEVER_Z]))
    return 0.5 * T + V, 0.5 * T + abs(V)


@njit(**INLINED)
def _derivative(planar, P, W, M, tree, y, tau, out, work) -> bool:
    if planar:
        return _planar_derivative(P, tree[0], tree[8], y, out, W, M)
    return free_derivative(tree, y, tau, out, work)


@njit(**JIT)
def _energy_of(planar, P, W, tree, y, work):
    if planar:
        return _planar_energy(P, tree[0], tree[8], y, W)
    return _energy(tree, y, work)


@njit(**INLINED)
def _chain_sum(x, chain, first, last, shift):
    total = 0.0
    for k in range(first, last):
        total += x[shift + chain[k]]
    return total


@njit(**JIT)
def _quintic(s, h, q0, q1, v0, v1, a0, a1):
    """The quintic Hermite interpolant at s ∈ [0, 1] of a step of length h (measures.hermite_crossing's)."""
    s2, s3 = s * s, s * s * s
    s4, s5 = s3 * s, s3 * s2
    return ((1 - 10 * s3 + 15 * s4 - 6 * s5) * q0 + (s - 6 * s3 + 8 * s4 - 3 * s5) * h * v0
            + (0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5) * h * h * a0 + (0.5 * s3 - s4 + 0.5 * s5) * h * h * a1
            + (-4 * s3 + 7 * s4 - 3 * s5) * h * v1 + (10 * s3 - 15 * s4 + 6 * s5) * q1)


@njit(**JIT)
def _crossing(t0, t1, q0, q1, v0, v1, a0, a1, target):
    h = t1 - t0
    lo, hi = 0.0, 1.0
    rising = q1 > q0
    for _ in range(45):
        mid = 0.5 * (lo + hi)
        value = _quintic(mid, h, q0, q1, v0, v1, a0, a1)
        if (value >= target) if rising else (value <= target):
            hi = mid
        else:
            lo = mid
    return t0 + hi * h


@njit(**INLINED)
def _measure_crossings(t0, y0, f0, t1, y1, f1, chain, chain_start, offsets, crossing):
    n = y0.size // 2
    for j in range(offsets.size):
        if not math.isnan(crossing[j]):
            continue
        first, last = chain_start[j], chain_start[j + 1]
        angle1 = _chain_sum(y1, chain, first, last, 0) - offsets[j]
        if abs(angle1) >= math.pi:
            angle0 = _chain_sum(y0, chain, first, last, 0) - offsets[j]
            target = math.pi if angle1 > 0 else -math.pi
            crossing[j] = _crossing(t0, t1, angle0, angle1, _chain_sum(f0, chain, first, last, 0),
                                    _chain_sum(f1, chain, first, last, 0), _chain_sum(f0, chain, first, last, n),
                                    _chain_sum(f1, chain, first, last, n), target)


@njit(**JIT)
def _rms_scaled(x, scale):
    acc = 0.0
    for j in range(x.size):
        acc += (x[j] / scale[j]) ** 2
    return math.sqrt(acc / x.size)


@njit(**JIT)
def run_member(tree, y0, t_end, rtol, atol, dt_out, A, B, E3, E5, error_exponent, chain, chain_start, offsets,
               want_energy, crossing):
    """`run_sweep_member` to t_end."""
    return run_sweep_member(tree, y0, t_end, rtol, atol, dt_out, A, B, E3, E5, error_exponent, chain, chain_start,
                            offsets, want_energy, False, crossing)


@njit(**JIT)
def _all_crossed(crossing):
    for j in range(crossing.size):
        if math.isnan(crossing[j]):
            return False
    return crossing.size > 0


@njit(**JIT)
def run_sweep_member(tree, y0, t_end, rtol, atol, dt_out, A, B, E3, E5, error_exponent, chain, chain_start, offsets,
                     want_energy, until_crossed, crossing):
    """Integrate one member from (0, y0) to t_end — `until_crossed`: only until every crossing is found, a terminal
    event (the caller's measures are all crossings, fixed from then on) —; crossing (one per crossing measure,
    NaN: none yet) filled. (outcome, t, y, right-hand sides evaluated, steps, energy drift)."""
    N = y0.size
    n_stages = B.size
    work = workspace(N // 2)
    planar, P = planar_tree(tree)
    W = np.empty((N // 2, 19))
    M = np.empty((2, N // 2, N // 2))  # the mass matrix and its Cholesky factor
    tau = np.zeros(N // 2)
    K = np.empty((n_stages + 1, N))
    y = y0.copy()
    f = np.empty(N)
    y_stage = np.empty(N)
    y_new = np.empty(N)
    f_new = np.empty(N)
    scale = np.empty(N)
    atols = np.full(N, atol)
    t = 0.0
    evaluations = 1
    drift = 0.0
    E0, E_scale = 0.0, 1.0
    if want_energy:
        E0, reach = _energy_of(planar, P, W, tree, y, work)
        E_scale = max(max(abs(E0), reach), 1e-12)
    for j in range(offsets.size):
        crossing[j] = 0.0 if abs(_chain_sum(y, chain, chain_start[j], chain_start[j + 1], 0) - offsets[j]) >= math.pi \
            else np.nan
    if not _derivative(planar, P, W, M, tree, y, tau, f, work):
        return NONFINITE_START, t, y, evaluations, 0, drift
    if until_crossed and _all_crossed(crossing):
        return FINISHED, t, y, evaluations, 0, drift
    # scipy's select_initial_step (HNW II.4)
    for j in range(N):
        scale[j] = atol + abs(y[j]) * rtol
    d0, d1 = _rms_scaled(y, scale), _rms_scaled(f, scale)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / (d1 if d1 > 0 else 1.0)
    h0 = min(h0, t_end)
    for j in range(N):
        y_stage[j] = y[j] + h0 * f[j]
    _derivative(planar, P, W, M, tree, y_stage, tau, f_new, work)
    evaluations += 1
    for j in range(N):
        y_stage[j] = f_new[j] - f[j]
    d2 = _rms_scaled(y_stage, scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** -error_exponent  # 1 / (error order + 1)
    h_abs = min(min(100 * h0, h1), t_end)
    retrying = False
    nonfinite = 0
    tiny = 0
    steps = 0
    while True:
        min_step = 10 * abs(np.nextafter(t, np.inf) - t)
        if not retrying and h_abs < min_step:
            h_abs = min_step
        too_small = retrying and h_abs < min_step
        t_new = min(t + h_abs, t_end)
        h = t_new - t
        for j in range(N):
            K[0, j] = f[j]
        for s in range(1, n_stages):
            _stage_state(K, A[s], s, y, h, y_stage)
            _derivative(planar, P, W, M, tree, y_stage, tau, K[s], work)
        _stage_state(K, B, n_stages, y, h, y_new)
        _derivative(planar, P, W, M, tree, y_new, tau, K[n_stages], work)
        evaluations += n_stages
        for j in range(N):
            f_new[j] = K[n_stages, j]
        err = error_estimate(K, E3, E5, y, y_new, h, rtol, atols)
        finite = math.isfinite(err)
        accepted = finite and err < 1.0 and not too_small
        if accepted:
            factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** error_exponent)
            h_abs = abs(h) * (min(1.0, factor) if retrying else factor)
        else:
            h_abs = abs(h) * (max(MIN_FACTOR, SAFETY * err ** error_exponent) if finite else MIN_FACTOR)
        if not finite:
            nonfinite += 1
        failed = TOO_SMALL if too_small else FINISHED
        if nonfinite > MAX_NONFINITE_TRIALS:
            failed = NONFINITE_TRIALS
        if accepted:
            _measure_crossings(t, y, f, t_new, y_new, f_new, chain, chain_start, offsets, crossing)
            if want_energy:
                E, _ = _energy_of(planar, P, W, tree, y_new, work)
                d = abs(E - E0) / E_scale
                drift = max(drift, d if math.isfinite(d) else np.inf)
            t = t_new
            for j in range(N):
                y[j] = y_new[j]
                f[j] = f_new[j]
            steps += 1
            tiny = tiny + 1 if abs(h) < TINY_STEP * max(abs(t), dt_out) else 0
            nonfinite = 0
            biggest = 0.0
            state_finite = True
            for j in range(N):
                if math.isfinite(y[j]):
                    biggest = max(biggest, abs(y[j]))
                else:
                    state_finite = False
            if not state_finite:
                failed = STATE_NONFINITE
            elif biggest > BLOW_UP:
                failed = BLOWN_UP
            if tiny >= TINY_STEPS_IN_A_ROW:
                failed = TINY_STEPS
            if t >= t_end or (until_crossed and failed == FINISHED and _all_crossed(crossing)):
                return FINISHED, t, y, evaluations, steps, drift
        if failed != FINISHED:
            return failed, t, y, evaluations, steps, drift
        retrying = not accepted
