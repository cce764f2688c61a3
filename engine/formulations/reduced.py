"""Reduction onto independent (quasi-)velocities: shared by Maggi and Kane.

Velocity-level rows linear in u, A_L u + c_L = 0, are split by coordinate partitioning into
dependent speeds u_d and independent speeds u_i (the best-conditioned square block A_d, re-chosen
when it degrades):

    u = C u_i + c,   C = [I; −A_d⁻¹ A_i],   c = [0; −A_d⁻¹ c_L]

Only (q, u_i) are integrated, so those rows hold by construction. At the acceleration level
A_L u_dot = b_L gives u_dot = C u_i_dot + p; the remaining acceleration rows A_R u_dot = b_R
restrict u_i_dot = N w + w_p further (N a basis of their null space). The l reduced equations are

    (Nᵀ Cᵀ M C N) w = Nᵀ Cᵀ (f − M (C w_p + p))

and the reactions follow from the second group λ = Dᵀ (M u_dot − f) with A D = I (D = A⁺).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from ..constraints import StateContext
from ..system import SingularMassMatrix
from .base import Formulation
from .rank import RANK_RTOL, independent_partition, numerical_rank

REPARTITION_FACTOR = 3.0  # re-choose when ‖A_d⁻¹ A_L‖ grows this much beyond its value at the choice
REPARTITION_FLOOR = 3.0


class ReducedFormulation(Formulation):
    acceleration_basis = "orthonormal"  # or "partitioning"

    def __init__(self, system, settings):
        super().__init__(system, settings)
        self.dep = np.zeros(0, int)
        self.indep = np.arange(system.n_u)
        self.partition_rows = np.zeros(0, int)
        self._rest_rows = np.arange(self.n_rows)  # rows kept at the acceleration level
        self.partition_cond = 1.0
        self.repartitions = 0

    def velocity_rows(self, level, linear_rows) -> np.ndarray:
        """Which linear velocity-level rows this formulation eliminates by partitioning."""
        raise NotImplementedError

    @property
    def integrates(self):
        nq, l = self.system.n_q, len(self.indep)
        return f"q ({nq}), independent speeds ({l}); {self.n_rows} reactions"

    # --- partition ------------------------------------------------------------------------

    def _velocity_matrix(self, t, q, ks=None):
        """A_L and c_L at (t, q): the rows are linear in u, so evaluate them at u = 0 (the
        kinematics' positions stage)."""
        u0 = np.zeros(self.system.n_u)
        ks = self.system.kin.positions(q) if ks is None else ks
        W = self.system.kin.rate_matrix(q) if self.system.has_body_rates else None
        return self.constraints.evaluate(StateContext(t=t, q=q, u=u0, qd=u0, W=W, ks=ks))

    def choose_partition(self, t, q):
        if not self.n_rows:
            return
        rows = self._velocity_matrix(t, q)
        sel = self.velocity_rows(rows.level, rows.linear_rows)
        self.partition_rows = sel
        if sel.size == 0:
            return
        # redundant rows carry no information at the velocity level: keep an independent subset
        keep = _independent_rows(rows.A[sel])
        self.partition_rows = sel = sel[keep]
        self._rest_rows = np.setdiff1d(np.arange(self.n_rows), sel)
        A_L = rows.A[sel]
        dep, indep = independent_partition(A_L)
        self.dep, self.indep = dep, indep
        self.partition_cond = self._partition_measure(A_L)

    def _partition_measure(self, A_L) -> float:
        """‖A_d⁻¹ A_L‖₂ = ‖[I, A_d⁻¹ A_i]‖₂: large when the dependent speeds are badly chosen."""
        return float(np.linalg.norm(np.linalg.solve(A_L[:, self.dep], A_L), 2))

    def initial_state(self, q, u):
        self.choose_partition(0.0, q)
        return np.concatenate((q, u[self.indep]))

    def qu_to_state(self, q, u):
        return np.concatenate((q, u[self.indep]))

    def state_to_qu(self, t, y):
        return self.state_to_qu_positions(t, y)[:2]

    def state_to_qu_positions(self, t, y):
        n = self.system.n_q
        q, ui = y[:n], y[n:]
        if self.dep.size == 0:
            return q, ui, None
        positions = self.system.kin.positions(q)
        rows = self._velocity_matrix(t, q, positions)
        sel = self.partition_rows
        A_L = rows.A[sel]
        c_L = rows.c[np.searchsorted(rows.linear_rows, sel)]
        u = np.empty(self.system.n_u)
        u[self.indep] = ui
        u[self.dep] = np.linalg.solve(A_L[:, self.dep], -(A_L[:, self.indep] @ ui + c_L))
        return q, u, positions

    def state_changed(self, t, y):
        if self.dep.size == 0:
            return None
        q, u = self.state_to_qu(t, y)
        rows = self._velocity_matrix(t, q)
        cond = self._partition_measure(rows.A[self.partition_rows])
        if cond < max(REPARTITION_FLOOR, REPARTITION_FACTOR * self.partition_cond):
            return None
        self.choose_partition(t, q)
        self.repartitions += 1
        return np.concatenate((q, u[self.indep]))

    # --- the reduced equations ---------------------------------------------------------------

    def state_derivative(self, ev):
        return np.concatenate((ev.dynamics.qd, ev.u_dot[self.indep]))

    def accelerations(self, dyn, rows):
        M, f = dyn.M, dyn.forcing
        if rows is None:
            return self.system.solve_mass(M, f), np.zeros(0), {}
        n = M.shape[0]
        sel, rest = self.partition_rows, self._rest_rows
        C = np.zeros((n, len(self.indep)))
        C[self.indep, np.arange(len(self.indep))] = 1.0
        p = np.zeros(n)
        if sel.size:
            A_L, b_L = rows.A[sel], rows.b[sel]
            A_d = A_L[:, self.dep]
            C[self.dep] = -np.linalg.solve(A_d, A_L[:, self.indep])
            p[self.dep] = np.linalg.solve(A_d, b_L)
        scale = float(np.max(np.abs(rows.A[rest]), initial=0.0))
        N, w_p = self.acceleration_basis_for(rows.A[rest] @ C, rows.b[rest] - rows.A[rest] @ p, rest, scale)
        CN = C @ N
        reduced_M = CN.T @ M @ CN
        reduced_f = CN.T @ (f - M @ (C @ w_p + p))
        try:
            w = scipy.linalg.cho_solve(scipy.linalg.cho_factor(reduced_M, check_finite=False), reduced_f, check_finite=False)
        except np.linalg.LinAlgError:
            raise SingularMassMatrix("the reduced mass matrix Nᵀ Cᵀ M C N is singular") from None
        u_dot = C @ (N @ w + w_p) + p
        # second group: λ = Dᵀ (M u_dot − f), A D = I
        lam = scipy.linalg.pinv(rows.A, rtol=RANK_RTOL).T @ (M @ u_dot - f) if self.multipliers_wanted else np.zeros(0)
        return u_dot, lam, {"independent": len(self.indep), "reduced_dof": N.shape[1]}

    def acceleration_basis_for(self, A_R, b_R, row_index, scale=0.0):
        """Null-space basis N of A_R and a particular w_p with A_R w_p = b_R."""
        l = A_R.shape[1]
        if A_R.shape[0] == 0:
            return np.eye(l), np.zeros(l)
        if self.acceleration_basis == "partitioning":
            keep = _independent_rows(A_R, scale)  # redundant rows dropped
            A_R, b_R = A_R[keep], b_R[keep]
            dep, indep = independent_partition(A_R)
            N = np.zeros((l, len(indep)))
            N[indep, np.arange(len(indep))] = 1.0
            N[dep] = -np.linalg.solve(A_R[:, dep], A_R[:, indep])
            w_p = np.zeros(l)
            w_p[dep] = np.linalg.solve(A_R[:, dep], b_R)
            return N, w_p
        k = A_R.shape[0]
        if k <= l:
            Q, Rm = np.linalg.qr(A_R.T, mode="complete")  # A_Rᵀ = Q Rm: the last l − k columns span the null space
            diag = np.abs(np.diag(Rm[:k]))
            if diag.size and diag.min() > 1e3 * RANK_RTOL * max(diag.max(), scale):
                z = scipy.linalg.solve_triangular(Rm[:k].T, b_R, lower=True, check_finite=False)
                return Q[:, k:], Q[:, :k] @ z
        U, s, Vt = scipy.linalg.svd(A_R, check_finite=False)  # rank-deficient: the SVD decides
        # rows already implied by the eliminated ones leave A_R C ≈ 0: judge rank on A's own scale
        r = int(np.sum(s > RANK_RTOL * max(s[0], scale, 1e-300))) if s.size else 0
        N = Vt[r:].T
        # minimum-norm particular solution; redundant rows (r < rows) are simply absorbed
        w_p = Vt[:r].T @ ((U[:, :r].T @ b_R) / s[:r])
        return N, w_p


def _independent_rows(A: np.ndarray, scale: float = 0.0) -> np.ndarray:
    """Indices of a maximal set of independent rows (QR with pivoting on Aᵀ)."""
    if A.shape[0] == 0:
        return np.zeros(0, int)
    r = numerical_rank(A, scale)
    _, _, piv = scipy.linalg.qr(A.T, pivoting=True, mode="economic")
    return np.sort(piv[:r])


class _Subset:
    """Row labels of a subset of a ConstraintSet's rows."""

    def __init__(self, constraints, rows):
        self.constraints, self.rows = constraints, rows

    def row_label(self, i):
        return self.constraints.row_label(int(self.rows[i]))
