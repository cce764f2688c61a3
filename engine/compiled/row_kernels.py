"""The constraint rows of engine.compiled.constrained_kernels' right-hand side, compiled (numba): every row's
A, Φ and bias b at the state, from the points' world positions, Jacobians, velocities and accelerations
(the kernel's tree terms give the joints' twists v and accelerations a at u̇ = 0).

The rows (THEORY.md §2: holonomic rows differentiated twice, first-order rows once): a point P fixed in
joint j's body has J_P columns Sw_s,lin + Sw_s,ang × P over j and its ancestors s, v_P = v_j,lin + ω_j × P
and, at u̇ = 0, a_P = a_j,lin + α_j × P + ω_j × v_P;
  coincident:  Φ = (P_b − P_a)[axis], A = (J_Pb − J_Pa)[axis], b = −(a_Pb − a_Pa)[axis];
  distance:    Φ = (d·d − L²)/(2L), A = dᵀ (J_Pb − J_Pa)/L, b = −(d·(a_Pb − a_Pa) + ḋ·ḋ)/L, d = P_b − P_a;
  rolling disk (engine.constraints.geometric.RollingDiskRows): a = the world axis, p = k − (a·k) a, s = |p|,
  ρ = −r p/s, contact Φ = C_z − r s; A = J_P[z, x, y] at the material point P = C + ρ;
  b = −(a_C + α × ρ + ω × ρ̇)[z, x, y] with ρ̇ from ȧ = ω × a (the contact point slides along the rim);
  knife edge: ψ = n·v_P, A = nᵀ J_P, b = −(n·a_P + (ω × n)·v_P);
  Baumgarte's terms (THEORY.md §3) taken off b: b − 2α Φ̇ − β² Φ on holonomic rows, b − α ψ on first-order ones.
The rows' table (kinds, points, axes) is engine.compiled.kernel_model's.

Imported only in the thread that compiles the kernels (engine.compiled.compiled_step).
"""
from __future__ import annotations

import math

from numba import njit

from eomlab.engine.compiled.kernel_model import COINCIDENT, DISTANCE, ROLLING

JIT = dict(cache=True, nogil=True, error_model="numpy")


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
