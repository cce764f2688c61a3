"""The kinematic equations q_dot = W(q) u of a tree: coordinate rates from speeds and back, W
itself, the Euler-parameter normalisation and the Euler-angle gimbal lock."""
from __future__ import annotations

import math

import numpy as np

from ..rotations import gimbal_margin, quaternion_body_rates, quaternion_rate_matrix
from .layout import GimbalLock, JointLayout


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

