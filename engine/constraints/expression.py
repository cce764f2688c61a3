"""Constraint kinds given as expressions: a prescribed coordinate motion and a user equation at
position, velocity or acceleration level, differentiated by sympy once at load and compiled."""
from __future__ import annotations

import numpy as np

from eomlab.engine.forcing.action import joint_action
from eomlab.engine.expressions import compile_expressions, parse_expression, symbol
from eomlab.engine.lazy_imports import sympy
from eomlab.engine.model import ExpressionConstraint, ModelError, Prescribed
from eomlab.engine.constraints.rows import HOLONOMIC, ConstraintKind, RowBlock


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

    def actions(self, ks, lam):
        """The servo's effort λ on its coordinate's speed, as a force or couple at its joint."""
        body = next(jl.body for jl in self.kin.joints if jl.u_slice.start <= self.index < jl.u_slice.stop)
        Q = np.zeros(self.kin.joints[body].u_slice.stop - self.kin.joints[body].u_slice.start)
        Q[self.index - self.kin.joints[body].u_slice.start] = lam[0]
        return [joint_action(self.kin, ks, body, Q, f"constraint {self.name}", "actuator")]


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
