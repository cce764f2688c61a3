"""Applied forces as generalized forces in the speeds' space (virtual work, THEORY.md §1).

Each force element contributes Q_u = Σ J_Pᵀ F + Σ J_ωᵀ L (+ Wᵀ τ for joint-coordinate efforts,
since δq = W δu), and its potential energy where it has one.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from eomlab.engine.forcing.action import Action, joint_action
from eomlab.engine.expressions import compile_expressions, parse_expression
from eomlab.engine.kinematics import TreeKinematics
from eomlab.engine.mechanics.state import StateContext
from eomlab.engine.model import GROUND, BodyTorque, JointEffort, JointSpring, Model, PointForce, Spring


def expression_arguments(coordinate_names) -> list[str]:
    return ["t", *coordinate_names, *[f"{c}_dot" for c in coordinate_names]]


class ForceElement:
    """A force of the model as generalized forces in the speeds; springs also give their potential."""

    conservative = False  # True for an undamped spring: it keeps E = T + V
    name = ""

    def generalized(self, ctx: StateContext) -> np.ndarray:
        raise NotImplementedError

    def actions(self, ctx: StateContext) -> list[Action]:
        """Its forces and couples at the points where they act (`engine.forcing.action`): their
        generalized force is `generalized(ctx)`."""
        raise NotImplementedError

    def potential(self, ks, q) -> float:
        """Its potential energy at the kinematic state ks (coordinates q); 0 without one."""
        return 0.0


class _Compiled:
    """Expressions compiled once; called with t, q and q_dot."""

    def __init__(self, texts, coordinate_names, path):
        allowed = set(expression_arguments(coordinate_names))
        exprs = [parse_expression(text, allowed, f"{path}[{i}]").sympy for i, text in enumerate(texts)]
        self.fn: Callable = compile_expressions(exprs, expression_arguments(coordinate_names))
        self.size = len(texts)

    def __call__(self, ctx: StateContext) -> np.ndarray:
        return np.asarray(self.fn(ctx.t, *ctx.q, *ctx.qd), dtype=float).reshape(self.size)


def _body_index(kin: TreeKinematics, name: str) -> int:
    return -1 if name == GROUND else kin.body_names.index(name)


def _world_point(kin, ks, body: int, point: np.ndarray) -> np.ndarray:
    if body < 0:
        return point.copy()
    return ks.origin[body] + ks.R[body] @ point


def _to_speed_space(ctx: StateContext, jl, tau: np.ndarray, n_u: int) -> np.ndarray:
    """Joint-coordinate effort τ on one joint's coordinates → generalized force in speeds
    (Q = Wᵀτ: the rows of W that belong to the joint's coordinates)."""
    Q = np.zeros(n_u)
    if ctx.W is None:
        Q[jl.u_slice] = tau
    else:
        Q += ctx.W[jl.q_slice, :].T @ tau
    return Q


class SpringElement(ForceElement):
    """Linear spring-damper between two points; equal and opposite forces (THEORY.md §4)."""

    def __init__(self, kin: TreeKinematics, f: Spring, path: str = ""):
        self.kin, self.name = kin, f.name
        self.a, self.b = _body_index(kin, f.a.body), _body_index(kin, f.b.body)
        self.pa, self.pb = np.array(f.a.point, float), np.array(f.b.point, float)
        self.k, self.rest, self.c = f.stiffness, f.rest_length, f.damping
        self.conservative = not self.c

    def _geometry(self, ks):
        Pa = _world_point(self.kin, ks, self.a, self.pa)
        Pb = _world_point(self.kin, ks, self.b, self.pb)
        d = Pb - Pa
        return Pa, Pb, d, float(np.linalg.norm(d))

    def _tension(self, ks):
        """(Pa, Pb, unit vector a → b, tension k (L − L₀) + c L̇); None when the ends meet."""
        Pa, Pb, d, L = self._geometry(ks)
        if L < 1e-15:
            return None
        e = d / L
        rate = e @ (self.kin.point_velocity(ks, self.b, Pb) - self.kin.point_velocity(ks, self.a, Pa))
        return Pa, Pb, e, self.k * (L - self.rest) + self.c * rate

    def generalized(self, ctx):
        ks = ctx.ks
        pulled = self._tension(ks)
        if pulled is None:
            return np.zeros(self.kin.n_u)
        Pa, Pb, e, tension = pulled
        Ja = self.kin.point_jacobian(ks, self.a, Pa)
        Jb = self.kin.point_jacobian(ks, self.b, Pb)
        return tension * (Ja.T @ e - Jb.T @ e)

    def actions(self, ctx):
        """Tension pulls a towards b at Pa and b towards a at Pb."""
        pulled = self._tension(ctx.ks)
        if pulled is None:
            return []
        Pa, Pb, e, tension = pulled
        if self.a < 0:
            return [Action(f"spring {self.name}", "spring", self.b, Pb, -tension * e, other=self.a, other_at=Pa)]
        return [Action(f"spring {self.name}", "spring", self.a, Pa, tension * e, other=self.b, other_at=Pb)]

    def potential(self, ks, q) -> float:
        L = self._geometry(ks)[3]
        return 0.5 * self.k * (L - self.rest) ** 2


class JointSpringElement(ForceElement):
    def __init__(self, kin: TreeKinematics, f: JointSpring, path: str = ""):
        jl = kin.joints[kin.body_names.index(f.body)]
        self.kin, self.jl, self.name = kin, jl, f.name
        k = jl.q_slice.stop - jl.q_slice.start
        rest = f.rest if len(f.rest) == k else (tuple(f.rest) * k if len(f.rest) == 1 else (0.0,) * k)
        self.rest = np.array(rest, float)
        self.k, self.c = f.stiffness, f.damping
        self.conservative = not self.c

    def generalized(self, ctx):
        qj = ctx.q[self.jl.q_slice]
        qdj = ctx.qd[self.jl.q_slice]
        tau = -self.k * (qj - self.rest) - self.c * qdj
        return _to_speed_space(ctx, self.jl, tau, self.kin.n_u)

    def actions(self, ctx):
        return [joint_action(self.kin, ctx.ks, self.jl.body, self.generalized(ctx)[self.jl.u_slice],
                             f"spring {self.name}", "spring")]

    def potential(self, ks, q) -> float:
        dq = q[self.jl.q_slice] - self.rest
        return 0.5 * self.k * float(dq @ dq)


class JointEffortElement(ForceElement):
    def __init__(self, kin: TreeKinematics, f: JointEffort, path: str):
        self.kin, self.name = kin, f.name
        self.jl = kin.joints[kin.body_names.index(f.body)]
        self.values = _Compiled(f.value, kin.coordinate_names, f"{path}.value")

    def generalized(self, ctx):
        return _to_speed_space(ctx, self.jl, self.values(ctx), self.kin.n_u)

    def actions(self, ctx):
        return [joint_action(self.kin, ctx.ks, self.jl.body, self.generalized(ctx)[self.jl.u_slice],
                             f"effort {self.name}", "effort")]


class _BodyLoad(ForceElement):
    """A force or torque vector on one body, given in world or body axes by expressions.

    In absolute coordinates (`joint_view`: `engine.mechanics.joint_coordinates.JointCoordinates`) the
    expressions read the joint coordinates, which are functions of the poses there."""

    def __init__(self, kin: TreeKinematics, f: PointForce | BodyTorque, path: str, joint_view=None):
        self.kin, self.name = kin, f.name
        self.body = _body_index(kin, f.body)
        self.in_body = f.frame == "body"
        self.joint_view = joint_view
        self.values = _Compiled(f.value, (joint_view or kin).coordinate_names, f"{path}.value")

    def world_vector(self, ctx: StateContext) -> np.ndarray:
        vector = self.values(ctx if self.joint_view is None else self.joint_view.state(ctx).context)
        return ctx.ks.R[self.body] @ vector if self.in_body else vector


class PointForceElement(_BodyLoad):
    def __init__(self, kin: TreeKinematics, f: PointForce, path: str, joint_view=None):
        super().__init__(kin, f, path, joint_view)
        self.point = np.array(f.point, float)

    def generalized(self, ctx):
        if self.body < 0:
            return np.zeros(self.kin.n_u)
        P = _world_point(self.kin, ctx.ks, self.body, self.point)
        return self.kin.point_jacobian(ctx.ks, self.body, P).T @ self.world_vector(ctx)

    def actions(self, ctx):
        if self.body < 0:
            return []
        P = _world_point(self.kin, ctx.ks, self.body, self.point)
        return [Action(f"force {self.name}", "load", self.body, P, self.world_vector(ctx))]


class BodyTorqueElement(_BodyLoad):
    def generalized(self, ctx):
        if self.body < 0:
            return np.zeros(self.kin.n_u)
        return ctx.ks.J_w[self.body].T @ self.world_vector(ctx)

    def actions(self, ctx):
        if self.body < 0:
            return []
        return [Action(f"torque {self.name}", "load", self.body, ctx.ks.com[self.body].copy(),
                       torque=self.world_vector(ctx))]


#: the force element of each model force type
ELEMENTS = {Spring: SpringElement, JointSpring: JointSpringElement, JointEffort: JointEffortElement,
            PointForce: PointForceElement, BodyTorque: BodyTorqueElement}


def build_force_elements(model: Model, kin: TreeKinematics) -> list[ForceElement]:
    """The generalized-force element of every force of the model, on the tree kinematics `kin`."""
    return [ELEMENTS[type(f)](kin, f, f"forces[{i}]") for i, f in enumerate(model.forces)]


class PushElement(ForceElement):
    """A constant world-frame force F at a body-fixed point (body frame, from the body's origin)
    from t_start to t_stop (`Simulation.push`): Q_u = J_Pᵀ F. The simulation switches `active`
    when it restarts the integrator at the push's ends, so each integrator segment sees a smooth
    right-hand side."""

    def __init__(self, kin: TreeKinematics, body: str, point, force, t_start: float, t_stop: float):
        self.kin, self.name = kin, "push"
        self.body_name = body
        self.body = _body_index(kin, body)
        self.point = np.array(point, float)
        self.force = np.array(force, float)
        self.t_start, self.t_stop = float(t_start), float(t_stop)
        self.active = False

    def generalized(self, ctx):
        if not self.active:
            return np.zeros(self.kin.n_u)
        P = _world_point(self.kin, ctx.ks, self.body, self.point)
        return self.kin.point_jacobian(ctx.ks, self.body, P).T @ self.force

    def actions(self, ctx):
        return [self.action(ctx.ks)] if self.active else []

    def acts_at(self, t: float, eps: float = 0.0) -> bool:
        return self.t_start - eps <= t < self.t_stop - eps

    def action(self, ks) -> Action:
        """Its force at its point, whether or not it acts now."""
        return Action(f"push on {self.body_name}", "push", self.body, _world_point(self.kin, ks, self.body, self.point),
                      self.force.copy())
