"""Constraints: residual rows at the level they were given, and acceleration-level rows A u_dot = b.

THEORY.md §2 (seed 002 (3.1)–(3.3)):
- holonomic Φ(q, t) = 0            → Φ_dot = A u + c,     A u_dot = b
- first order ψ(q, u, t) = 0       → ψ itself,            A u_dot = b   (A = ∂ψ/∂u)
- second order a·q_ddot + a0 = 0   → A u_dot = b as it stands
Everything is in the system's speeds u (q_dot = W u). Geometric kinds take their exact
derivatives from the tree kinematics (Jacobians and bias accelerations); expression kinds are
differentiated by sympy once and compiled. No finite differences.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .lazy_imports import sympy

from .expressions import compile_expressions, parse_expression, symbol
from .kinematics import TreeKinematics
from .rotations import cross, skew as skew_matrix
from .state import StateContext
from .model import (
    GROUND,
    Coincident,
    Distance,
    ExpressionConstraint,
    KnifeEdge,
    Model,
    ModelError,
    Prescribed,
    RollingDisk,
)

HOLONOMIC, VELOCITY, ACCELERATION = 0, 1, 2
AXES = {"x": 0, "y": 1, "z": 2}


@dataclass
class RowBlock:
    """One constraint's rows at one state.

    `A`, `b`: acceleration level. `position`: Φ for holonomic rows (else None). `velocity`: the
    velocity-level residual (Φ_dot or ψ; None for second-order rows). `c`: for rows linear in u,
    velocity = A u + c (None when not linear).
    """

    A: np.ndarray
    b: np.ndarray
    position: np.ndarray | None
    velocity: np.ndarray | None
    c: np.ndarray | None


@dataclass
class ConstraintRows:
    """All rows stacked; `level[i]` is 0, 1 or 2 and `owner[i]` the constraint's index."""

    A: np.ndarray
    b: np.ndarray
    level: np.ndarray
    owner: np.ndarray
    position: np.ndarray  # Φ of the holonomic rows
    velocity: np.ndarray  # residuals of holonomic and first-order rows
    velocity_rows: np.ndarray  # indices of rows that have a velocity residual
    c: np.ndarray  # velocity = A u + c for rows in `linear_rows`
    linear_rows: np.ndarray  # rows whose velocity residual is linear in u

    @property
    def drift_position(self) -> float:
        return float(np.max(np.abs(self.position))) if self.position.size else 0.0

    @property
    def drift_velocity(self) -> float:
        return float(np.max(np.abs(self.velocity))) if self.velocity.size else 0.0


class ConstraintKind:
    name: str = ""
    row_names: list[str] | None = None  # per-row names (multiplier columns); default <name>_<row>
    rows: int = 0
    level: tuple[int, ...] = ()
    rheonomic: bool = False
    labels: tuple[str, ...] = ()

    def evaluate(self, ctx: StateContext) -> RowBlock:
        raise NotImplementedError

    # --- rows at u from the rows at u = 0 (ConstraintSet.evaluate_split / rows_at) -------------
    #
    # A kind whose A, c and Φ depend on (t, q) only — every row linear in u — may set
    # `u_independent_matrix = True` and implement `bias_at(cache, ctx)`: b at the full state
    # from what `evaluate_at_zero` kept. The velocity residual then is A u + c. Any other kind
    # is simply evaluated afresh at the full state (exact, the general path).

    u_independent_matrix = False

    def evaluate_at_zero(self, ctx: StateContext) -> tuple[RowBlock, object]:
        """The rows at ctx (u = 0, the kinematics' positions stage) and what `bias_at` reuses."""
        return self.evaluate(ctx), None

    def bias_at(self, cache, ctx: StateContext) -> np.ndarray:
        raise NotImplementedError


def _body(kin: TreeKinematics, name: str) -> int:
    return -1 if name == GROUND else kin.body_names.index(name)


def _point(kin, ks, body, local):
    return local.copy() if body < 0 else ks.origin[body] + ks.R[body] @ local


class CoincidentRows(ConstraintKind):
    """Φ = (P_b − P_a) along the listed world axes."""

    def __init__(self, kin, c: Coincident):
        self.kin, self.name = kin, c.name
        self.a, self.b = _body(kin, c.a.body), _body(kin, c.b.body)
        self.pa, self.pb = np.array(c.a.point, float), np.array(c.b.point, float)
        self.axes = [AXES[d] for d in c.dims]
        self.rows = len(self.axes)
        self.level = (HOLONOMIC,) * self.rows
        self.labels = tuple(c.dims)

    u_independent_matrix = True

    def evaluate(self, ctx):
        return self.evaluate_at_zero(ctx)[0]

    def evaluate_at_zero(self, ctx):
        ks, kin = ctx.ks, self.kin
        Pa, Pb = _point(kin, ks, self.a, self.pa), _point(kin, ks, self.b, self.pb)
        J = kin.point_jacobian(ks, self.b, Pb) - kin.point_jacobian(ks, self.a, Pa)
        ax = self.axes
        cache = (Pa, Pb)
        return RowBlock(A=J[ax], b=self.bias_at(cache, ctx), position=(Pb - Pa)[ax], velocity=(J @ ctx.u)[ax],
                        c=np.zeros(self.rows)), cache

    def bias_at(self, cache, ctx):
        Pa, Pb = cache
        ks, kin = ctx.ks, self.kin
        bias = kin.point_bias(ks, self.b, Pb) - kin.point_bias(ks, self.a, Pa)
        return -bias[self.axes]


class DistanceRows(ConstraintKind):
    """Φ = (|d|² − L²) / (2L), d = P_b − P_a: smooth, and equal to |d| − L to first order."""

    def __init__(self, kin, c: Distance):
        self.kin, self.name = kin, c.name
        self.a, self.b = _body(kin, c.a.body), _body(kin, c.b.body)
        self.pa, self.pb = np.array(c.a.point, float), np.array(c.b.point, float)
        self.length = c.length
        self.rows, self.level = 1, (HOLONOMIC,)

    u_independent_matrix = True

    def evaluate(self, ctx):
        return self.evaluate_at_zero(ctx)[0]

    def evaluate_at_zero(self, ctx):
        ks, kin, L = ctx.ks, self.kin, self.length
        Pa, Pb = _point(kin, ks, self.a, self.pa), _point(kin, ks, self.b, self.pb)
        d = Pb - Pa
        J = kin.point_jacobian(ks, self.b, Pb) - kin.point_jacobian(ks, self.a, Pa)
        d_dot = J @ ctx.u
        A = (d @ J)[None, :] / L
        cache = (Pa, Pb, d, J)
        return RowBlock(A=A, b=self.bias_at(cache, ctx), position=np.array([(d @ d - L * L) / (2 * L)]),
                        velocity=np.array([d @ d_dot / L]), c=np.zeros(1)), cache

    def bias_at(self, cache, ctx):
        Pa, Pb, d, J = cache
        ks, kin = ctx.ks, self.kin
        bias = kin.point_bias(ks, self.b, Pb) - kin.point_bias(ks, self.a, Pa)
        d_dot = J @ ctx.u
        return np.array([-(d @ bias + d_dot @ d_dot) / self.length])


class KnifeEdgeRows(ConstraintKind):
    """ψ = n·v_P: the velocity of the edge point along the body-fixed direction n vanishes."""

    def __init__(self, kin, c: KnifeEdge):
        self.kin, self.name = kin, c.name
        self.body = _body(kin, c.body)
        self.point = np.array(c.point, float)
        n = np.array(c.direction, float)
        self.direction = n / np.linalg.norm(n)
        self.rows, self.level = 1, (VELOCITY,)

    u_independent_matrix = True

    def evaluate(self, ctx):
        return self.evaluate_at_zero(ctx)[0]

    def evaluate_at_zero(self, ctx):
        ks, kin, i = ctx.ks, self.kin, self.body
        P = _point(kin, ks, i, self.point)
        n = ks.R[i] @ self.direction
        J = kin.point_jacobian(ks, i, P)
        v = J @ ctx.u
        A = (n @ J)[None, :]
        cache = (P, n, J)
        return RowBlock(A=A, b=self.bias_at(cache, ctx), position=None, velocity=np.array([n @ v]),
                        c=np.zeros(1)), cache

    def bias_at(self, cache, ctx):
        P, n, J = cache
        ks, i = ctx.ks, self.body
        v = J @ ctx.u
        n_dot = cross(ks.omega[i], n)
        return np.array([-(n @ self.kin.point_bias(ks, i, P) + n_dot @ v)])


class RollingDiskRows(ConstraintKind):
    """A disk rolling without slipping on z = 0.

    Holonomic: the lowest rim point touches the plane, Φ = z_C − r·sqrt(1 − (a·k)²).
    First order: the material contact point has no horizontal velocity (2 rows; its vertical
    velocity is Φ_dot already).
    """

    def __init__(self, kin, c: RollingDisk):
        self.kin, self.name = kin, c.name
        self.body = _body(kin, c.body)
        a = np.array(c.axis, float)
        self.axis = a / np.linalg.norm(a)
        self.radius = c.radius
        self.rows, self.level = 3, (HOLONOMIC, VELOCITY, VELOCITY)
        self.labels = ("contact", "slip_x", "slip_y")

    def _contact(self, ks):
        """Centre-to-contact vector ρ = r·c and its rate, with c the unit downward rim direction."""
        i, r = self.body, self.radius
        k = np.array([0.0, 0.0, 1.0])
        a = ks.R[i] @ self.axis
        a_dot = cross(ks.omega[i], a)
        ka = a[2]
        p = k - ka * a
        s = np.linalg.norm(p)
        if s < 1e-9:
            raise ArithmeticError(f"constraint {self.name}: the disk lies flat, its contact point is undefined")
        p_dot = -a_dot[2] * a - ka * a_dot
        s_dot = p @ p_dot / s
        c = -p / s
        c_dot = -(p_dot * s - p * s_dot) / (s * s)
        return r * c, r * c_dot, s

    def evaluate(self, ctx):
        ks, kin, i = ctx.ks, self.kin, self.body
        rho, rho_dot, s = self._contact(ks)
        C = ks.com[i]
        P = C + rho
        J_P = kin.point_jacobian(ks, i, P)  # material point at the contact
        v_P = J_P @ ctx.u
        w = ks.omega[i]
        # d/dt (v_C + ω × ρ) with ρ the geometric contact vector (it slides along the rim);
        # the holonomic row uses the same form: Φ_dot = v_Pz because the rim tangent is horizontal
        bias = ks.a_bias[i] + cross(ks.alpha_bias[i], rho) + cross(w, rho_dot)
        A = np.vstack((J_P[2][None, :], J_P[:2]))
        b = -np.array([bias[2], bias[0], bias[1]])
        return RowBlock(A=A, b=b, position=np.array([C[2] - self.radius * s]),
                        velocity=v_P[[2, 0, 1]], c=np.zeros(3))


class PrescribedRows(ConstraintKind):
    """Φ = q_k − f(t): a servo; its multiplier is the actuator effort."""

    def __init__(self, kin, c: Prescribed, path: str):
        self.kin, self.name = kin, c.name
        self.q_index = kin.coordinate_names.index(c.coordinate)
        self.index = kin.speed_of_coordinate(self.q_index)  # its rate's speed
        if self.index is None:
            raise ModelError(f"{path}.coordinate", f"'{c.coordinate}' is an orientation coordinate of a joint with body-rate speeds; prescribe an Euler angle with \"speeds\": \"euler\"")
        f = parse_expression(c.motion, {"t"}, f"{path}.motion").sympy
        t = symbol("t")
        self.fn = compile_expressions([f, sympy.diff(f, t), sympy.diff(f, t, 2)], ["t"])
        self.rows, self.level, self.rheonomic = 1, (HOLONOMIC,), True

    u_independent_matrix = True  # and b = f̈(t) does not depend on u either

    def evaluate_at_zero(self, ctx):
        block = self.evaluate(ctx)
        return block, block.b

    def bias_at(self, b, ctx):
        return b

    def evaluate(self, ctx):
        f, f1, f2 = np.asarray(self.fn(ctx.t), float).reshape(3)
        A = np.zeros((1, self.kin.n_u))
        A[0, self.index] = 1.0
        k = self.index
        return RowBlock(A=A, b=np.array([f2]), position=np.array([ctx.q[self.q_index] - f]),
                        velocity=np.array([ctx.u[k] - f1]), c=np.array([-f1]))


class ExpressionRows(ConstraintKind):
    """A user equation = 0 of order 0, 1 or 2, differentiated by sympy (THEORY.md §2).

    The rows come in the coordinate rates (A_q q̈ = b_q) and go to the speeds through
    q̇ = W u, q̈ = W u̇ + Ẇ u: A = A_q W, b = b_q − A_q Ẇ u. Ẇ u is known on Euler parameters
    (W linear in p); an equation in the Euler angles of a body-rate joint is refused.
    """

    def __init__(self, kin, c: ExpressionConstraint, path: str):
        self.kin, self.name = kin, c.name
        names = kin.coordinate_names
        allowed = {"t", *names, *(f"{n}_dot" for n in names), *(f"{n}_ddot" for n in names)}
        expr = parse_expression(c.equation, allowed, f"{path}.equation").sympy
        used = {s.name for s in expr.free_symbols}
        for k in kin.euler_body_rate_coordinates():
            n = names[k]
            if used & {n, f"{n}_dot", f"{n}_ddot"}:
                raise ModelError(f"{path}.equation", f"uses '{n}', an Euler angle of a joint with body-rate speeds; "
                                 "give that joint \"speeds\": \"euler\" (or Euler parameters)")
        self.has_quaternions = bool(kin.quaternion_joints)  # Ẇ u ≠ 0 only on Euler parameters
        q = [symbol(n) for n in names]
        qd = [symbol(f"{n}_dot") for n in names]
        qdd = [symbol(f"{n}_ddot") for n in names]
        t = symbol("t")
        self.order = c.order
        self.rows, self.level = 1, (c.order,)
        self.rheonomic = t in expr.free_symbols
        args = ["t", *names, *(f"{n}_dot" for n in names)]
        self.linear = True
        if c.order == 0:
            grad = [sympy.diff(expr, s) for s in q]
            phi_t = sympy.diff(expr, t)
            phi_dot = sum((g * v for g, v in zip(grad, qd)), sympy.Integer(0)) + phi_t
            # b = −(Φ_q q_dot)_q q_dot − 2 Φ_qt q_dot − Φ_tt, i.e. minus Φ_ddot at q_ddot = 0
            b = -(sum((sympy.diff(phi_dot, s) * v for s, v in zip(q, qd)), sympy.Integer(0)) + sympy.diff(phi_dot, t))
            outs = [expr, phi_dot, phi_t, b, *grad]
        elif c.order == 1:
            grad_u = [sympy.diff(expr, v) for v in qd]
            self.linear = all(not (g.free_symbols & set(qd)) for g in grad_u)
            b = -(sum((sympy.diff(expr, s) * v for s, v in zip(q, qd)), sympy.Integer(0)) + sympy.diff(expr, t))
            c0 = expr.subs({v: 0 for v in qd})
            outs = [expr, c0, sympy.Integer(0), b, *grad_u]
        else:
            coeffs = [sympy.diff(expr, a) for a in qdd]
            if any(cf.free_symbols & set(qdd) for cf in coeffs):
                raise ModelError(f"{path}.equation", "an order-2 constraint must be linear in the accelerations (_ddot)")
            a0 = expr.subs({a: 0 for a in qdd})
            outs = [sympy.Integer(0), sympy.Integer(0), sympy.Integer(0), -a0, *coeffs]
        self.fn = compile_expressions(outs, args)
        self.n = len(names)

    def evaluate(self, ctx):
        vals = np.asarray(self.fn(ctx.t, *ctx.q, *ctx.qd), float).ravel()
        value, second, third, b = vals[:4]
        A = vals[4:][None, :]
        if ctx.W is not None:  # rows in the rates → rows in the speeds
            if self.has_quaternions:
                b = b - float(A[0] @ self.kin.quaternion_rates_bias(ctx.qd, ctx.u))
            A = A @ ctx.W
        if self.order == 0:
            return RowBlock(A=A, b=np.array([b]), position=np.array([value]), velocity=np.array([second]), c=np.array([third]))
        if self.order == 1:
            return RowBlock(A=A, b=np.array([b]), position=None, velocity=np.array([value]),
                            c=np.array([second]) if self.linear else None)
        return RowBlock(A=A, b=np.array([b]), position=None, velocity=None, c=None)


class ConstraintSet:
    """Every constraint of a system, stacked, with names for the multiplier columns."""

    def __init__(self, kinds: list[ConstraintKind]):
        self.kinds = kinds
        self.n_rows = sum(k.rows for k in kinds)
        self.level = np.array([lv for k in kinds for lv in k.level], dtype=int)
        self.owner = np.array([i for i, k in enumerate(kinds) for _ in range(k.rows)], dtype=int)
        self.row_names = [n for k in kinds for n in (k.row_names or [f"{k.name}_{r}" for r in range(k.rows)])]
        self.rheonomic = any(k.rheonomic for k in kinds)
        self._all_fast = all(k.u_independent_matrix for k in kinds)  # rows_at reuses the stacked A, Φ, c
        self._layouts: dict = {}

    @property
    def conservative(self) -> bool:
        return not self.rheonomic

    def __len__(self):
        return self.n_rows

    def row_label(self, i: int) -> str:
        k = self.kinds[self.owner[i]]
        r = i - int(np.flatnonzero(self.owner == self.owner[i])[0])
        if k.row_names:
            name = k.row_names[r]
            base, _, idx = name.rpartition("_")
            return f"{base}[{idx}]"
        return f"{k.name}[{r}]"

    def evaluate(self, ctx: StateContext) -> ConstraintRows:
        return self._stack([k.evaluate(ctx) for k in self.kinds], ctx.u.shape[0])

    def evaluate_split(self, ctx: StateContext) -> "SplitRows":
        """The rows at ctx (u = 0, the kinematics' positions stage), kept for `rows_at`."""
        pairs = [k.evaluate_at_zero(ctx) for k in self.kinds]
        blocks = [bk for bk, _ in pairs]
        return SplitRows(self._stack(blocks, ctx.u.shape[0]), blocks, [cache for _, cache in pairs])

    def rows_at(self, split: "SplitRows", ctx: StateContext) -> ConstraintRows:
        """The rows at the full state ctx (same t and q as `split`, any u).

        Kinds with `u_independent_matrix` keep A, c and Φ from the rows at u = 0, compute b at u
        and take the velocity residual A u + c; every other kind is evaluated afresh at ctx.
        Equal to `evaluate(ctx)` up to rounding (tests/engine/test_fast_rows.py).
        """
        u = ctx.u
        blocks = []
        for k, bk, cache in zip(self.kinds, split.blocks, split.caches):
            if k.u_independent_matrix:
                blocks.append(RowBlock(A=bk.A, b=k.bias_at(cache, ctx), position=bk.position,
                                       velocity=bk.A @ u + bk.c, c=bk.c))
            else:
                blocks.append(k.evaluate(ctx))
        return self._stack(blocks, u.shape[0], like=split.rows if self._all_fast else None)

    def _layout(self, blocks):
        """Indices of the rows with a velocity residual and of those linear in u (cached per pattern)."""
        pattern = tuple((bk.A.shape[0], bk.velocity is not None, bk.c is not None) for bk in blocks)
        cache = self._layouts
        hit = cache.get(pattern)
        if hit is None:
            vel_rows, lin_rows = [], []
            row = 0
            for m, has_vel, has_c in pattern:
                if has_vel:
                    vel_rows.extend(range(row, row + m))
                    if has_c:
                        lin_rows.extend(range(row, row + m))
                row += m
            hit = cache[pattern] = (np.array(vel_rows, int), np.array(lin_rows, int))
        return hit

    def _stack(self, blocks: list[RowBlock], n_u: int, like: ConstraintRows | None = None) -> ConstraintRows:
        if not blocks:
            empty = np.zeros(0)
            return ConstraintRows(np.zeros((0, n_u)), empty, self.level, self.owner, empty, empty,
                                  np.zeros(0, int), empty, np.zeros(0, int))
        if len(blocks) == 1:
            bk = blocks[0]
            vel_rows, lin_rows = self._layout(blocks)
            none = np.zeros(0)
            velocity = bk.velocity if bk.velocity is not None else none
            c = bk.c if (bk.velocity is not None and bk.c is not None) else none
            return ConstraintRows(bk.A, bk.b, self.level, self.owner,
                                  bk.position if bk.position is not None else none, velocity, vel_rows, c, lin_rows)
        cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0)  # noqa: E731
        b = np.concatenate([bk.b for bk in blocks])
        vel_rows, lin_rows = self._layout(blocks)
        velocity = cat([bk.velocity for bk in blocks if bk.velocity is not None])
        if like is not None:  # A, Φ and c as at u = 0
            return ConstraintRows(like.A, b, self.level, self.owner, like.position, velocity, vel_rows, like.c,
                                  lin_rows)
        A = np.vstack([bk.A for bk in blocks])
        position = cat([bk.position for bk in blocks if bk.position is not None])
        c = cat([bk.c for bk in blocks if bk.velocity is not None and bk.c is not None])
        return ConstraintRows(A, b, self.level, self.owner, position, velocity, vel_rows, c, lin_rows)


@dataclass
class SplitRows:
    """ConstraintSet.evaluate_split: the stacked rows at u = 0, and per kind its block and cache."""

    rows: ConstraintRows
    blocks: list
    caches: list


def build_constraint_kinds(model: Model, kin: TreeKinematics) -> list[ConstraintKind]:
    kinds: list[ConstraintKind] = []
    for i, c in enumerate(model.constraints):
        path = f"constraints[{i}]"
        if isinstance(c, Coincident):
            kinds.append(CoincidentRows(kin, c))
        elif isinstance(c, Distance):
            kinds.append(DistanceRows(kin, c))
        elif isinstance(c, KnifeEdge):
            kinds.append(KnifeEdgeRows(kin, c))
        elif isinstance(c, RollingDisk):
            kinds.append(RollingDiskRows(kin, c))
        elif isinstance(c, Prescribed):
            kinds.append(PrescribedRows(kin, c, path))
        elif isinstance(c, ExpressionConstraint):
            kinds.append(ExpressionRows(kin, c, path))
    return kinds


class JointRows(ConstraintKind):
    """A joint of the tree turned into holonomic rows (absolute coordinates).

    Translation rows: Φ = e·(o_child − P_J) for joint-frame directions e the joint does not allow.
    Rotation rows: Φ = g·h for a joint-frame vector g and a child-fixed vector h that the joint
    keeps perpendicular. Derivatives come from the tree kinematics (ė = ω_parent × e, ...).
    """

    def __init__(self, kin: TreeKinematics, name: str, parent: str, child: str, at, rotation,
                 translation_dirs, rotation_pairs, labels, world_axes: bool = False):
        self.kin, self.name = kin, name
        self.parent, self.child = _body(kin, parent), _body(kin, child)
        self.at = np.array(at, float)
        self.F = np.array(rotation, float)
        self.E_local = np.array(translation_dirs, float).reshape(-1, 3)  # joint frame
        self.G_local = np.array([g for g, _ in rotation_pairs], float).reshape(-1, 3)  # joint frame
        self.H_local = np.array([h for _, h in rotation_pairs], float).reshape(-1, 3)  # child frame
        self.n_trans, self.n_rot = len(self.E_local), len(self.G_local)
        # joints that block every translation: world axes give world reaction components
        self.world_axes = world_axes
        self.rows = self.n_trans + self.n_rot
        self.level = (HOLONOMIC,) * self.rows
        self.labels = tuple(labels)

    u_independent_matrix = True  # A and Φ need q only; b is quadratic in u

    def evaluate(self, ctx):
        return self.evaluate_at_zero(ctx)[0]

    def evaluate_at_zero(self, ctx):
        ks, kin = ctx.ks, self.kin
        Rp = ks.R[self.parent] if self.parent >= 0 else np.eye(3)
        op = ks.origin[self.parent] if self.parent >= 0 else np.zeros(3)
        RJ = Rp @ self.F
        PJ = op + Rp @ self.at
        c, p = self.child, self.parent
        oc = ks.origin[c]
        Jc, Jwc = kin.point_jacobian(ks, c, oc), ks.J_w[c]
        if p >= 0:
            Jp, Jwp = kin.point_jacobian(ks, p, PJ), ks.J_w[p]
        else:
            Jp = Jwp = np.zeros((3, kin.n_u))
        r = oc - PJ
        blocks_A, pos = [], []
        E = G = H = hxg = None
        if self.n_trans:
            if self.world_axes:
                E = self.E_local
                A = E @ (Jc - Jp)
            else:
                E = self.E_local @ RJ.T  # rows: world directions e fixed in the joint frame
                A = E @ (Jc - Jp) + cross(E, r) @ Jwp
            blocks_A.append(A)
            pos.append(E @ r)
        if self.n_rot:
            G = self.G_local @ RJ.T  # fixed in the joint frame
            H = self.H_local @ ks.R[c].T  # fixed in the child
            hxg = cross(H, G)
            blocks_A.append(hxg @ (Jwc - Jwp))
            pos.append(np.einsum("ij,ij->i", G, H))
        A = np.vstack(blocks_A) if len(blocks_A) > 1 else blocks_A[0]
        cache = (PJ, oc, r, Jc - Jp, E, G, H, hxg)
        block = RowBlock(A=A, b=self.bias_at(cache, ctx), position=np.concatenate(pos),
                         velocity=A @ ctx.u, c=np.zeros(self.rows))
        return block, cache

    def bias_at(self, cache, ctx):
        """−(the rows' acceleration terms at u̇ = 0): ė = ω_p × e, ḣ = ω_c × h, ... at ctx's u."""
        PJ, oc, r, J_rel, E, G, H, hxg = cache
        ks, kin, u = ctx.ks, self.kin, ctx.u
        c, p = self.child, self.parent
        zero = np.zeros(3)
        wp = ks.omega[p] if p >= 0 else zero
        ap = ks.alpha_bias[p] if p >= 0 else zero
        blocks_b = []
        if self.n_trans:
            r_bias = kin.point_bias(ks, c, oc) - (kin.point_bias(ks, p, PJ) if p >= 0 else zero)
            if self.world_axes:
                bias = E @ r_bias
            else:
                E_dot = cross(wp, E)
                bias = E @ r_bias + 2.0 * (E_dot @ (J_rel @ u)) + (cross(ap, E) + cross(wp, E_dot)) @ r
            blocks_b.append(-bias)
        if self.n_rot:
            wc = ks.omega[c]
            bias = hxg @ (ks.alpha_bias[c] - ap) + (cross(cross(wc, H), G) + cross(H, cross(wp, G))) @ (wc - wp)
            blocks_b.append(-bias)
        return np.concatenate(blocks_b) if len(blocks_b) > 1 else blocks_b[0]


class SpatialPins(ConstraintKind):
    """Every spherical joint of a 3-D model in absolute coordinates, all at once.

    Each body is a free joint to ground with speeds (v, ω_body): the world velocity of its origin
    and its body rates. Pin k: the child's origin o_c coincides with P = o_p + R_p a_k, in world
    x, y, z. Φ = o_c − P; A = [I on the child's v; −I on the parent's v; R_p [a_k]× on the
    parent's ω_body] (since ω_p × R_p a = −R_p [a]× ω_body); b = ω_p × (ω_p × R_p a_k). Equal
    to JointRows with world axes (tests), without a Python loop over the joints.
    """

    def __init__(self, kin: TreeKinematics, pins):
        self.kin, self.name = kin, "joints"
        n = len(pins)
        self.rows, self.level = 3 * n, (HOLONOMIC,) * (3 * n)
        self.row_names = [f"joint_{child}_{i}" for _, _, child, _ in pins for i in (0, 1, 2)]
        index = {name: i for i, name in enumerate(kin.body_names)}
        joint_of = {kin.body_names[jl.body]: jl for jl in kin.joints}
        self.child = np.array([index[c] for _, _, c, _ in pins])
        self.at = np.array([a for _, _, _, a in pins], float).reshape(n, 3)
        k = np.flatnonzero([p != GROUND for _, p, _, _ in pins])
        self._k = k
        self.parent = np.array([index[pins[i][1]] for i in k], dtype=int)
        rows = 3 * np.arange(n)[:, None] + np.arange(3)  # (n, 3)
        child_v = np.array([joint_of[c].u_slice.start for _, _, c, _ in pins])[:, None] + np.arange(3)
        parent_v = np.array([joint_of[pins[i][1]].u_slice.start for i in k], dtype=int)[:, None] + np.arange(3)
        A0 = np.zeros((3 * n, kin.n_u))
        A0[rows, child_v] = 1.0
        A0[rows[k], parent_v] = -1.0
        self._A0 = A0
        # A[3k + i, parent ω_j] = (R_p [a_k]×)_ij
        self._rows_w = np.broadcast_to(rows[k][:, :, None], (len(k), 3, 3))
        self._cols_w = np.broadcast_to((parent_v + 3)[:, None, :], (len(k), 3, 3))
        self._skew_at = np.array([skew_matrix(a) for a in self.at[k]]).reshape(len(k), 3, 3)
        self._zero_c = np.zeros(3 * n)
        self._zero_c.flags.writeable = False

    u_independent_matrix = True

    def evaluate(self, ctx):
        return self.evaluate_at_zero(ctx)[0]

    def evaluate_at_zero(self, ctx):
        ks, k = ctx.ks, self._k
        Rp = ks.R[self.parent]
        rho = (Rp @ self.at[k][:, :, None])[:, :, 0]
        target = self.at.copy()  # pins on the ground: P = a
        target[k] = ks.origin[self.parent] + rho
        A = self._A0.copy()
        A[self._rows_w, self._cols_w] = Rp @ self._skew_at
        block = RowBlock(A=A, b=self.bias_at(rho, ctx), position=(ks.origin[self.child] - target).ravel(),
                         velocity=A @ ctx.u, c=self._zero_c)
        return block, rho

    def bias_at(self, rho, ctx):
        w = ctx.ks.omega[self.parent]
        b = np.zeros((len(self.at), 3))
        b[self._k] = cross(w, cross(w, rho))
        return b.ravel()


class PlanarPins(ConstraintKind):
    """Every revolute joint of a planar model in absolute coordinates, all at once.

    Pin k: the child's origin o_c coincides with the point P = o_p + R(θ_p) a_k of its parent, in
    world x and y. With x, y, θ per body: Φ = o_c − P, A = [I on the child's x, y; −I on the
    parent's x, y; −ẑ × ρ on θ_p] (ρ = R(θ_p) a_k), and b = −θ̇_p² ρ.
    """

    def __init__(self, kin: TreeKinematics, pins):
        self.kin, self.name = kin, "joints"
        n = len(pins)
        self.rows, self.level = 2 * n, (HOLONOMIC,) * (2 * n)
        self.row_names = [f"joint_{child}_{i}" for _, parent, child, _ in pins for i in (0, 1)]
        joint_of = {kin.body_names[jl.body]: jl for jl in kin.joints}
        self.child_x = np.array([joint_of[c].u_slice.start for _, _, c, _ in pins])
        has_parent = np.array([p != GROUND for _, p, _, _ in pins])
        self.has_parent = has_parent
        self.parent_x = np.array([joint_of[p].u_slice.start if p != GROUND else 0 for _, p, _, _ in pins])
        self.at = np.array([a[:2] for _, _, _, a in pins], float)
        self.row_index = np.arange(n)
        # index arrays of the vectorised evaluation: pins k with a parent body
        k = np.flatnonzero(has_parent)
        self._k = k
        self._theta = self.parent_x[k] + 2  # the parent's angle θ_p (and speed)
        self._child_xy = np.column_stack((self.child_x, self.child_x + 1))
        self._parent_xy = np.column_stack((self.parent_x[k], self.parent_x[k] + 1))
        self._at_k = self.at[k]
        n_u = kin.n_u
        A0 = np.zeros((2 * n, n_u))
        rx, ry = 2 * self.row_index, 2 * self.row_index + 1
        A0[rx, self.child_x] = 1.0
        A0[ry, self.child_x + 1] = 1.0
        A0[rx[k], self.parent_x[k]] = -1.0
        A0[ry[k], self.parent_x[k] + 1] = -1.0
        self._A0 = A0
        self._flat_x = rx[k] * n_u + self._theta  # A[row x, θ_p] = ρ_y
        self._flat_y = ry[k] * n_u + self._theta  # A[row y, θ_p] = −ρ_x
        self._zero_c = np.zeros(2 * n)
        self._zero_c.flags.writeable = False

    u_independent_matrix = True

    def evaluate(self, ctx):
        return self.evaluate_at_zero(ctx)[0]

    def evaluate_at_zero(self, ctx):
        q, u = ctx.q, ctx.u
        k, th = self._k, q[self._theta]
        c, s = np.cos(th), np.sin(th)
        ax, ay = self._at_k[:, 0], self._at_k[:, 1]
        rho = self.at.copy()
        rho_x = c * ax - s * ay
        rho_y = s * ax + c * ay
        rho[k, 0] = rho_x
        rho[k, 1] = rho_y
        phi = q[self._child_xy] - rho
        phi[k] -= q[self._parent_xy]
        A = self._A0.copy()
        flat = A.reshape(-1)
        flat[self._flat_x] = rho_y  # −(ẑ × ρ)_x = ρ_y
        flat[self._flat_y] = -rho_x
        cache = rho[k]
        return RowBlock(A=A, b=self.bias_at(cache, ctx), position=phi.ravel(), velocity=A @ u,
                        c=self._zero_c), cache

    def bias_at(self, rho_k, ctx):
        """b = −θ̇_p² ρ (pins on the ground have b = 0)."""
        th_dot = ctx.u[self._theta]
        b = np.zeros((len(self.at), 2))
        b[self._k] = -(th_dot * th_dot)[:, None] * rho_k
        return b.ravel()
