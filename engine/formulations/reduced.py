"""Reduction onto independent (quasi-)velocities, shared by the reduced formulations (Maggi, Kane, …).

Velocity-level rows linear in u, A_L u + c_L = 0, are split by coordinate partitioning into
dependent speeds u_d and independent speeds u_i (the best-conditioned square block A_d, re-chosen
when it degrades):

    u = C u_i + c,   C = [I; −A_d⁻¹ A_i],   c = [0; −A_d⁻¹ c_L]

Only (q, u_i) are integrated, so those rows hold by construction. At the acceleration level
A_L u_dot = b_L gives u_dot = C u_i_dot + p; the remaining acceleration rows A_R u_dot = b_R
restrict u_i_dot = N w + w_p further (N a basis of their null space). The l reduced equations are

    (Nᵀ Cᵀ M C N) w = Nᵀ Cᵀ (f − M (C w_p + p))

and the reactions follow from the second group λ = Dᵀ (M u_dot − f) with A D = I (D = A⁺).
Subclasses choose which rows are eliminated at the velocity level (`velocity_rows`) and may give
the l equations in the quasi-accelerations w another way (`reduced_equations`).

An impulse keeps every velocity-level row: the jump lies in the admissible velocities, Δu = C N Δw
(C this formulation's partition, N a basis of the remaining velocity-level rows), and the reduced
equations integrated over the impact give (`impulse_response`; `impulse_matrix` the left side)

    (Nᵀ Cᵀ M C N) Δw = Nᵀ Cᵀ Q̂.
"""
from __future__ import annotations

import math
from abc import abstractmethod

import numpy as np

from eomlab.engine.constraints import HOLONOMIC, VELOCITY, StateContext
from eomlab.engine.lazy_imports import lapack_routines, scipy_linalg
from eomlab.engine.mechanics.system import SingularMassMatrix
from eomlab.engine.formulations.formulation import Evaluation, Formulation
from eomlab.engine.formulations.rank import RANK_RTOL, independent_partition, numerical_rank

_GETRF, _GETRS, _POTRF, _POTRS, _GEQRF, _ORGQR, _TRTRS = lapack_routines(
    "getrf", "getrs", "potrf", "potrs", "geqrf", "orgqr", "trtrs")

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

    @abstractmethod
    def velocity_rows(self, level, linear_rows) -> np.ndarray:
        """Which linear velocity-level rows this formulation eliminates by partitioning."""

    def constraint_force(self, dyn, state, u_dot):
        """Aᵀλ: what the tree's equations lack at u_dot, here M u_dot − f."""
        return dyn.M @ u_dot - dyn.forcing

    def unconstrained_accelerations(self, dyn, state) -> np.ndarray:
        """u_dot without constraint rows: the tree's M u_dot = f (by ABA on the compiled path)."""
        return self.system.free_accelerations(dyn)

    def reduced_equations(self, dyn, state, CN, u_p):
        """The l equations in the quasi-accelerations w, where u_dot = CN w + u_p (CN, u_p None:
        u_dot = w): (matrix, right-hand side). Here the projection of the tree's M u_dot = f,
        (CNᵀ M CN) w = CNᵀ (f − M u_p)."""
        M, f = dyn.M, dyn.forcing
        if CN is None:
            return M, f
        return CN.T @ (M @ CN), CN.T @ (f - M @ u_p)

    @property
    def integrates(self):
        nq, l = self.system.n_q, len(self.indep)
        if self.dep.size == 0 and self.n_rows:  # no row eliminated (Maggi's holonomic rows): every speed
            return f"q ({nq}), u ({l}); {self.n_rows} reactions"
        return f"q ({nq}), independent speeds ({l}); {self.n_rows} reactions"

    # --- partition ------------------------------------------------------------------------

    def _zero_context(self, t, q, ks=None):
        u0 = np.zeros(self.system.n_u)
        ks = self.system.kinematic_positions(q) if ks is None else ks
        W = self.system.rate_matrix(q) if self.system.has_body_rates else None
        return StateContext(t=t, q=q, u=u0, qd=np.zeros(self.system.n_q), W=W, ks=ks)

    def _velocity_matrix(self, t, q, ks=None):
        """A_L and c_L at (t, q): the rows are linear in u, so evaluate them at u = 0 (the
        kinematics' positions stage)."""
        return self.constraints.evaluate(self._zero_context(t, q, ks))

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
        return _PartitionFactor(A_L, self.dep, self.indep).measure()

    def initial_state(self, q, u):
        self.choose_partition(0.0, q)
        return np.concatenate((q, u[self.indep]))

    def qu_to_state(self, q, u):
        return np.concatenate((q, u[self.indep]))

    def state_to_qu(self, t, y):
        return self.state_to_qu_positions(t, y)[:2]

    def state_to_qu_positions(self, t, y):
        q, u, positions, _, _ = self._reconstruct(t, y)
        return q, u, positions

    def _reconstruct(self, t, y):
        """(q, u, positions stage, rows at u = 0 split per kind, partition factor) from (q, u_i).

        u_d = −A_d⁻¹ (A_i u_i + c_L) with A_L, c_L the partition rows at u = 0; the LU factor of
        A_d and A_d⁻¹ A_i are kept for the accelerations at the same q.
        """
        n = self.system.n_q
        q, ui = y[:n], y[n:]
        if self.dep.size == 0:
            return q, ui, None, None, None
        positions = self.system.kinematic_positions(q)
        split = self.constraints.evaluate_split(self._zero_context(t, q, positions))
        rows = split.rows
        sel = self.partition_rows
        A_L = rows.A[sel]
        c_L = rows.c[np.searchsorted(rows.linear_rows, sel)]
        factor = _PartitionFactor(A_L, self.dep, self.indep, c_L)
        u = np.empty(self.system.n_u)
        u[self.indep] = ui
        u[self.dep] = -(factor.X @ ui + factor.x_c)
        return q, u, positions, split, factor

    def state_changed(self, t, y):
        if self.dep.size == 0:
            return None
        q, u, _, _, factor = self._reconstruct(t, y)
        cond = factor.measure()
        if cond < max(REPARTITION_FLOOR, REPARTITION_FACTOR * self.partition_cond):
            return None
        self.choose_partition(t, q)
        self.repartitions += 1
        return np.concatenate((q, u[self.indep]))

    # --- impacts ----------------------------------------------------------------------------

    def impulse_matrix(self, dyn, state, CN):
        """The left side of the reduced impulsive equations: (CN)ᵀ M (CN)."""
        return CN.T @ (dyn.M @ CN)

    def impulse_response(self, ev, Q):
        """Δu = CN Δw with (CN)ᵀ M (CN) Δw = (CN)ᵀ Q̂ (the module docstring), per column of Q."""
        n = ev.u.shape[0]
        rows = ev.rows
        C = np.eye(n)
        sel = self.partition_rows if rows is not None else np.zeros(0, int)
        if sel.size:
            C = np.zeros((n, len(self.indep)))
            C[self.indep, np.arange(len(self.indep))] = 1.0
            C[self.dep] = -_PartitionFactor(rows.A[sel], self.dep, self.indep).X
        CN = C
        if rows is not None:
            rest = np.setdiff1d(np.flatnonzero((rows.level == HOLONOMIC) | (rows.level == VELOCITY)), sel)
            if rest.size:
                A_R = rows.A[rest] @ C
                N, _ = self.acceleration_basis_for(A_R, np.zeros(rest.size), rest, float(np.max(np.abs(rows.A))))
                CN = C @ N
        if CN.shape[1] == 0:
            return np.zeros_like(Q)
        H = np.array(self.impulse_matrix(ev.dynamics, ev.dynamics, CN), dtype=float)
        return CN @ np.linalg.solve(H, CN.T @ Q)

    # --- the reduced equations ---------------------------------------------------------------

    def state_derivative(self, ev):
        return np.concatenate((ev.dynamics.qd, ev.u_dot[self.indep]))

    def evaluate(self, t, y):
        """As Formulation.evaluate, with the constraint rows evaluated once per state: the rows at
        u = 0 that give u_d also give A, c and Φ at u (ConstraintSet.rows_at), and the LU factor
        of A_d serves the accelerations too. Formulation.evaluate is the general path (tests)."""
        if self.dep.size == 0 or not self.n_rows:
            return Formulation.evaluate(self, t, y)
        q, u, positions, split, factor = self._reconstruct(t, y)
        dyn = self.system.dynamics(t, q, u, positions)
        state = self.context(t, q, u, dyn)
        rows = self.constraints.rows_at(split, state)
        if self.baumgarte is not None:
            rows.b = rows.b - self.baumgarte_terms(rows)
        try:
            u_dot, lam, diag = self.accelerations(dyn, rows, state, factor)
        except SingularMassMatrix:
            self.system.kin.gimbal_checks(q, 1e-3)  # name a gimbal lock rather than its symptom
            raise
        return Evaluation(q=q, u=u, u_dot=u_dot, multipliers=lam, rows=rows, dynamics=dyn, diagnostics=diag)

    def accelerations(self, dyn, rows, state, factor=None):
        """`factor`: the _PartitionFactor of A_L at this q, if the caller has it."""
        if rows is None:
            return self.unconstrained_accelerations(dyn, state), np.zeros(0), {}
        n = dyn.u.shape[0]  # (M itself only if the reduced equations ask for it)
        sel, rest = self.partition_rows, self._rest_rows
        l = len(self.indep)
        if sel.size:
            C = self._selection(n, l)
            p = np.zeros(n)
            if factor is None:
                factor = _PartitionFactor(rows.A[sel], self.dep, self.indep)
            C[self.dep] = -factor.X
            p[self.dep] = factor.solve(rows.b[sel])
        else:  # nothing eliminated at the velocity level: C = I, p = 0
            C = p = None
        if rest.size:
            A_R = rows.A if sel.size == 0 and rest.size == rows.A.shape[0] else rows.A[rest]
            scale = float(np.max(np.abs(A_R), initial=0.0))
            if C is None:
                N, w_p = self.acceleration_basis_for(A_R, rows.b[rest], rest, scale)
                CN, u_p = N, w_p
            else:
                N, w_p = self.acceleration_basis_for(A_R @ C, rows.b[rest] - A_R @ p, rest, scale)
                CN, u_p = C @ N, C @ w_p + p
        else:  # no acceleration-level rows left: N = I, w_p = 0
            N = None
            CN, u_p = (np.eye(n), np.zeros(n)) if C is None else (C, p)
        if CN.shape[1]:
            reduced_M, reduced_f = self.reduced_equations(dyn, state, CN, u_p)
            factor_M, info = _POTRF(reduced_M, lower=False, overwrite_a=True, clean=False)
            if info != 0:
                raise SingularMassMatrix("the reduced mass matrix Nᵀ Cᵀ M C N is singular")
            u_dot = CN @ _POTRS(factor_M, reduced_f, lower=False)[0] + u_p
        else:  # no freedom left: the rows fix the accelerations
            u_dot = u_p
        # second group: λ = Dᵀ Aᵀλ, A D = I (Aᵀλ = M u_dot − f for the projected tree equations)
        lam = _second_group(rows.A, self.constraint_force(dyn, state, u_dot)) if self.multipliers_wanted else np.zeros(0)
        return u_dot, lam, {"independent": l, "reduced_dof": l if N is None else N.shape[1]}

    def _selection(self, n, l):
        """A fresh n × l matrix with a 1 at (indep[j], j): C's independent rows (kept per partition)."""
        kept = getattr(self, "_selection_kept", None)
        if kept is None or kept[0] is not self.indep:
            C = np.zeros((n, l))
            C[self.indep, np.arange(l)] = 1.0
            kept = self._selection_kept = (self.indep, C)
        return kept[1].copy()

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
            # A_Rᵀ = Q Rm (Householder QR, LAPACK geqrf/orgqr): the last l − k columns of Q span the null space
            qr, tau, _, info = _GEQRF(A_R.T)
            R = qr[:k]  # Rm[:k] in its upper triangle (trtrs reads only that)
            diag = np.abs(np.diagonal(R))
            if info == 0 and diag.size and diag.min() > 1e3 * RANK_RTOL * max(diag.max(), scale):
                full = np.zeros((l, l))
                full[:, :k] = qr
                Q = _ORGQR(full, tau, overwrite_a=True)[0]
                z = _TRTRS(R, b_R, lower=False, trans=1)[0]  # Rmᵀ z = b_R
                return Q[:, k:], Q[:, :k] @ z
        U, s, Vt = scipy_linalg.svd(A_R, check_finite=False)  # rank-deficient: the SVD decides
        # rows already implied by the eliminated ones leave A_R C ≈ 0: judge rank on A's own scale
        r = int(np.sum(s > RANK_RTOL * max(s[0], scale, 1e-300))) if s.size else 0
        N = Vt[r:].T
        # minimum-norm particular solution; redundant rows (r < rows) are simply absorbed
        w_p = Vt[:r].T @ ((U[:, :r].T @ b_R) / s[:r])
        return N, w_p


def _second_group(A: np.ndarray, r: np.ndarray) -> np.ndarray:
    """λ = Dᵀ r with A D = I, D = A⁺ (singular values below RANK_RTOL × the largest cut).

    Full row rank (the usual case): Aᵀ = Q₁ R gives A⁺ = Q₁ R⁻ᵀ, so λ = R⁻¹ Q₁ᵀ r — a QR instead
    of an SVD. Anything near rank deficiency goes to the SVD-based pseudo-inverse.
    """
    k, n = A.shape
    if k == 0:
        return np.zeros(0)
    if k <= n:
        qr, tau, _, info = _GEQRF(A.T)
        R = qr[:k]
        diag = np.abs(np.diagonal(R))
        if info == 0 and diag.min() > 1e3 * RANK_RTOL * diag.max():
            Q1 = _ORGQR(qr, tau)[0]
            return _TRTRS(R, Q1.T @ r, lower=False)[0]
    return scipy_linalg.pinv(A, rtol=RANK_RTOL).T @ r


class _PartitionFactor:
    """LU factor of the dependent block A_d of the partition rows A_L, X = A_d⁻¹ A_i and
    (given c_L) x_c = A_d⁻¹ c_L."""

    def __init__(self, A_L, dep, indep, c_L=None):
        lu, piv, info = _GETRF(A_L[:, dep], overwrite_a=True)
        if info != 0:
            raise np.linalg.LinAlgError("Singular matrix")
        self.lu, self.piv = lu, piv
        l = len(indep)
        rhs = A_L[:, indep] if c_L is None else np.concatenate((A_L[:, indep], c_L[:, None]), axis=1)
        sol = _GETRS(lu, piv, rhs, overwrite_b=True)[0]
        self.X = sol[:, :l]
        self.x_c = None if c_L is None else sol[:, l]

    def solve(self, b):
        return _GETRS(self.lu, self.piv, b)[0]

    def measure(self) -> float:
        """‖A_d⁻¹ A_L‖₂ = ‖[I, X]‖₂ = sqrt(1 + ‖X‖₂²) (the columns of A_L in any order)."""
        if self.X.size == 0:
            return 1.0
        s = float(np.linalg.svd(self.X, compute_uv=False)[0])
        return math.sqrt(1.0 + s * s)


def _independent_rows(A: np.ndarray, scale: float = 0.0) -> np.ndarray:
    """Indices of a maximal set of independent rows (QR with pivoting on Aᵀ)."""
    if A.shape[0] == 0:
        return np.zeros(0, int)
    r = numerical_rank(A, scale)
    _, _, piv = scipy_linalg.qr(A.T, pivoting=True, mode="economic")
    return np.sort(piv[:r])
