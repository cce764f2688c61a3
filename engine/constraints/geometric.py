"""Geometric constraint kinds, differentiated exactly through the tree kinematics: coincident points,
a distance between points, a knife edge and a rolling disk."""
from __future__ import annotations

import numpy as np

from eomlab.engine.model import Coincident, Distance, KnifeEdge, RollingDisk
from eomlab.engine.rotations import cross
from eomlab.engine.forcing.action import Action
from eomlab.engine.constraints.rows import AXES, HOLONOMIC, VELOCITY, LinearKind, RowBlock, between, body_index, world_point


class CoincidentRows(LinearKind):
    """Φ = (P_b − P_a) along the listed world axes."""

    def __init__(self, kin, c: Coincident, path: str = ""):
        self.kin, self.name = kin, c.name
        self.a, self.b = body_index(kin, c.a.body), body_index(kin, c.b.body)
        self.pa, self.pb = np.array(c.a.point, float), np.array(c.b.point, float)
        self.axes = [AXES[d] for d in c.dims]
        self.rows = len(self.axes)
        self.level = (HOLONOMIC,) * self.rows
        self.labels = tuple(c.dims)

    def evaluate_at_zero(self, ctx):
        ks, kin = ctx.ks, self.kin
        Pa, Pb = world_point(kin, ks, self.a, self.pa), world_point(kin, ks, self.b, self.pb)
        J = kin.point_jacobian(ks, self.b, Pb) - kin.point_jacobian(ks, self.a, Pa)
        ax = self.axes
        cache = (Pa, Pb)
        # b is quadratic in u: 0 at u = 0 (the reduced formulations' first stage)
        b = self.bias_at(cache, ctx) if np.count_nonzero(ctx.u) else np.zeros(self.rows)
        return RowBlock(A=J[ax], b=b, position=(Pb - Pa)[ax], velocity=(J @ ctx.u)[ax], c=np.zeros(self.rows)), cache

    def bias_at(self, cache, ctx):
        Pa, Pb = cache
        ks, kin = ctx.ks, self.kin
        bias = kin.point_bias(ks, self.b, Pb) - kin.point_bias(ks, self.a, Pa)
        return -bias[self.axes]

    def actions(self, ks, lam):
        """λ along the listed axes on b at its point, the reaction on a at its point."""
        Pa, Pb = world_point(self.kin, ks, self.a, self.pa), world_point(self.kin, ks, self.b, self.pb)
        force = np.zeros(3)
        force[self.axes] = lam
        return [between(f"constraint {self.name}", "closure", self.b, Pb, force, self.a, Pa)]


class DistanceRows(LinearKind):
    """Φ = (|d|² − L²) / (2L), d = P_b − P_a: smooth, and equal to |d| − L to first order."""

    def __init__(self, kin, c: Distance, path: str = ""):
        self.kin, self.name = kin, c.name
        self.a, self.b = body_index(kin, c.a.body), body_index(kin, c.b.body)
        self.pa, self.pb = np.array(c.a.point, float), np.array(c.b.point, float)
        self.length = c.length
        self.rows, self.level = 1, (HOLONOMIC,)

    def evaluate_at_zero(self, ctx):
        ks, kin, L = ctx.ks, self.kin, self.length
        Pa, Pb = world_point(kin, ks, self.a, self.pa), world_point(kin, ks, self.b, self.pb)
        d = Pb - Pa
        J = kin.point_jacobian(ks, self.b, Pb) - kin.point_jacobian(ks, self.a, Pa)
        d_dot = J @ ctx.u
        A = (d @ J)[None, :] / L
        cache = (Pa, Pb, d, J)
        b = self.bias_at(cache, ctx) if np.count_nonzero(ctx.u) else np.zeros(1)  # quadratic in u
        return RowBlock(A=A, b=b, position=np.array([(d @ d - L * L) / (2 * L)]),
                        velocity=np.array([d @ d_dot / L]), c=np.zeros(1)), cache

    def bias_at(self, cache, ctx):
        Pa, Pb, d, J = cache
        ks, kin = ctx.ks, self.kin
        bias = kin.point_bias(ks, self.b, Pb) - kin.point_bias(ks, self.a, Pa)
        d_dot = J @ ctx.u
        return np.array([-(d @ bias + d_dot @ d_dot) / self.length])

    def actions(self, ks, lam):
        """λ d / L on b at its point (A = dᵀ(J_b − J_a) / L), the reaction on a."""
        Pa, Pb = world_point(self.kin, ks, self.a, self.pa), world_point(self.kin, ks, self.b, self.pb)
        force = lam[0] * (Pb - Pa) / self.length
        return [between(f"constraint {self.name}", "closure", self.b, Pb, force, self.a, Pa)]


class KnifeEdgeRows(LinearKind):
    """ψ = n·v_P: the velocity of the edge point along the body-fixed direction n vanishes."""

    def __init__(self, kin, c: KnifeEdge, path: str = ""):
        self.kin, self.name = kin, c.name
        self.body = body_index(kin, c.body)
        self.point = np.array(c.point, float)
        n = np.array(c.direction, float)
        self.direction = n / np.linalg.norm(n)
        self.rows, self.level = 1, (VELOCITY,)

    def evaluate_at_zero(self, ctx):
        ks, kin, i = ctx.ks, self.kin, self.body
        P = world_point(kin, ks, i, self.point)
        n = ks.R[i] @ self.direction
        J = kin.point_jacobian(ks, i, P)
        v = J @ ctx.u
        A = (n @ J)[None, :]
        cache = (P, n, J)
        b = self.bias_at(cache, ctx) if np.count_nonzero(ctx.u) else np.zeros(1)  # quadratic in u
        return RowBlock(A=A, b=b, position=None, velocity=np.array([n @ v]),
                        c=np.zeros(1)), cache

    def bias_at(self, cache, ctx):
        P, n, J = cache
        ks, i = ctx.ks, self.body
        v = J @ ctx.u
        n_dot = cross(ks.omega[i], n)
        return np.array([-(n @ self.kin.point_bias(ks, i, P) + n_dot @ v)])

    def actions(self, ks, lam):
        """The ground's sideways push λ n on the edge point."""
        i = self.body
        P = world_point(self.kin, ks, i, self.point)
        return [Action(f"constraint {self.name}", "contact", i, P, lam[0] * (ks.R[i] @ self.direction))]


class RollingDiskRows(LinearKind):
    """A disk rolling without slipping on z = 0.

    Holonomic: the lowest rim point touches the plane, Φ = z_C − r·sqrt(1 − (a·k)²).
    First order: the material contact point has no horizontal velocity (2 rows; its vertical
    velocity is Φ_dot already). The contact point depends on the disk's pose only, so A, Φ (and
    c = 0) are those at u = 0 and only b is taken at u (`bias_at`).
    """

    def __init__(self, kin, c: RollingDisk, path: str = ""):
        self.kin, self.name = kin, c.name
        self.body = body_index(kin, c.body)
        a = np.array(c.axis, float)
        self.axis = a / np.linalg.norm(a)
        self.radius = c.radius
        self.rows, self.level = 3, (HOLONOMIC, VELOCITY, VELOCITY)
        self.labels = ("contact", "slip_x", "slip_y")

    def _geometry(self, ks):
        """(a, p, s) at the pose: the disk's axis a in the world, p = k − (a·k) a and s = |p|, with
        −p / s the unit downward rim direction."""
        a = ks.R[self.body] @ self.axis
        p = -a[2] * a
        p[2] += 1.0
        s = float(np.sqrt(p @ p))
        if s < 1e-9:
            raise ArithmeticError(f"constraint {self.name}: the disk lies flat, its contact point is undefined")
        return a, p, s

    def _contact(self, ks):
        """Centre-to-contact vector ρ = r·c and its rate, with c the unit downward rim direction."""
        a, p, s = self._geometry(ks)
        return -self.radius * p / s, self._contact_rate(ks, a, p, s), s

    def _contact_rate(self, ks, a, p, s):
        """ρ̇ = r ċ at the state's angular velocity."""
        a_dot = cross(ks.omega[self.body], a)
        p_dot = -a_dot[2] * a - a[2] * a_dot
        s_dot = p @ p_dot / s
        return -self.radius * (p_dot * s - p * s_dot) / (s * s)

    def evaluate_at_zero(self, ctx):
        ks, kin, i = ctx.ks, self.kin, self.body
        a, p, s = self._geometry(ks)
        rho = -self.radius * p / s
        C = ks.com[i]
        J_P = kin.point_jacobian(ks, i, C + rho)  # material point at the contact
        A = J_P[[2, 0, 1]]
        cache = (a, p, s, rho)
        # b is quadratic in u: 0 at u = 0 (the reduced formulations' first stage)
        b = self.bias_at(cache, ctx) if np.count_nonzero(ctx.u) else np.zeros(3)
        return RowBlock(A=A, b=b, position=np.array([C[2] - self.radius * s]), velocity=A @ ctx.u,
                        c=np.zeros(3)), cache

    def bias_at(self, cache, ctx):
        """−(d/dt (v_C + ω × ρ)) in (z, x, y), with ρ the geometric contact vector (it slides along the
        rim); the holonomic row uses the same form: Φ_dot = v_Pz because the rim tangent is horizontal."""
        a, p, s, rho = cache
        ks, i = ctx.ks, self.body
        rho_dot = self._contact_rate(ks, a, p, s)
        bias = ks.a_bias[i] + cross(ks.alpha_bias[i], rho) + cross(ks.omega[i], rho_dot)
        return -bias[[2, 0, 1]]

    def actions(self, ks, lam):
        """The ground's force on the disk at the contact point: rows (z, x, y) of A = J_P."""
        i = self.body
        P = ks.com[i] + self._contact(ks)[0]
        return [Action(f"constraint {self.name}", "contact", i, P, np.array([lam[1], lam[2], lam[0]]))]
