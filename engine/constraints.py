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
import sympy

from .expressions import compile_expressions, parse_expression, symbol
from .kinematics import KinematicState, TreeKinematics
from .rotations import cross
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


@dataclass
class StateContext:
    t: float
    q: np.ndarray
    u: np.ndarray
    qd: np.ndarray
    W: np.ndarray | None
    ks: KinematicState


class ConstraintKind:
    name: str = ""
    row_names: list[str] | None = None  # per-row names (multiplier columns); default <name>_<row>
    rows: int = 0
    level: tuple[int, ...] = ()
    rheonomic: bool = False
    labels: tuple[str, ...] = ()

    def evaluate(self, ctx: StateContext) -> RowBlock:
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

    def evaluate(self, ctx):
        ks, kin = ctx.ks, self.kin
        Pa, Pb = _point(kin, ks, self.a, self.pa), _point(kin, ks, self.b, self.pb)
        J = kin.point_jacobian(ks, self.b, Pb) - kin.point_jacobian(ks, self.a, Pa)
        bias = kin.point_bias(ks, self.b, Pb) - kin.point_bias(ks, self.a, Pa)
        ax = self.axes
        return RowBlock(A=J[ax], b=-bias[ax], position=(Pb - Pa)[ax], velocity=(J @ ctx.u)[ax], c=np.zeros(self.rows))


class DistanceRows(ConstraintKind):
    """Φ = (|d|² − L²) / (2L), d = P_b − P_a: smooth, and equal to |d| − L to first order."""

    def __init__(self, kin, c: Distance):
        self.kin, self.name = kin, c.name
        self.a, self.b = _body(kin, c.a.body), _body(kin, c.b.body)
        self.pa, self.pb = np.array(c.a.point, float), np.array(c.b.point, float)
        self.length = c.length
        self.rows, self.level = 1, (HOLONOMIC,)

    def evaluate(self, ctx):
        ks, kin, L = ctx.ks, self.kin, self.length
        Pa, Pb = _point(kin, ks, self.a, self.pa), _point(kin, ks, self.b, self.pb)
        d = Pb - Pa
        J = kin.point_jacobian(ks, self.b, Pb) - kin.point_jacobian(ks, self.a, Pa)
        bias = kin.point_bias(ks, self.b, Pb) - kin.point_bias(ks, self.a, Pa)
        d_dot = J @ ctx.u
        A = (d @ J)[None, :] / L
        b = np.array([-(d @ bias + d_dot @ d_dot) / L])
        return RowBlock(A=A, b=b, position=np.array([(d @ d - L * L) / (2 * L)]),
                        velocity=np.array([d @ d_dot / L]), c=np.zeros(1))


class KnifeEdgeRows(ConstraintKind):
    """ψ = n·v_P: the velocity of the edge point along the body-fixed direction n vanishes."""

    def __init__(self, kin, c: KnifeEdge):
        self.kin, self.name = kin, c.name
        self.body = _body(kin, c.body)
        self.point = np.array(c.point, float)
        n = np.array(c.direction, float)
        self.direction = n / np.linalg.norm(n)
        self.rows, self.level = 1, (VELOCITY,)

    def evaluate(self, ctx):
        ks, kin, i = ctx.ks, self.kin, self.body
        P = _point(kin, ks, i, self.point)
        n = ks.R[i] @ self.direction
        J = kin.point_jacobian(ks, i, P)
        v = J @ ctx.u
        A = (n @ J)[None, :]
        n_dot = cross(ks.omega[i], n)
        b = np.array([-(n @ kin.point_bias(ks, i, P) + n_dot @ v)])
        return RowBlock(A=A, b=b, position=None, velocity=np.array([n @ v]), c=np.zeros(1))


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
        self.index = kin.coordinate_names.index(c.coordinate)
        for jl in kin.joints:
            if jl.euler is not None and jl.body_rates and jl.q_slice.start <= self.index < jl.q_slice.stop:
                if self.index >= jl.q_slice.stop - 3:
                    raise ModelError(f"{path}.coordinate", f"'{c.coordinate}' is an Euler angle of a joint with body-rate speeds; prescribe it with \"speeds\": \"euler\"")
        f = parse_expression(c.motion, {"t"}, f"{path}.motion").sympy
        t = symbol("t")
        self.fn = compile_expressions([f, sympy.diff(f, t), sympy.diff(f, t, 2)], ["t"])
        self.rows, self.level, self.rheonomic = 1, (HOLONOMIC,), True

    def evaluate(self, ctx):
        f, f1, f2 = np.asarray(self.fn(ctx.t), float).reshape(3)
        A = np.zeros((1, self.kin.n_u))
        A[0, self.index] = 1.0
        k = self.index
        return RowBlock(A=A, b=np.array([f2]), position=np.array([ctx.q[k] - f]),
                        velocity=np.array([ctx.u[k] - f1]), c=np.array([-f1]))


class ExpressionRows(ConstraintKind):
    """A user equation = 0 of order 0, 1 or 2, differentiated by sympy (THEORY.md §2)."""

    def __init__(self, kin, c: ExpressionConstraint, path: str, rate_speeds: bool):
        self.kin, self.name = kin, c.name
        if not rate_speeds:
            raise ModelError(f"{path}.equation", "expression constraints need coordinate-rate speeds; a spherical or free joint uses body rates (set \"speeds\": \"euler\")")
        names = kin.coordinate_names
        allowed = {"t", *names, *(f"{n}_dot" for n in names), *(f"{n}_ddot" for n in names)}
        expr = parse_expression(c.equation, allowed, f"{path}.equation").sympy
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
        blocks = [k.evaluate(ctx) for k in self.kinds]
        n_u = ctx.u.shape[0]
        if not blocks:
            empty = np.zeros(0)
            return ConstraintRows(np.zeros((0, n_u)), empty, self.level, self.owner, empty, empty,
                                  np.zeros(0, int), empty, np.zeros(0, int))
        A = np.vstack([bk.A for bk in blocks])
        b = np.concatenate([bk.b for bk in blocks])
        position, velocity, vel_rows, c, lin_rows = [], [], [], [], []
        row = 0
        for bk in blocks:
            m = bk.A.shape[0]
            if bk.position is not None:
                position.append(bk.position)
            if bk.velocity is not None:
                velocity.append(bk.velocity)
                vel_rows.extend(range(row, row + m))
                if bk.c is not None:
                    c.append(bk.c)
                    lin_rows.extend(range(row, row + m))
            row += m
        cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0)  # noqa: E731
        return ConstraintRows(A, b, self.level, self.owner, cat(position), cat(velocity),
                              np.array(vel_rows, int), cat(c), np.array(lin_rows, int))


def build_constraint_kinds(model: Model, kin: TreeKinematics, rate_speeds: bool) -> list[ConstraintKind]:
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
            kinds.append(ExpressionRows(kin, c, path, rate_speeds))
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

    def _parent_frame(self, ks):
        p = self.parent
        if p < 0:
            return np.eye(3), np.zeros(3), np.zeros(3), np.zeros(3)
        return ks.R[p], ks.origin[p], ks.omega[p], ks.alpha_bias[p]

    def evaluate(self, ctx):
        ks, kin, u = ctx.ks, self.kin, ctx.u
        Rp, op, wp, ap = self._parent_frame(ks)
        RJ = Rp @ self.F
        PJ = op + Rp @ self.at
        c, p = self.child, self.parent
        oc = ks.origin[c]
        Jc = kin.point_jacobian(ks, c, oc)
        Jwc = ks.J_w[c]
        if p >= 0:
            Jp = kin.point_jacobian(ks, p, PJ)
            Jwp = ks.J_w[p]
            r_bias = kin.point_bias(ks, c, oc) - kin.point_bias(ks, p, PJ)
        else:
            Jp = Jwp = np.zeros((3, kin.n_u))
            r_bias = kin.point_bias(ks, c, oc)
        r = oc - PJ
        r_dot = (Jc - Jp) @ u
        blocks_A, blocks_b, pos = [], [], []
        if self.n_trans:
            if self.world_axes:
                E = self.E_local
                A = E @ (Jc - Jp)
                bias = E @ r_bias
            else:
                E = self.E_local @ RJ.T  # rows: world directions e fixed in the joint frame
                E_dot = cross(wp, E)  # ė = ω_p × e
                A = E @ (Jc - Jp) + cross(E, r) @ Jwp
                bias = E @ r_bias + 2.0 * (E_dot @ r_dot) + (cross(ap, E) + cross(wp, E_dot)) @ r
            blocks_A.append(A)
            blocks_b.append(-bias)
            pos.append(E @ r)
        if self.n_rot:
            G = self.G_local @ RJ.T  # fixed in the joint frame
            H = self.H_local @ ks.R[c].T  # fixed in the child
            hxg = cross(H, G)
            A = hxg @ (Jwc - Jwp)
            wc = ks.omega[c]
            w_rel = wc - wp
            alpha_c = ks.alpha_bias[c]
            alpha_p = ap
            bias = hxg @ (alpha_c - alpha_p) + (cross(cross(wc, H), G) + cross(H, cross(wp, G))) @ w_rel
            blocks_A.append(A)
            blocks_b.append(-bias)
            pos.append(np.einsum("ij,ij->i", G, H))
        A = np.vstack(blocks_A) if len(blocks_A) > 1 else blocks_A[0]
        return RowBlock(A=A, b=np.concatenate(blocks_b), position=np.concatenate(pos),
                        velocity=A @ u, c=np.zeros(self.rows))


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

    def evaluate(self, ctx):
        q, u, n = ctx.q, ctx.u, len(self.at)
        cx, px, hp = self.child_x, self.parent_x, self.has_parent
        th = np.where(hp, q[px + 2], 0.0)
        th_dot = np.where(hp, u[px + 2], 0.0)
        c, s = np.cos(th), np.sin(th)
        rho = np.column_stack((c * self.at[:, 0] - s * self.at[:, 1], s * self.at[:, 0] + c * self.at[:, 1]))
        base = np.column_stack((np.where(hp, q[px], 0.0), np.where(hp, q[px + 1], 0.0)))
        phi = np.column_stack((q[cx], q[cx + 1])) - base - rho
        A = np.zeros((2 * n, self.kin.n_u))
        rx, ry = 2 * self.row_index, 2 * self.row_index + 1
        A[rx, cx] = 1.0
        A[ry, cx + 1] = 1.0
        k = self.row_index[hp]
        A[rx[k], px[k]] = -1.0
        A[ry[k], px[k] + 1] = -1.0
        A[rx[k], px[k] + 2] = rho[k, 1]  # −(ẑ × ρ)_x = ρ_y
        A[ry[k], px[k] + 2] = -rho[k, 0]
        b = -(th_dot * th_dot)[:, None] * rho
        return RowBlock(A=A, b=b.ravel(), position=phi.ravel(), velocity=A @ u, c=np.zeros(2 * n))
