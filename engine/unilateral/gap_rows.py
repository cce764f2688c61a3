"""The unilateral rows: a gap g(q) ≥ 0 per joint limit and per contact, its row in the speeds and its bias.

For every row, at a state of the formulation's own system (joint or absolute coordinates, the
speeds it integrates):

    g(q) ≥ 0,   ġ = G u,   g̈ = G u̇ + γ

- a joint limit on coordinate q_c whose rate is the speed u_s: g = q_c − lower (G = e_s) or
  upper − q_c (G = −e_s), γ = 0. In absolute coordinates q_c and u_s are the joint coordinate and
  speed read from the poses (engine.mechanics.joint_coordinates: u_j = G_j u_abs, u̇_j = G_j u̇_abs + β_j), so
  G = ±G_j[s] and γ = ±β_j[s].
- a sphere (centre P_a, radius r_a) on the ground plane through the origin with normal n = −ĝ:
  g = n·P_a − r_a, G = n·J_Pa, γ = n·(bias acceleration of P_a).
- two spheres: d = P_b − P_a, n = d/|d|, g = |d| − r_a − r_b, G = n·(J_Pb − J_Pa),
  γ = n·(β_b − β_a) + (|ḋ|² − (n·ḋ)²)/|d|.

The normal n of each row is also its impulse direction: a contact impulse Λ ≥ 0 acts as the
generalized impulse Gᵀ Λ (it pushes the spheres apart, or the coordinate back into its range).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from eomlab.engine.constraints.rows import body_index, world_point
from eomlab.engine.model import Model, ModelError


@dataclass(frozen=True)
class Row:
    """One unilateral row: what it is, for messages and the window."""

    name: str  # "bob_theta lower limit", or the contact's name
    kind: str  # "limit" or "contact"
    restitution: float


@dataclass
class RowValues:
    """Gaps, rows and biases of the unilateral rows at one state."""

    g: np.ndarray  # (k,)
    G: np.ndarray  # (k, n_u)
    gamma: np.ndarray | None  # (k,) or None when not asked for
    normal_speed: np.ndarray  # G u


class _Limit:
    def __init__(self, coordinate: int, speed: int, bound: float, sign: float):
        self.coordinate, self.speed, self.bound, self.sign = coordinate, speed, bound, sign


class _Contact:
    def __init__(self, kin, contact, normal):
        self.a, self.pa, self.ra = body_index(kin, contact.a.body), np.array(contact.a.point, float), contact.a.radius
        self.ground = contact.b is None
        if not self.ground:
            self.b, self.pb, self.rb = body_index(kin, contact.b.body), np.array(contact.b.point, float), contact.b.radius
        self.normal = normal


class UnilateralRows:
    """The model's joint limits and contacts as rows of `system` (a formulation's system)."""

    def __init__(self, model: Model, system):
        self.system = system
        self.rows: list[Row] = []
        self._limits: list[_Limit] = []
        self._contacts: list[_Contact] = []
        joint_kin = system.joint_coordinates.kin if system.joint_coordinates is not None else system.kin
        for jl in joint_kin.joints:
            body = model.bodies[jl.body]
            limits = body.joint.limits
            if not limits:
                continue
            n = jl.u_slice.stop - jl.u_slice.start
            if jl.turns_with_body_rates or jl.q_slice.stop - jl.q_slice.start != n:
                raise ModelError(f"bodies[{jl.body}].joint.limits", f"limits apply to joints whose speeds are "
                                 f"their coordinates' rates (revolute, prismatic, …), not to this {body.joint.type} joint")
            names = joint_kin.coordinate_names[jl.q_slice]
            for k in range(n):
                low, high = limits[2 * k], limits[2 * k + 1]
                c, s = jl.q_slice.start + k, jl.u_slice.start + k
                for bound, sign, word in ((low, 1.0, "lower"), (high, -1.0, "upper")):
                    if math.isfinite(bound):
                        self._limits.append(_Limit(c, s, bound, sign))
                        self.rows.append(Row(f"{names[k]} {word} limit", "limit", body.joint.restitution))
        gravity = np.array(model.gravity, float)
        norm = float(np.linalg.norm(gravity))
        normal = -gravity / norm if norm > 0 else np.array([0.0, 1.0, 0.0])
        for c in model.contacts:
            self._contacts.append(_Contact(system.kin, c, normal))
            self.rows.append(Row(c.name, "contact", c.restitution))
        self.k = len(self.rows)
        self.restitution = np.array([r.restitution for r in self.rows])

    def __len__(self) -> int:
        return self.k

    def evaluate(self, ctx, bias: bool = True) -> RowValues:
        """At the state `ctx` (a Dynamics or StateContext of the system: t, q, u, ks)."""
        n_u = ctx.u.shape[0]
        g, G, gamma = np.empty(self.k), np.zeros((self.k, n_u)), np.zeros(self.k) if bias else None
        i = 0
        if self._limits:
            joint = self.system.joint_coordinates
            seen = joint.state(ctx, rates=False) if joint is not None else None
            q = seen.context.q if seen is not None else ctx.q
            beta = seen.bias() if seen is not None and bias else None
            for lim in self._limits:
                g[i] = lim.sign * (q[lim.coordinate] - lim.bound)
                if seen is None:
                    G[i, lim.speed] = lim.sign
                else:
                    G[i] = lim.sign * seen.G[lim.speed]
                    if bias:
                        gamma[i] = lim.sign * beta[lim.speed]
                i += 1
        if self._contacts:
            kin, ks = self.system.kin, ctx.ks
            for con in self._contacts:
                Pa = world_point(kin, ks, con.a, con.pa)
                Ja = kin.point_jacobian(ks, con.a, Pa)
                if con.ground:
                    n = con.normal
                    g[i] = n @ Pa - con.ra
                    G[i] = n @ Ja
                    if bias:
                        gamma[i] = n @ kin.point_bias(ks, con.a, Pa)
                else:
                    Pb = world_point(kin, ks, con.b, con.pb)
                    d = Pb - Pa
                    dist = float(np.linalg.norm(d))
                    n = d / dist if dist > 0 else con.normal
                    J = kin.point_jacobian(ks, con.b, Pb) - Ja
                    g[i] = dist - con.ra - con.rb
                    G[i] = n @ J
                    if bias:
                        d_dot = J @ ctx.u
                        along = n @ d_dot
                        bias_rel = kin.point_bias(ks, con.b, Pb) - kin.point_bias(ks, con.a, Pa)
                        gamma[i] = n @ bias_rel + (d_dot @ d_dot - along * along) / max(dist, 1e-300)
                i += 1
        return RowValues(g=g, G=G, gamma=gamma, normal_speed=G @ ctx.u)

    def contact_points(self, ks) -> list[tuple[np.ndarray, np.ndarray]]:
        """(world point, normal) of each contact at the kinematic state ks (the window's arrows)."""
        out = []
        kin = self.system.kin
        for con in self._contacts:
            Pa = world_point(kin, ks, con.a, con.pa)
            if con.ground:
                out.append((Pa - con.ra * con.normal, con.normal))
            else:
                Pb = world_point(kin, ks, con.b, con.pb)
                d = Pb - Pa
                n = d / max(float(np.linalg.norm(d)), 1e-300)
                out.append((Pa + con.ra * n, n))
        return out
