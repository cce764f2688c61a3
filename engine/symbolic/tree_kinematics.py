"""Symbolic tree kinematics of a Model in joint coordinates.

Symbols are named exactly as the model's coordinates (`q`), their rates `<coord>_dot` (`qd`),
accelerations `<coord>_ddot`, and the model's speeds (`u`, body-axis ω components for
spherical/free joints with ``"speeds": "body"``, else the rates), all real, as
`engine.expressions.symbol` makes them. Every body gets its world rotation, hinge position and
body-axis angular velocity; velocities come from Jacobians, so they are exact and linear in the
rates or speeds (Roberson–Wittenburg: ṙ = α q̇ + s, here with s = 0 for a fixed base).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from eomlab.engine.joints import symbolic_joint
from eomlab.engine.model import GROUND, Model, speed_names

from eomlab.engine.symbolic.errors import SIMPLIFY_DOF_LIMIT, Progress, check_dof, check_operations, operation_count
from eomlab.engine.symbolic.parameters import Parameters, exact_matrix, exact_vector
from eomlab.engine.symbolic.simplification import simplified

UNIT = {"x": sp.Matrix([1, 0, 0]), "y": sp.Matrix([0, 1, 0]), "z": sp.Matrix([0, 0, 1])}
TIME = sp.Symbol("t", real=True)


def symbol(name: str) -> sp.Symbol:
    """The same real symbol engine.expressions makes for `name`."""
    return sp.Symbol(name, real=True)


def skew(v: sp.Matrix) -> sp.Matrix:
    return sp.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def elementary(letter: str, angle: sp.Expr) -> sp.Matrix:
    c, s = sp.cos(angle), sp.sin(angle)
    if letter == "x":
        return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])
    if letter == "y":
        return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def axis_rotation(axis: sp.Matrix, angle: sp.Expr) -> sp.Matrix:
    """Rodrigues' formula; an axis along x, y or z gives the plain elementary rotation."""
    for letter, unit in UNIT.items():
        if axis == unit:
            return elementary(letter, angle)
    k = skew(axis)
    return sp.eye(3) + sp.sin(angle) * k + (1 - sp.cos(angle)) * k * k


def quaternion_matrix(p) -> sp.Matrix:
    """R(p) of unit Euler parameters p = (e0, e1, e2, e3) (the numeric engine divides by |p|²,
    which is 1 on the normalisation constraint)."""
    e0, e1, e2, e3 = p
    return sp.Matrix([
        [e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), e0**2 - e1**2 + e2**2 - e3**2, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 - e2**2 + e3**2]])


def quaternion_rate_matrices(p) -> tuple[sp.Matrix, sp.Matrix]:
    """(Q, G): ṗ = ½ Q ω_body and ω_body = 2 G ṗ for unit p."""
    e0, e1, e2, e3 = p
    Q = sp.Matrix([[-e1, -e2, -e3], [e0, -e3, e2], [e3, e0, -e1], [-e2, e1, e0]])
    G = sp.Matrix([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])
    return Q, G


def z_angle(R: sp.Matrix):
    """φ when R is the rotation about z by φ (the identity: 0), else None."""
    if R == sp.eye(3):
        return sp.Integer(0)
    if R[2, 2] != 1 or any(R[i, j] != 0 for i, j in ((0, 2), (1, 2), (2, 0), (2, 1))):
        return None
    c, s = R[0, 0], R[1, 0]
    if isinstance(c, sp.cos) and isinstance(s, sp.sin) and c.args == s.args and R[0, 1] == -s and R[1, 1] == c:
        return c.args[0]
    return None


def matrix_diff(matrix: sp.Matrix, variable: sp.Symbol) -> sp.Matrix:
    """∂matrix/∂variable entry by entry (sympy's `Matrix.diff` goes through its array-derivative
    machinery: 20 ms of imports on first use, and slower per call)."""
    return matrix.applyfunc(lambda entry: entry.diff(variable))


def compose(*rotations: sp.Matrix) -> sp.Matrix:
    """The product of rotations; rotations about z alone are composed by adding their angles
    (a planar chain's bodies turn by θ1 + θ2 + …: short sums instead of nested products)."""
    angles = [z_angle(R) for R in rotations]
    if all(a is not None for a in angles):
        return elementary("z", sp.Add(*angles))
    product = sp.eye(3)
    for R in rotations:
        product = product * R
    return product


def euler_body_rate_matrix(sequence: str, theta: sp.Expr, phi: sp.Expr) -> sp.Matrix:
    """E with ω_body = E (ψ̇, θ̇, φ̇) for R = R_a(ψ) R_b(θ) R_c(φ)."""
    a, b, c = sequence
    rb, rc = elementary(b, theta), elementary(c, phi)
    return sp.Matrix.hstack(rc.T * rb.T * UNIT[a], rc.T * UNIT[b], UNIT[c])


def acceleration_name(speed: str, coordinates: dict[str, str]) -> str:
    """u̇'s symbol name: `<coord>_ddot` for a rate speed, `<speed>_dot` for a body rate."""
    return f"{coordinates[speed]}_ddot" if speed in coordinates else f"{speed}_dot"


@dataclass
class Motion:
    """A body's motion in one choice of velocity variables (the rates q̇ or the speeds u).

    Accelerations are linear in the matching second derivatives (q̈ or u̇ symbols)."""

    omega: sp.Matrix  # body-axis angular velocity
    alpha: sp.Matrix  # body-axis angular acceleration (= d/dt of omega's components)
    v_origin: sp.Matrix  # velocity of the hinge, body-axis components
    a_origin: sp.Matrix  # acceleration of the hinge, body-axis components


@dataclass
class BodyFrame:
    """One body's pose and motion, all sympy, world components unless said otherwise."""

    name: str
    parent: str
    rotation: sp.Matrix  # body axes -> world
    origin: sp.Matrix  # hinge (body-frame origin)
    rates: Motion  # in q̇, q̈
    speeds: Motion  # in u, u̇
    mass: sp.Expr
    com: sp.Matrix  # body axes
    inertia: sp.Matrix  # about the mass centre, body axes
    joint_frame_rotation: sp.Matrix  # joint frame -> world (axes of the joint's motion)
    coordinates: list[sp.Symbol] = field(default_factory=list)

    def motion(self, speeds: bool) -> Motion:
        return self.speeds if speeds else self.rates


class SymbolicTree:
    """Positions, rotations and velocities of every body of a Model, as sympy expressions.

    Parameters
    ----------
    model : Model
    parameters : "numbers" | "symbols"
    progress : Progress, optional (cancel flag)

    Example
    -------
    >>> from eomlab.engine.model import Body, Joint, Model
    >>> pend = Body("bob", "ground", Joint("revolute", names=("th",)), mass=1.0, com=(1.0, 0, 0))
    >>> tree = SymbolicTree(Model(bodies=(pend,)))
    >>> tree.com_position("bob").T
    Matrix([[cos(th), sin(th), 0]])
    """

    def __init__(self, model: Model, parameters: str = "numbers", progress: Progress | None = None):
        self.model = model
        self.progress = progress or Progress()
        self.params = Parameters(parameters)
        self.coordinate_names = [n for b in model.bodies for n in b.joint.names]
        self.speed_names = [s for b in model.bodies for s in speed_names(b.name, b.joint)]
        check_dof(len(self.speed_names))
        self.simplify_enabled = len(self.coordinate_names) <= SIMPLIFY_DOF_LIMIT
        self.t = TIME
        self.q = [symbol(n) for n in self.coordinate_names]
        self.qd = [symbol(f"{n}_dot") for n in self.coordinate_names]
        self.qdd = [symbol(f"{n}_ddot") for n in self.coordinate_names]
        self.u = [symbol(n) for n in self.speed_names]
        rate_speeds = {f"{n}_dot": n for n in self.coordinate_names}
        self.ud = [symbol(acceleration_name(s, rate_speeds)) for s in self.speed_names]
        self.gravity = self.params.gravity(model)
        self.qdot_in_speeds: dict[sp.Symbol, sp.Expr] = {}  # q̇ = W(q) u
        self.speeds_in_rates: dict[sp.Symbol, sp.Expr] = {}  # u = W(q)⁻¹ q̇
        self.bodies: dict[str, BodyFrame] = {}
        self.lagrange_core = None  # (T, V, M, Γ, h, Q) once a formulation has formed them
        self._simplified: dict = {}  # expression -> its simplified form (formulations share entries)
        self._build()
        ops = sum(operation_count(self.com_position(b.name)) for b in model.bodies)
        check_operations(ops, len(self.q))

    # --- simplification --------------------------------------------------------------------

    def simplify(self, expr):
        """trigsimp on small models (it pays: cos θ1 cos θ2 − sin θ1 sin θ2 → cos(θ1+θ2))."""
        if not self.simplify_enabled:
            return expr
        if isinstance(expr, sp.MatrixBase):
            return expr.applyfunc(self._simplify_entry)
        return self._simplify_entry(expr)

    def _simplify_entry(self, expr):
        known = self._simplified.get(expr)
        if known is None:
            known = self._simplified[expr] = simplified(expr)
            self._simplified[known] = known  # simplifying it again changes nothing
        return known

    # --- building the tree -----------------------------------------------------------------

    def _build(self) -> None:
        q_index = u_index = 0
        for body in self.model.bodies:
            self.progress.checkpoint(f"kinematics of {body.name}")
            k, kq = body.joint.dof, body.joint.n_coordinates
            q = self.q[q_index:q_index + kq]
            qd = self.qd[q_index:q_index + kq]
            u = self.u[u_index:u_index + k]
            self.bodies[body.name] = self._body_frame(body, q, qd, u)
            q_index += kq
            u_index += k

    def _parent_frame(self, parent: str):
        if parent == GROUND:
            zero = sp.zeros(3, 1)
            resting = Motion(zero, zero, zero, zero)
            return sp.eye(3), zero, resting, resting
        frame = self.bodies[parent]
        return frame.rotation, frame.origin, frame.rates, frame.speeds

    def _body_frame(self, body, q, qd, u) -> BodyFrame:
        joint = body.joint
        R_parent, origin_parent, parent_rates, parent_speeds = self._parent_frame(body.parent)
        R_joint = exact_matrix(joint.rotation)
        R_rel, translation = self._joint_pose(joint, q)
        w_rel_rates, w_rel_speeds = self._kinematic_equations(joint, q, qd, u)
        R_jw = self.simplify(compose(R_parent, R_joint))
        rotation = self.simplify(compose(R_jw, R_rel))
        offset = self.params.hinge(body) + R_joint * translation  # hinge from parent origin, parent axes
        origin = self.simplify(origin_parent + R_parent * offset)
        to_body = (R_joint * R_rel).T  # parent axes -> body axes
        rates = self._motion(parent_rates, w_rel_rates, to_body, R_parent, R_joint, offset, translation, False)
        speeds = self._motion(parent_speeds, w_rel_speeds, to_body, R_parent, R_joint, offset, translation, True)
        return BodyFrame(
            name=body.name, parent=body.parent, rotation=rotation, origin=origin, rates=rates,
            speeds=speeds, mass=self.params.mass(body), com=self.params.com(body),
            inertia=self.params.inertia(body), joint_frame_rotation=R_jw, coordinates=list(q))

    def _motion(self, parent: Motion, w_rel, to_body, R_parent, R_joint, offset, translation, speeds) -> Motion:
        """Recursive velocities and accelerations of a child from its parent's.

        All in body axes (C = R_J R_rel turns child axes into parent axes), which keeps the
        expressions short: only relative rotations appear, never the product down the chain.
        ω_c = Cᵀ ω_p + ω_rel,  α_c = Cᵀ α_p − ω_rel × Cᵀ ω_p + d/dt ω_rel
        v_o = Cᵀ (v_p + ω_p × d + ḋ),  a_o = Cᵀ (a_p + α_p × d + ω_p × (ω_p × d) + 2 ω_p × ḋ + d̈)
        """
        w_parent = to_body * parent.omega
        omega = self.simplify(w_parent + w_rel)
        alpha = self.simplify(to_body * parent.alpha - w_rel.cross(w_parent) + self.time_derivative(w_rel, speeds))
        d_dot = R_joint * self.time_derivative(translation, speeds)
        d_ddot = R_joint * self.time_derivative(self.time_derivative(translation, speeds), speeds)
        wp, ap = parent.omega, parent.alpha
        v_origin = self.simplify(to_body * (parent.v_origin + wp.cross(offset) + d_dot))
        a_origin = self.simplify(to_body * (
            parent.a_origin + ap.cross(offset) + wp.cross(wp.cross(offset)) + 2 * wp.cross(d_dot) + d_ddot))
        return Motion(omega, alpha, v_origin, a_origin)

    def _joint_pose(self, joint, q):
        """R_rel and the translation (joint frame) of a joint."""
        return symbolic_joint(joint.type).pose(self, joint, q)

    def _kinematic_equations(self, joint, q, qd, u):
        """Record q̇ = W(q) u for the joint; return the body-axis relative ω in rates and speeds."""
        return symbolic_joint(joint.type).rates(self, joint, q, qd, u)

    def _rate_speeds(self, qd, u) -> None:
        for rate, speed in zip(qd, u):
            self.qdot_in_speeds[rate] = speed
            self.speeds_in_rates[speed] = rate

    def _quaternion_rates(self, joint, q, qd, u):
        """Euler parameters: ṗ = ½ Q(p) ω_body with body-rate speeds, ω_body = 2 G(p) ṗ (the
        rotation part: a free joint's slides are its type's, engine.symbolic.joint_types)."""
        Q, G = quaternion_rate_matrices(q[-4:])
        w = sp.Matrix(u[-3:])
        w_rates = 2 * G * sp.Matrix(qd[-4:])
        for rate, value in zip(qd[-4:], Q * w / 2):
            self.qdot_in_speeds[rate] = value
        for speed, value in zip(u[-3:], w_rates):
            self.speeds_in_rates[speed] = value
        return w_rates, w

    def _euler_rates(self, joint, q, qd, u):
        """ω_body = E(θ, φ) (ψ̇, θ̇, φ̇); body-rate speeds are ω_body itself, so q̇ = E⁻¹ u."""
        E = self.simplify(euler_body_rate_matrix(joint.sequence, q[-2], q[-1]))
        w_rates = E * sp.Matrix(qd[-3:])
        if joint.speeds != "body":
            self._rate_speeds(qd[-3:], u[-3:])
            return w_rates, E * sp.Matrix(u[-3:])
        rates_of_speeds = self.simplify(E.inv()) * sp.Matrix(u[-3:])
        for rate, value, speed, w in zip(qd[-3:], rates_of_speeds, u[-3:], w_rates):
            self.qdot_in_speeds[rate] = value
            self.speeds_in_rates[speed] = w
        return w_rates, sp.Matrix(u[-3:])

    # --- queries ---------------------------------------------------------------------------

    @property
    def n_dof(self) -> int:
        return len(self.q)

    def frame(self, body: str) -> BodyFrame:
        return self.bodies[body]

    def rotation(self, body: str) -> sp.Matrix:
        return sp.eye(3) if body == GROUND else self.bodies[body].rotation

    def point_position(self, body: str, point) -> sp.Matrix:
        """World position of a point given in body coordinates (world point for ground)."""
        point = point if isinstance(point, sp.MatrixBase) else exact_vector(point)
        if body == GROUND:
            return point
        frame = self.bodies[body]
        return self.simplify(frame.origin + frame.rotation * point)

    def com_position(self, body: str) -> sp.Matrix:
        frame = self.bodies[body]
        return self.point_position(body, frame.com)

    def rates_to_speeds(self, expr):
        """Substitute q̇ = W(q) u."""
        return expr.subs(self.qdot_in_speeds)

    def time_derivative(self, expr, speeds: bool):
        """d/dt of an expression in (q, q̇, t) — or (q, u, t) when `speeds` — with the q̈ (or u̇)
        symbols standing for the second derivatives."""
        matrix = expr if isinstance(expr, sp.MatrixBase) else sp.Matrix([expr])
        result = matrix_diff(matrix, self.t)
        velocities = self.u if speeds else self.qd
        accelerations = self.ud if speeds else self.qdd
        for coordinate, rate in zip(self.q, self.qd):
            if matrix.has(coordinate):
                rate_value = self.qdot_in_speeds[rate] if speeds else rate
                result += matrix_diff(matrix, coordinate) * rate_value
        for velocity, acceleration in zip(velocities, accelerations):
            if matrix.has(velocity):
                result += matrix_diff(matrix, velocity) * acceleration
        return result if isinstance(expr, sp.MatrixBase) else result[0]

    def point_velocity_body(self, body: str, point, speeds: bool = True) -> sp.Matrix:
        """Velocity of a body point in that body's axes: v_o + ω × ρ."""
        if body == GROUND:
            return sp.zeros(3, 1)
        rho = point if isinstance(point, sp.MatrixBase) else exact_vector(point)
        motion = self.bodies[body].motion(speeds)
        return self.simplify(motion.v_origin + motion.omega.cross(rho))

    def point_acceleration_body(self, body: str, point, speeds: bool = True) -> sp.Matrix:
        """Acceleration of a body point in that body's axes: a_o + α × ρ + ω × (ω × ρ)."""
        if body == GROUND:
            return sp.zeros(3, 1)
        rho = point if isinstance(point, sp.MatrixBase) else exact_vector(point)
        m = self.bodies[body].motion(speeds)
        return self.simplify(m.a_origin + m.alpha.cross(rho) + m.omega.cross(m.omega.cross(rho)))

    def point_velocity(self, body: str, point, speeds: bool = True) -> sp.Matrix:
        """World velocity of a body point."""
        if body == GROUND:
            return sp.zeros(3, 1)
        return self.simplify(self.rotation(body) * self.point_velocity_body(body, point, speeds))

    def point_acceleration(self, body: str, point, speeds: bool = True) -> sp.Matrix:
        """World acceleration of a body point."""
        if body == GROUND:
            return sp.zeros(3, 1)
        return self.simplify(self.rotation(body) * self.point_acceleration_body(body, point, speeds))

    def com_velocity(self, body: str, speeds: bool = True) -> sp.Matrix:
        return self.point_velocity(body, self.bodies[body].com, speeds)

    def com_velocity_body(self, body: str, speeds: bool = True) -> sp.Matrix:
        return self.point_velocity_body(body, self.bodies[body].com, speeds)

    def com_acceleration_body(self, body: str, speeds: bool = True) -> sp.Matrix:
        return self.point_acceleration_body(body, self.bodies[body].com, speeds)

    def to_body(self, body: str, world_vector: sp.Matrix) -> sp.Matrix:
        """World components → the body's axes."""
        return self.simplify(self.rotation(body).T * world_vector)

    def omega_body(self, body: str, speeds: bool = True) -> sp.Matrix:
        if body == GROUND:
            return sp.zeros(3, 1)
        return self.bodies[body].motion(speeds).omega

    def alpha_body(self, body: str, speeds: bool = True) -> sp.Matrix:
        if body == GROUND:
            return sp.zeros(3, 1)
        return self.bodies[body].motion(speeds).alpha

    def omega_world(self, body: str, speeds: bool = True) -> sp.Matrix:
        if body == GROUND:
            return sp.zeros(3, 1)
        return self.simplify(self.rotation(body) * self.omega_body(body, speeds))

    def velocities(self, speeds: bool) -> list[sp.Symbol]:
        """The velocity variables: the speeds u, or the rates q̇."""
        return self.u if speeds else self.qd

    def accelerations(self, speeds: bool) -> list[sp.Symbol]:
        return self.ud if speeds else self.qdd
