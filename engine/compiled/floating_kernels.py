"""Compiled (numba) kernels of a free tree with spherical and free joints and armature: the articulated-body
algorithm with three-speed joints and whole DOP853 step attempts, as numba_kernels does for trees of one-speed
joints (whose kernels stay as they are; this module serves the trees those do not take).

The tree is a FloatingTree (engine.compiled.tree_backend): pinocchio's joints in depth-first order, each a
revolute or prismatic joint (one speed; a free joint's translation is three prismatic joints along its
placement's axes, massless but for the last, which carries the translation's bodies) or a spherical joint
(pinocchio's JointModelSpherical: Euler parameters p = (e0, e1, e2, e3) in the state, three speeds the
body-axis angular velocity ω); per joint where its first coordinate and first speed sit in y = (q, u), and per
speed its armature.

ABA (Featherstone, Rigid Body Dynamics Algorithms, 2008, §7.3, with multi-speed joints; pinocchio's `aba`) in
the world frame at the world origin as numba_kernels' one-speed version: v_i = v_λ + S_i u_i and
c_i = v_i ×ₘ S_i u_i outwards (a spherical joint's S_i the child frame's three axes, turning about the
joint's origin); inwards U_i = I^A_i S_i, D_i = S_iᵀ U_i + diag(armature) (the rotor inertia adds to M's
diagonal, as pinocchio's `model.armature`), u_i = τ_i − S_iᵀ p^A_i,
I^A_λ += I^A_i − U_i D_i⁻¹ U_iᵀ, p^A_λ += p^A_i + I^A_i c_i + U_i D_i⁻¹ (u_i − U_iᵀ c_i); outwards
u̇_i = D_i⁻¹ (u_i − U_iᵀ (a_λ + c_i)), the ground accelerating at −g.

The kinematic equations of the Euler parameters as engine.kinematics.rates writes them: ṗ = ½ p ⊗ (0, ω)
with p as the state holds it (its norm drifts only by integration error; nothing in the step renormalises),
and the pose from p/|p| (engine.rotations: a drifted |p| changes no pose), as the pinocchio path's
`configuration` normalises it.

Imported only in the thread that compiles the kernels (engine.compiled.compiled_step).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from eomlab.engine.compiled.numba_kernels import (ACCEPTED, NONFINITE, TOO_SMALL, _cross_motion,
                                                  _body_terms, _energies_and_centres, _stage_state, error_estimate,
                                                  step_factor)

__all__ = ["ACCEPTED", "NONFINITE", "TOO_SMALL", "state_derivative", "floating_workspace", "dop853_attempt",
           "dop853_extra_stages", "energies_and_centres"]

REVOLUTE, PRISMATIC, SPHERICAL = 0, 1, 2

JIT = dict(cache=True, nogil=True, error_model="numpy")


@njit(**JIT)
def floating_workspace(tree):
    """The arrays `state_derivative` works in, for `tree` (a FloatingTree as a tuple)."""
    n = tree[0].size
    return (np.empty((n, 3, 3)), np.empty((n, 3)), np.zeros((n, 6, 3)), np.empty((n, 6)), np.empty((n, 6)),
            np.empty((n, 6, 6)), np.empty((n, 6)), np.zeros((n, 6, 3)), np.zeros((n, 3, 3)), np.zeros((n, 3)),
            np.empty((n, 6)), np.empty(3))


@njit(**JIT)
def _joint_pose(kind, axis, y, at, Rl, pl, R, p, Sw, Rj):
    """The joint's world pose (R, p) from the frame before its motion (Rl, pl) and its world motion
    subspace Sw (6, its speeds): linear part the velocity of the body-fixed point at the world origin."""
    if kind == PRISMATIC:
        for r in range(3):
            a = Rl[r, 0] * axis[0] + Rl[r, 1] * axis[1] + Rl[r, 2] * axis[2]
            p[r] = pl[r] + a * y[at]
            Sw[r, 0], Sw[r + 3, 0] = a, 0.0
            for k in range(3):
                R[r, k] = Rl[r, k]
        return
    if kind == REVOLUTE:  # Rodrigues: I + sin q [a]× + (1 − cos q) [a]×²
        ax, ay, az = axis[3], axis[4], axis[5]
        s, co = math.sin(y[at]), math.cos(y[at])
        w = 1.0 - co
        Rj[0, 0], Rj[0, 1], Rj[0, 2] = co + w * ax * ax, w * ax * ay - s * az, w * ax * az + s * ay
        Rj[1, 0], Rj[1, 1], Rj[1, 2] = w * ax * ay + s * az, co + w * ay * ay, w * ay * az - s * ax
        Rj[2, 0], Rj[2, 1], Rj[2, 2] = w * ax * az - s * ay, w * ay * az + s * ax, co + w * az * az
    else:  # R(p/|p|) = ((e0² − e·e) I + 2 e eᵀ + 2 e0 [e]×) / |p|²
        e0, e1, e2, e3 = y[at], y[at + 1], y[at + 2], y[at + 3]
        k2 = 1.0 / (e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
        d = (e0 * e0 - e1 * e1 - e2 * e2 - e3 * e3) * k2
        k2 *= 2.0
        Rj[0, 0], Rj[1, 1], Rj[2, 2] = d + k2 * e1 * e1, d + k2 * e2 * e2, d + k2 * e3 * e3
        Rj[0, 1], Rj[1, 0] = k2 * (e1 * e2 - e0 * e3), k2 * (e1 * e2 + e0 * e3)
        Rj[0, 2], Rj[2, 0] = k2 * (e1 * e3 + e0 * e2), k2 * (e1 * e3 - e0 * e2)
        Rj[1, 2], Rj[2, 1] = k2 * (e2 * e3 - e0 * e1), k2 * (e2 * e3 + e0 * e1)
    for r in range(3):
        p[r] = pl[r]
        for k in range(3):
            R[r, k] = Rl[r, 0] * Rj[0, k] + Rl[r, 1] * Rj[1, k] + Rl[r, 2] * Rj[2, k]
    if kind == REVOLUTE:  # the axis is fixed in the frame before the motion and after it alike
        for r in range(3):
            Sw[r + 3, 0] = Rl[r, 0] * axis[3] + Rl[r, 1] * axis[4] + Rl[r, 2] * axis[5]
        n = 1
    else:  # the child frame's axes
        for k in range(3):
            for r in range(3):
                Sw[r + 3, k] = R[r, k]
        n = 3
    for k in range(n):  # a turn about the axis through p: the world-origin point moves at p × axis
        Sw[0, k] = p[1] * Sw[5, k] - p[2] * Sw[4, k]
        Sw[1, k] = p[2] * Sw[3, k] - p[0] * Sw[5, k]
        Sw[2, k] = p[0] * Sw[4, k] - p[1] * Sw[3, k]


@njit(**JIT)
def _outwards(tree, y, n_q, work):
    """ABA's first pass: poses, motion subspaces, velocities v, bias accelerations c, the bodies' spatial
    inertias (upper triangles, into IA), momenta (into a, free until the accelerations) and bias forces pA."""
    parents, kinds, place_R, place_p, axes, mass, lever, rot_inertia = tree[:8]
    q_at, u_at = tree[9], tree[10]
    R, p, Sw, v, c, IA, pA = work[:7]
    momenta = work[10]
    Rl, pl, cw, Ic, T, vj, Rj = np.empty((3, 3)), np.empty(3), np.empty(3), np.empty((3, 3)), np.empty((3, 3)), \
        np.empty(6), np.empty((3, 3))
    for i in range(parents.size):
        lam = parents[i]
        Rp, pp = place_R[i], place_p[i]
        for r in range(3):
            if lam >= 0:
                pl[r] = p[lam, r] + R[lam, r, 0] * pp[0] + R[lam, r, 1] * pp[1] + R[lam, r, 2] * pp[2]
                for k in range(3):
                    Rl[r, k] = R[lam, r, 0] * Rp[0, k] + R[lam, r, 1] * Rp[1, k] + R[lam, r, 2] * Rp[2, k]
            else:
                pl[r] = pp[r]
                for k in range(3):
                    Rl[r, k] = Rp[r, k]
        kind = kinds[i]
        _joint_pose(kind, axes[i], y, q_at[i], Rl, pl, R[i], p[i], Sw[i], Rj)
        nv = 3 if kind == SPHERICAL else 1
        first = n_q + u_at[i]
        for r in range(6):  # the joint's own twist S u, then v = v_λ + S u and c = v ×ₘ S u
            acc = 0.0
            for k in range(nv):
                acc += Sw[i, r, k] * y[first + k]
            vj[r] = acc
            v[i, r] = acc + (v[lam, r] if lam >= 0 else 0.0)
        _cross_motion(v[i], vj, c[i])
        _body_terms(mass[i], R[i], p[i], lever[i], rot_inertia[i], v[i], IA[i], momenta[i], pA[i], cw, T, Ic)


@njit(**JIT)
def _invert(D, nv, out):
    """out = D⁻¹ of the joint's (nv, nv) block, nv 1 or 3 (D symmetric; by its adjugate)."""
    if nv == 1:
        out[0, 0] = 1.0 / D[0, 0]
        return
    a, b, c, d, e, f = D[0, 0], D[0, 1], D[0, 2], D[1, 1], D[1, 2], D[2, 2]
    A0, A1, A2 = d * f - e * e, c * e - b * f, b * e - c * d
    inv = 1.0 / (a * A0 + b * A1 + c * A2)
    out[0, 0], out[0, 1], out[0, 2] = A0 * inv, A1 * inv, A2 * inv
    out[1, 1], out[1, 2], out[2, 2] = (a * f - c * c) * inv, (b * c - a * e) * inv, (a * d - b * b) * inv
    out[1, 0], out[2, 0], out[2, 1] = out[0, 1], out[0, 2], out[1, 2]


@njit(**JIT)
def state_derivative(tree, y, out, work) -> bool:
    """out = ẏ at y = (q, u) of the free tree under no forces: q̇ (u, or ṗ = ½ p ⊗ (0, ω) for Euler
    parameters) and u̇ by ABA; False when u̇ is not finite. `work`: `floating_workspace(tree)`."""
    parents, kinds, gravity, q_at, u_at, armature = tree[0], tree[1], tree[8], tree[9], tree[10], tree[11]
    n_u = armature.size
    n_q = y.size - n_u
    R, p, Sw, v, c, IA, pA, U, Dinv, uu, a, g = work
    _outwards(tree, y, n_q, work)
    D = np.empty((3, 3))
    for i in range(parents.size - 1, -1, -1):  # inwards: articulated inertias and bias forces
        nv = 3 if kinds[i] == SPHERICAL else 1
        for r in range(1, 6):  # the lower triangle from the upper (the only one accumulated)
            for k in range(r):
                IA[i, r, k] = IA[i, k, r]
        for k in range(nv):
            for r in range(6):
                acc = 0.0
                for s in range(6):
                    acc += IA[i, r, s] * Sw[i, s, k]
                U[i, r, k] = acc
        for k in range(nv):
            sp = 0.0
            for r in range(6):
                sp += Sw[i, r, k] * pA[i, r]
            uu[i, k] = -sp  # τ = 0
            for j in range(k, nv):
                acc = 0.0
                for r in range(6):
                    acc += Sw[i, r, k] * U[i, r, j]
                D[k, j] = acc
                D[j, k] = acc
            D[k, k] += armature[u_at[i] + k]
        _invert(D, nv, Dinv[i])
        lam = parents[i]
        if lam < 0:
            continue
        for k in range(nv):  # g = D⁻¹ (u − Uᵀ c)
            acc = uu[i, k]
            for r in range(6):
                acc -= U[i, r, k] * c[i, r]
            D[0, k] = acc  # (D is free again: its inverse is kept)
        for k in range(nv):
            acc = 0.0
            for j in range(nv):
                acc += Dinv[i, k, j] * D[0, j]
            g[k] = acc
        for r in range(6):  # p^A_λ += p^A + I^A c + U g;  I^A_λ += I^A − U D⁻¹ Uᵀ
            acc = pA[i, r]
            for k in range(6):
                acc += IA[i, r, k] * c[i, k]
            for k in range(nv):
                acc += U[i, r, k] * g[k]
            pA[lam, r] += acc
            for j in range(nv):  # (U D⁻¹)_r into D's first row (free again)
                acc = 0.0
                for l in range(nv):
                    acc += U[i, r, l] * Dinv[i, l, j]
                D[1, j] = acc
            for k in range(r, 6):
                acc = IA[i, r, k]
                for j in range(nv):
                    acc -= D[1, j] * U[i, k, j]
                IA[lam, r, k] += acc
    for i in range(parents.size):  # outwards: accelerations (the ground accelerates at −g)
        lam = parents[i]
        nv = 3 if kinds[i] == SPHERICAL else 1
        for r in range(6):
            a[i, r] = (a[lam, r] if lam >= 0 else (-gravity[r] if r < 3 else 0.0)) + c[i, r]
        for k in range(nv):
            acc = uu[i, k]
            for r in range(6):
                acc -= U[i, r, k] * a[i, r]
            g[k] = acc
        first = n_q + u_at[i]
        for k in range(nv):
            acc = 0.0
            for j in range(nv):
                acc += Dinv[i, k, j] * g[j]
            out[first + k] = acc
            for r in range(6):
                a[i, r] += Sw[i, r, k] * acc
        at = q_at[i]
        if kinds[i] != SPHERICAL:
            out[at] = y[first]
        else:  # ṗ = ½ p ⊗ (0, ω) (engine.rotations.quaternion_rate_matrix)
            e0, e1, e2, e3 = y[at], y[at + 1], y[at + 2], y[at + 3]
            w1, w2, w3 = y[first], y[first + 1], y[first + 2]
            out[at] = 0.5 * (-e1 * w1 - e2 * w2 - e3 * w3)
            out[at + 1] = 0.5 * (e0 * w1 - e3 * w2 + e2 * w3)
            out[at + 2] = 0.5 * (e3 * w1 + e0 * w2 - e1 * w3)
            out[at + 3] = 0.5 * (-e2 * w1 + e1 * w2 + e0 * w3)
    return math.isfinite(np.sum(out[n_q:]))


@njit(**JIT)
def dop853_attempt(tree, t, y, f, h_abs, min_step, max_step,
                   t_bound, direction, rtol, atol, A, B, E3, E5, error_exponent, K):
    """One DOP853 step from (t, y, f) as numba_kernels.dop853_attempt takes it (its arguments and results),
    on `state_derivative` (the free tree's derivative does not depend on t)."""
    work = floating_workspace(tree)
    n_stages = B.size
    y_stage, y_new = np.empty(y.size), np.empty(y.size)
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
            if not state_derivative(tree, stage, K[s], work):
                return NONFINITE, t, h, h_abs, y_new, K[s].copy(), evaluations
        error_norm = error_estimate(K, E3, E5, y, y_new, h, rtol, atol)
        factor = step_factor(error_norm, error_exponent, rejected)
        if error_norm < 1.0:
            return ACCEPTED, t_new, h, h_abs * factor, y_new, K[n_stages].copy(), evaluations
        h_abs *= factor
        rejected = True


@njit(**JIT)
def dop853_extra_stages(tree, y_old, h, A_extra, K) -> bool:
    """The three extra stages of DOP853's dense output into K's rows after the step's; False when one is not
    finite."""
    work = floating_workspace(tree)
    y_stage = np.empty(y_old.size)
    first = K.shape[0] - A_extra.shape[0]
    for e in range(A_extra.shape[0]):
        _stage_state(K, A_extra[e], first + e, y_old, h, y_stage)
        if not state_derivative(tree, y_stage, K[first + e], work):
            return False
    return True


@njit(**JIT)
def energies_and_centres(tree, y, body_joint, body_lever, centres):
    """(kinetic energy with the rotors' ½ Σ a u², gravity's potential energy −Σ m g·c over the joints' bodies)
    at y = (q, u), and every body's mass centre into centres: body_lever[b] in the frame of kernel joint
    body_joint[b] (−1: fixed to the ground, body_lever then in the world)."""
    armature = tree[11]
    work = floating_workspace(tree)
    n_q = y.size - armature.size
    _outwards(tree, y, n_q, work)
    T2, V = _energies_and_centres(tree, work[0], work[1], work[3], work[10], body_joint, body_lever, centres)
    for k in range(armature.size):
        T2 += armature[k] * y[n_q + k] ** 2
    return 0.5 * T2, V
