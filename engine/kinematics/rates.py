"""The kinematic equations q_dot = W(q) u of a tree: coordinate rates from speeds and back, W
itself, the Euler-parameter normalisation and the Euler-angle gimbal lock."""
from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from eomlab.engine.rotations import gimbal_margin, quaternion_body_rates, quaternion_rate_matrix
from eomlab.engine.kinematics.layout import GimbalLock, JointLayout


class KinematicEquations:
    """q_dot = W(q) u for the joints of `TreeKinematics` (which provides `joints`, `n_q`, `n_u`,
    `coordinate_names`, `body_names`, `quaternion_joints` and the plain index maps)."""

    def _body_rate_blocks(self, q: np.ndarray):
        """(joint, its rotation coordinates' slice, its body rates' slice, matrix) for each joint
        whose speeds are body rates: E_b with ω_body = E_b · (Euler-angle rates), or for Euler
        parameters the (4, 3) matrix of ṗ = ½ p ⊗ ω_body."""
        for jl in self.joints:
            if not jl.turns_with_body_rates:
                continue
            qs, us = jl.q_slice, jl.u_slice
            if jl.quaternion:
                qb = slice(qs.stop - 4, qs.stop)
                yield jl, qb, slice(us.stop - 3, us.stop), quaternion_rate_matrix(q[qb])
            else:
                _, rb, rc = jl.euler.parts(q[qs][-3:])
                yield jl, slice(qs.stop - 3, qs.stop), slice(us.stop - 3, us.stop), jl.euler.rate_matrix_body(rb, rc)

    def qdot(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Coordinate rates from speeds; body-rate speeds go through the Euler rate matrix or the
        Euler parameters' kinematic equations."""
        qd = np.empty(self.n_q)
        qd[self._plain_q] = u[self._plain_u]
        for jl, qb, ub, E in self._body_rate_blocks(q):
            if jl.quaternion:
                qd[qb] = E @ u[ub]
            else:
                self._check_gimbal(jl, q[jl.q_slice][-2])
                qd[qb] = np.linalg.solve(E, u[ub])
        return qd

    def speeds_from_rates(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Inverse of qdot: speeds u from coordinate rates."""
        u = np.empty(self.n_u)
        u[self._plain_u] = qd[self._plain_q]
        for jl, qb, ub, E in self._body_rate_blocks(q):
            u[ub] = quaternion_body_rates(q[qb], qd[qb]) if jl.quaternion else E @ qd[qb]
        return u

    def rate_matrix(self, q: np.ndarray) -> np.ndarray:
        """W(q) (n_q, n_u) with q_dot = W u (identity for rate speeds)."""
        W = np.zeros((self.n_q, self.n_u))
        W[self._plain_q, self._plain_u] = 1.0
        for jl, qb, ub, E in self._body_rate_blocks(q):
            if not jl.quaternion:
                self._check_gimbal(jl, q[jl.q_slice][-2])  # a named GimbalLock, not a singular E
            W[qb, ub] = E if jl.quaternion else np.linalg.inv(E)
        return W

    def rate_matrix_closed_form(self, q: np.ndarray) -> np.ndarray:
        """W(q) as `rate_matrix` (which stays the reference), each block in closed form: the
        Euler-parameter blocks of all joints in two numpy operations, each Euler-angle block E_b⁻¹
        from plain floats (`_body_rates_to_angle_rates`) instead of three turns, a stack and an
        inverse in numpy. The compiled path's (engine.mechanics.system)."""
        layout = self._closed_form_layout
        W = layout["plain"].copy()
        if layout["quaternion_q"] is not None:
            p = q[layout["quaternion_q"]]  # (k, 4); each block is linear in p
            W[layout["quaternion_rows"], layout["quaternion_cols"]] = np.einsum("jk,kab->jab", p, _QUATERNION_BASIS)
        for jl, qb, ub, axes in layout["euler"]:
            theta, phi = float(q[qb.start + 1]), float(q[qb.start + 2])
            self._check_gimbal(jl, theta)
            W[qb, ub] = _body_rates_to_angle_rates(axes, theta, phi)
        return W

    @cached_property
    def _closed_form_layout(self) -> dict:
        plain = np.zeros((self.n_q, self.n_u))
        plain[self._plain_q, self._plain_u] = 1.0
        quaternions = [jl for jl in self.joints if jl.quaternion]
        layout = {"plain": plain, "quaternion_q": None,
                  "euler": [(jl, slice(jl.q_slice.stop - 3, jl.q_slice.stop), slice(jl.u_slice.stop - 3, jl.u_slice.stop),
                             tuple(tuple(float(x) for x in e) for e in (jl.euler.e_a, jl.euler.e_b, jl.euler.e_c)))
                            for jl in self.joints if jl.euler is not None and jl.body_rates]}
        if quaternions:
            q0 = np.array([jl.q_slice.stop - 4 for jl in quaternions])
            u0 = np.array([jl.u_slice.stop - 3 for jl in quaternions])
            layout["quaternion_q"] = q0[:, None] + np.arange(4)  # (k, 4)
            layout["quaternion_rows"] = np.broadcast_to(layout["quaternion_q"][:, :, None], (len(quaternions), 4, 3))
            layout["quaternion_cols"] = np.broadcast_to((u0[:, None] + np.arange(3))[:, None, :], (len(quaternions), 4, 3))
        return layout

    def quaternion_rates_bias(self, qd: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Ẇ u (n_q) on the Euler-parameter rows: q̈ = W u̇ + Ẇ u, and W is linear in p there,
        so Ẇ u = ½ Q(ṗ) ω. Zero on every other row (Euler-angle body-rate blocks excluded)."""
        bias = np.zeros(self.n_q)
        for jl in self.quaternion_joints:
            qs, us = jl.q_slice, jl.u_slice
            qb = slice(qs.stop - 4, qs.stop)
            bias[qb] = quaternion_rate_matrix(qd[qb]) @ u[us.stop - 3 : us.stop]
        return bias

    def euler_body_rate_coordinates(self) -> list[int]:
        """Indices of the Euler angles whose joint has body-rate speeds (q_dot = E⁻¹ ω)."""
        return [k for jl in self.joints if jl.euler is not None and jl.body_rates
                for k in range(jl.q_slice.stop - 3, jl.q_slice.stop)]

    def speed_of_coordinate(self, k: int) -> int | None:
        """The speed that is coordinate k's rate, or None (rotation coordinates of body-rate joints)."""
        hit = np.flatnonzero(self._plain_q == k)
        return int(self._plain_u[hit[0]]) if hit.size else None

    # --- Euler parameters: the normalisation constraint e·e = 1 ------------------------------

    def normalisation_residuals(self, q: np.ndarray) -> np.ndarray:
        """e·e − 1 of every Euler-parameter joint (the flow keeps it; integration error does not)."""
        return np.array([float(q[jl.q_slice][-4:] @ q[jl.q_slice][-4:]) - 1.0 for jl in self.quaternion_joints])

    def normalised(self, q: np.ndarray) -> np.ndarray:
        """q with every Euler-parameter joint scaled to |p| = 1 (the nearest point, and the same pose)."""
        q = np.array(q, dtype=float)
        for jl in self.quaternion_joints:
            qs = jl.q_slice
            p = q[qs.stop - 4 : qs.stop]
            n = math.sqrt(float(p @ p))
            if not n > 1e-12:
                raise ArithmeticError(f"the Euler parameters of '{self.body_names[jl.body]}' are all zero")
            q[qs.stop - 4 : qs.stop] = p / n
        return q

    def _check_gimbal(self, jl: JointLayout, theta: float, tol: float = 1e-9):
        if gimbal_margin(jl.euler.sequence, theta) < tol:
            name = self.coordinate_names[jl.q_slice.stop - 2]
            raise GimbalLock(name, theta, jl.body_rates)

    def gimbal_values(self, q: np.ndarray) -> np.ndarray:
        """sin θ (symmetric sequences) or cos θ (others) of every Euler-angle joint: 0 at the lock."""
        vals = []
        for jl in self.joints:
            if jl.euler is not None:
                th = q[jl.q_slice][-2]
                vals.append(math.sin(th) if jl.euler.sequence[0] == jl.euler.sequence[2] else math.cos(th))
        return np.array(vals)

    def gimbal_crossing(self, q_before: np.ndarray, q_after: np.ndarray, tol: float):
        """Raise GimbalLock when a step reached or crossed an Euler-angle singularity."""
        before, after = self.gimbal_values(q_before), self.gimbal_values(q_after)
        k = 0
        for jl in self.joints:
            if jl.euler is None:
                continue
            if abs(after[k]) < tol or before[k] * after[k] < 0:
                raise GimbalLock(self.coordinate_names[jl.q_slice.stop - 2], float(q_after[jl.q_slice][-2]),
                                 jl.body_rates)
            k += 1

    def gimbal_checks(self, q: np.ndarray, tol: float = 1e-9):
        """Raise GimbalLock when an Euler-angle joint sits (within tol) at its singular angle."""
        for jl in self.joints:
            if jl.euler is not None:
                self._check_gimbal(jl, q[jl.q_slice][-2], tol)



# ṗ = ½ p ⊗ (0, ω) is linear in p: its (4, 3) matrix for each unit p, so W's block is Σ p_k basis_k
_QUATERNION_BASIS = np.stack([quaternion_rate_matrix(e) for e in np.eye(4)])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _body_rates_to_angle_rates(axes, theta: float, phi: float):
    """E_b⁻¹ (rows) for R = R_a(ψ) R_b(θ) R_c(φ) about the unit axes (e_a, e_b, e_c), with
    ω_body = E_b (ψ̇, θ̇, φ̇) and E_b's columns c0 = R_cᵀ R_bᵀ e_a, c1 = R_cᵀ e_b, c2 = e_c.
    c1 and c2 are orthonormal (e_b ⟂ e_c), so with n = c1 × c2 the rows are n / (n·c0) and
    c_i − (c_i·c0) n / (n·c0) for i = 1, 2; n·c0 vanishes at gimbal lock (checked before)."""
    ea, eb, ec = axes
    ct, st, cp, sp = math.cos(theta), math.sin(theta), math.cos(phi), math.sin(phi)
    ba = _cross(eb, ea)
    v = (ct * ea[0] - st * ba[0], ct * ea[1] - st * ba[1], ct * ea[2] - st * ba[2])  # R_bᵀ e_a (e_a ⟂ e_b)
    cv, along = _cross(ec, v), (1.0 - cp) * _dot(ec, v)
    c0 = (cp * v[0] - sp * cv[0] + along * ec[0], cp * v[1] - sp * cv[1] + along * ec[1],
          cp * v[2] - sp * cv[2] + along * ec[2])
    cb = _cross(ec, eb)
    c1 = (cp * eb[0] - sp * cb[0], cp * eb[1] - sp * cb[1], cp * eb[2] - sp * cb[2])
    n = _cross(c1, ec)
    d = _dot(n, c0)
    r0 = (n[0] / d, n[1] / d, n[2] / d)
    k1, k2 = _dot(c1, c0), _dot(ec, c0)
    return (r0,
            (c1[0] - k1 * r0[0], c1[1] - k1 * r0[1], c1[2] - k1 * r0[2]),
            (ec[0] - k2 * r0[0], ec[1] - k2 * r0[1], ec[2] - k2 * r0[2]))
