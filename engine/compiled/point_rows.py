"""Loop closures on the compiled path: the rows of every coincident and distance constraint of a system
stacked in a few array operations on pinocchio's joint Jacobians (engine.compiled.tree_backend), in place
of a Python call per kind and per point (engine.constraints.geometric stays the reference: the same rows,
1e-11 at random states, tests/engine/compiled/test_point_rows.py).

With J the world twist columns of the speeds (v_O,s the velocity of the body-fixed point at the world
origin, ω_s the angular axis; pinocchio's WORLD joint Jacobian), mask[k, s] = 1 when speed s moves the
body of point k, and J̇ their rates (pinocchio's time variation), a point P_k fixed in its body has

    J_P = mask (v_O + ω × P_k) = mask [I, −[P_k]×] J,
    a_P at u̇ = 0:  a_O + α × P_k + ω_k × v_P,   (a_O; α) = Σ_s mask J̇_s u_s,  ω_k = Σ_s mask ω_s u_s,

the last because the world twist's rate is that of a body-fixed point at the origin. The rows are
those of engine.constraints.geometric (THEORY.md §2, holonomic rows differentiated twice):

    coincident:  Φ = (P_b − P_a)[axes],       A = (J_Pb − J_Pa)[axes],   b = −(a_Pb − a_Pa)[axes];
    distance:    Φ = (d·d − L²)/(2L),          A = dᵀ (J_Pb − J_Pa)/L,    b = −(d·(a_Pb − a_Pa) + ḋ·ḋ)/L,

with d = P_b − P_a. Every row is holonomic and linear in u with c = 0; a ground point has mask 0.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.constraints.geometric import CoincidentRows, DistanceRows
from eomlab.engine.constraints.rows import ConstraintRows, RowBlock
from eomlab.engine.constraints.stack import ConstraintSet, SplitRows

#: the entries of [I, −[P]×] (3 × 6) that depend on P: (row, column, component of P, sign)
_SKEW = ((0, 4, 2, 1.0), (0, 5, 1, -1.0), (1, 3, 2, -1.0), (1, 5, 0, 1.0), (2, 3, 1, 1.0), (2, 4, 0, -1.0))
_SKEW_ROW = np.array([r for r, _, _, _ in _SKEW])
_SKEW_COL = np.array([c for _, c, _, _ in _SKEW])
_SKEW_SRC = np.array([s for _, _, s, _ in _SKEW])
_SKEW_SIGN = np.array([g for _, _, _, g in _SKEW])


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise a × b of (k, 3) arrays."""
    return a[:, _NEXT] * b[:, _LAST] - a[:, _LAST] * b[:, _NEXT]


_NEXT, _LAST = np.array([1, 2, 0]), np.array([2, 0, 1])


_POINT_KINDS = (CoincidentRows, DistanceRows)


def compiled_point_rows(constraints: ConstraintSet | None, tree) -> ConstraintSet | None:
    """`constraints` as a PointRowSet when some kind is a coincident or distance constraint and the
    compiled path runs (`tree` a PinocchioTree), else `constraints` unchanged."""
    if constraints is None or tree is None or not constraints.kinds:
        return constraints
    if not any(type(k) in _POINT_KINDS for k in constraints.kinds):
        return constraints
    return PointRowSet(constraints.kinds, tree)


class PointRowSet(ConstraintSet):
    """A ConstraintSet whose coincident and distance rows come from the compiled tree in one pass per
    stage: `evaluate_split` at q (positions, Jacobians), `rows_at` the biases at u. Any other kind
    (joints as rows, rolling, expressions) gives its own rows as in ConstraintSet, stacked in order."""

    def __init__(self, kinds, tree):
        super().__init__(kinds)
        self.tree = tree
        kin = tree.kin
        points, slots = [], {}
        #: per kind: None for a point kind, else the kind (its rows are its own)
        self._own = [None if type(k) in _POINT_KINDS else k for k in kinds]
        self._mixed = any(k is not None for k in self._own)
        self._slices = []
        first = 0
        for k in kinds:
            self._slices.append(slice(first, first + k.rows))
            first += k.rows

        def slot(body: int, local: np.ndarray) -> int:
            key = (body, tuple(local))
            if key not in slots:
                slots[key] = len(points)
                points.append(key)
            return slots[key]

        coincident_rows, coincident_b, coincident_a, coincident_axis = [], [], [], []
        distance_rows, distance_b, distance_a, lengths = [], [], [], []
        row = 0
        for k in kinds:
            if type(k) not in _POINT_KINDS:
                row += k.rows
                continue
            pb, pa = slot(k.b, k.pb), slot(k.a, k.pa)
            if isinstance(k, CoincidentRows):
                for axis in k.axes:
                    coincident_rows.append(row)
                    coincident_b.append(pb)
                    coincident_a.append(pa)
                    coincident_axis.append(axis)
                    row += 1
            else:
                distance_rows.append(row)
                distance_b.append(pb)
                distance_a.append(pa)
                lengths.append(k.length)
                row += 1
        as_int = lambda xs: np.array(xs, dtype=int)  # noqa: E731
        self._c_rows, self._c_b, self._c_a, self._c_axis = map(as_int, (coincident_rows, coincident_b, coincident_a,
                                                                        coincident_axis))
        self._d_rows, self._d_b, self._d_a = map(as_int, (distance_rows, distance_b, distance_a))
        self._lengths = np.array(lengths, dtype=float)
        n_points = len(points)
        # each point in its pinocchio joint's frame (ground points: in the world, joint 0 = the universe)
        frames = tree._body_frames
        self._joint = np.zeros(n_points, dtype=int)
        self._local = np.zeros((n_points, 3))
        self._mask = np.zeros((n_points, kin.n_u))
        for i, (body, local) in enumerate(points):
            local = np.array(local, dtype=float)
            if body >= 0:
                self._joint[i] = tree._body_joint[body]
                if frames is not None:
                    local = frames[body, :3, :3] @ local + frames[body, :3, 3]
                self._mask[i] = kin.moved[body]
            self._local[i] = local
        self._moving = np.flatnonzero(self._joint > 0)
        self._fixed = np.flatnonzero(self._joint == 0)
        self._moving_joints = [int(j) for j in self._joint[self._moving]]
        self._moving_points = [(j, self._local[i].copy()) for i, j in zip(self._moving, self._moving_joints)]
        self._identity = np.zeros((n_points, 3, 6))  # [I, 0] of every point, filled per state with −[P]×
        self._identity[:, 0, 0] = self._identity[:, 1, 1] = self._identity[:, 2, 2] = 1.0
        self._velocity_rows = self._linear_rows = np.arange(self.n_rows)
        self._no_c = np.zeros(self.n_rows)

    # --- the two stages ---------------------------------------------------------------------------

    def _positions(self, q: np.ndarray):
        """(q_pin, J (6, nu) the world twists, P (points, 3), J_P (points, 3, nu)) at q: one pass of
        pinocchio's joint Jacobians."""
        tree = self.tree
        q_pin = tree.configuration(q)
        J, oMi = tree.world_jacobian(q_pin)
        P = self._local.copy()
        if self._moving_joints:
            P[self._moving] = [oMi[j].act(local) for j, local in self._moving_points]
        E = self._identity.copy()
        E[:, _SKEW_ROW, _SKEW_COL] = P[:, _SKEW_SRC] * _SKEW_SIGN
        JP = (E @ J) * self._mask[:, None, :]
        return q_pin, J, P, JP

    def _matrix(self, P, JP):
        """A and Φ of the stacked rows, and d = P_b − P_a of the distance rows (None without any)."""
        n_u = JP.shape[2]
        A = np.empty((self.n_rows, n_u))
        position = np.empty(self.n_rows)
        cb, ca, ax = self._c_b, self._c_a, self._c_axis
        if cb.size:
            A[self._c_rows] = JP[cb, ax] - JP[ca, ax]
            position[self._c_rows] = P[cb, ax] - P[ca, ax]
        d = None
        if self._d_b.size:
            L = self._lengths
            d = P[self._d_b] - P[self._d_a]
            J_d = JP[self._d_b] - JP[self._d_a]
            A[self._d_rows] = np.einsum("ki,kin->kn", d, J_d) / L[:, None]
            position[self._d_rows] = (np.einsum("ki,ki->k", d, d) - L * L) / (2.0 * L)
        return A, position, d

    def _bias(self, q_pin, u, J, P, JP, d) -> np.ndarray:
        """b of the stacked rows at u (the points' accelerations at u̇ = 0)."""
        dJ = self.tree.world_jacobian_rate(q_pin, u)  # (6, nu), eomlab's order
        mu = self._mask * u[None, :]
        rates = mu @ dJ.T  # (points, 6): (a_O, α)
        v_P = JP @ u  # (points, 3)
        omega = mu @ J[3:].T  # (points, 3)
        a_P = rates[:, :3] + _cross(rates[:, 3:], P) + _cross(omega, v_P)
        b = np.empty(self.n_rows)
        cb, ca, ax = self._c_b, self._c_a, self._c_axis
        if cb.size:
            b[self._c_rows] = a_P[ca, ax] - a_P[cb, ax]
        if self._d_b.size:
            d_dot = v_P[self._d_b] - v_P[self._d_a]
            relative = a_P[self._d_b] - a_P[self._d_a]
            b[self._d_rows] = -(np.einsum("ki,ki->k", d, relative) + np.einsum("ki,ki->k", d_dot, d_dot)) / self._lengths
        return b

    def _rows(self, A, b, position, u, own=None, like=None) -> ConstraintRows:
        """The stacked rows: the point rows' arrays as they are, or (`own`: the other kinds' blocks in
        kind order, None for a point kind) each point kind's share stacked with those blocks (A, Φ and
        c those of `like`, the rows at u = 0, when every kind's A is u-independent)."""
        if own is None:
            return ConstraintRows(A, b, self.level, self.owner, position, A @ u, self._velocity_rows, self._no_c,
                                  self._linear_rows)
        velocity = A @ u
        blocks = [block if block is not None else
                  RowBlock(A=A[rows], b=b[rows], position=position[rows], velocity=velocity[rows], c=self._no_c[rows])
                  for block, rows in zip(own, self._slices)]
        return self._stack(blocks, u.shape[0], like=like if self._all_fast else None)

    # --- ConstraintSet's interface ----------------------------------------------------------------

    def evaluate(self, ctx) -> ConstraintRows:
        q_pin, J, P, JP = self._positions(ctx.q)
        A, position, d = self._matrix(P, JP)
        own = [None if k is None else k.evaluate(ctx) for k in self._own] if self._mixed else None
        return self._rows(A, self._bias(q_pin, ctx.u, J, P, JP, d), position, ctx.u, own)

    def evaluate_split(self, ctx) -> SplitRows:
        """The rows at ctx (t, q; u = 0 in the reduced formulations, where every point row's bias
        vanishes: it is quadratic in u), with what `rows_at` reuses at the same q."""
        q_pin, J, P, JP = self._positions(ctx.q)
        A, position, d = self._matrix(P, JP)
        u = ctx.u
        b = self._bias(q_pin, u, J, P, JP, d) if np.count_nonzero(u) else np.zeros(self.n_rows)
        points = (q_pin, J, P, JP, d, A, position)
        if not self._mixed:
            return SplitRows(self._rows(A, b, position, u), [], [points])
        pairs = [None if k is None else k.evaluate_at_zero(ctx) for k in self._own]
        own = [None if pair is None else pair[0] for pair in pairs]
        return SplitRows(self._rows(A, b, position, u, own), own, [points, pairs])

    def rows_at(self, split: SplitRows, ctx) -> ConstraintRows:
        """The rows at the full state ctx (same t and q as `split`, any u): the point rows' b and velocity
        residual are new; the other kinds as in ConstraintSet.rows_at."""
        q_pin, J, P, JP, d, A, position = split.caches[0]
        u = ctx.u
        b = self._bias(q_pin, u, J, P, JP, d)
        if not self._mixed:
            return self._rows(A, b, position, u)
        own = []
        for k, pair in zip(self._own, split.caches[1]):
            if k is None:
                own.append(None)
            elif k.u_independent_matrix:
                block = pair[0]
                own.append(RowBlock(A=block.A, b=k.bias_at(pair[1], ctx), position=block.position,
                                    velocity=block.A @ u + block.c, c=block.c))
            else:
                own.append(k.evaluate(ctx))
        return self._rows(A, b, position, u, own, like=split.rows)
