"""Right-hand side of B planar chains at once: trees of revolute joints about z, in joint coordinates.

For such a tree with no constraint rows every formulation of the engine — Lagrange's equations
with multipliers, Maggi's, Udwadia–Kalaba's, Kane's (and Gibbs–Appell's) — reduces to the same
ODE, the unconstrained tree's equations in joint coordinates (THEORY.md (2.6)):

    M(θ) θ̈ = Σ_i m_i J_iᵀ (g − a_i) − k (θ − θ_rest) − c θ̇,

with J_i the partial velocities of mass centre i and a_i its acceleration at θ̈ = 0. Every array carries
the batch first: states B × n, M B × n × n, solved by one batched ``np.linalg.solve`` (two links: Cramer). Each
member may have its own parameters (masses, lengths, gravity, springs); the tree is shared.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.kinematics import path_matrix
from eomlab.engine.model import JointSpring, Model, is_planar, joint_type


def unsupported_reason(model: Model) -> str | None:
    """Why the batched planar path cannot run `model` (None: it can)."""
    s = model.settings
    if s.coordinates != "joint":
        return f"coordinates {s.coordinates!r} (the batched path runs joint coordinates)"
    if model.constraints:
        return "constraints (the batched path runs unconstrained trees)"
    for i, b in enumerate(model.bodies):
        j = b.joint
        if not joint_type(j.type).single_turn:
            return f"bodies[{i}].joint is {j.type} (the batched path runs revolute joints)"
        if j.armature:
            return f"bodies[{i}].joint.armature (the batched path runs joints without armature)"
    if not is_planar(model):
        return "a joint axis or frame leaves the x-y plane (engine.model.is_planar)"
    for i, f in enumerate(model.forces):
        if not isinstance(f, JointSpring):
            return f"forces[{i}] is a {f.type} (the batched path runs joint springs only)"
    return None


def structure_key(model: Model) -> tuple:
    """Members batch together when their trees are the same: parents, axis signs, springs."""
    return (tuple(b.parent for b in model.bodies), tuple(math.copysign(1.0, b.joint.axis[2]) for b in model.bodies),
            tuple(f.body for f in model.forces))


class _Parameters:
    """One model's numbers, as 1-D arrays over its bodies."""

    def __init__(self, model: Model):
        nb = len(model.bodies)
        index = {b.name: i for i, b in enumerate(model.bodies)}
        self.parent = np.array([index.get(b.parent, -1) for b in model.bodies])
        self.sign = np.array([math.copysign(1.0, b.joint.axis[2]) for b in model.bodies])
        self.beta = np.array([math.atan2(b.joint.rotation[1][0], b.joint.rotation[0][0]) for b in model.bodies])
        self.at = np.array([complex(b.joint.at[0], b.joint.at[1]) for b in model.bodies])
        self.com = np.array([complex(b.com[0], b.com[1]) for b in model.bodies])
        self.mass = np.array([b.mass for b in model.bodies], dtype=float)
        self.izz = np.array([b.inertia[2][2] for b in model.bodies], dtype=float)
        # heights never change in a planar tree; they enter V when gravity has a z part
        height = np.array([b.joint.at[2] for b in model.bodies], dtype=float)
        for i in range(nb):
            if self.parent[i] >= 0:
                height[i] += height[self.parent[i]]
        self.height = height + np.array([b.com[2] for b in model.bodies])
        g = model.gravity
        self.g, self.gz = complex(g[0], g[1]), float(g[2])
        self.k, self.c, self.rest = np.zeros(nb), np.zeros(nb), np.zeros(nb)
        for f in model.forces:
            i = index[f.body]
            self.k[i] += f.stiffness
            self.c[i] += f.damping
            self.rest[i] = f.rest[0] if f.rest else 0.0


class PlanarChains:
    """ẏ = (θ̇, θ̈) and the energy of B members, member m built from ``models[m]``.

    Models may repeat (the same object for many members); their trees must share `structure_key`.
    """

    def __init__(self, models: list[Model]):
        cache: dict[int, _Parameters] = {}
        params = []
        for model in models:  # many members share one model: read its numbers once
            if id(model) not in cache:
                cache[id(model)] = _Parameters(model)
            params.append(cache[id(model)])
        first = params[0]
        self.n = len(first.mass)
        self.parent = first.parent
        self.T = T = path_matrix(self.parent)  # T[k, i] = 1: joint k lies on body i's path to the ground
        self.S = T.T * first.sign  # S[i, k]: body i's angular velocity per unit θ̇_k
        self.sign = first.sign

        def stack(name):
            return np.array([getattr(p, name) for p in params])

        self.beta, at, com = stack("beta"), stack("at"), stack("com")
        self.at_x, self.at_y, self.com_x, self.com_y = at.real, at.imag, com.real, com.imag
        self.mass, self.izz, self.height = stack("mass"), stack("izz"), stack("height")
        g = stack("g")
        self.g_x, self.g_y, self.gz = g.real[:, None], g.imag[:, None], stack("gz")[:, None]
        self.k, self.c, self.rest = stack("k"), stack("c"), stack("rest")
        # the rotational part of M is constant: Σ_i Izz_i S_ik S_il
        self.M_rot = np.einsum("ik,bi,il->bkl", self.S, self.izz, self.S)
        self._members, self._selected = None, {}

    def _parent_values(self, values: np.ndarray, ground: float) -> np.ndarray:
        out = np.full_like(values, ground)
        has = self.parent >= 0
        out[:, has] = values[:, self.parent[has]]
        return out

    def _member_parameters(self, members: np.ndarray) -> dict:
        """The parameters of these members; the integrator passes the same array for every stage
        until a member drops out, so the selection is made once per change, not per call."""
        if members is not self._members:
            self._members = members
            self._selected = {name: getattr(self, name)[members] for name in
                              ("beta", "at_x", "at_y", "com_x", "com_y", "mass", "izz", "height", "g_x", "g_y",
                               "gz", "k", "c", "rest", "M_rot")}
            self._selected["m2"] = np.concatenate((self._selected["mass"],) * 2, axis=1)
        return self._selected

    def _kinematics(self, p: dict, theta: np.ndarray):
        """Joint-origin steps r, mass-centre offsets ρ (x and y parts), mass centres and J (B × 2nb × n)."""
        phi = (p["beta"] + self.sign * theta) @ self.T
        cos, sin = np.cos(phi), np.sin(phi)
        cos_p, sin_p = self._parent_values(cos, 1.0), self._parent_values(sin, 0.0)
        r_x = cos_p * p["at_x"] - sin_p * p["at_y"]  # origin_i − origin_parent, world
        r_y = sin_p * p["at_x"] + cos_p * p["at_y"]
        o_x, o_y = r_x @ self.T, r_y @ self.T
        rho_x = cos * p["com_x"] - sin * p["com_y"]
        rho_y = sin * p["com_x"] + cos * p["com_y"]
        c_x, c_y = o_x + rho_x, o_y + rho_y
        # J[b, i, k] = S[i, k] ẑ × (com_i − origin_k): x rows then y rows
        J = np.concatenate((-(c_y[:, :, None] - o_y[:, None, :]) * self.S,
                            (c_x[:, :, None] - o_x[:, None, :]) * self.S), axis=1)
        return (r_x, r_y), (rho_x, rho_y), (c_x, c_y), J

    def derivative(self, members: np.ndarray, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        n = self.n
        p = self._member_parameters(members)
        theta, omega_rel = y[:, :n], y[:, n:]
        (r_x, r_y), (rho_x, rho_y), _, J = self._kinematics(p, theta)
        omega = (self.sign * omega_rel) @ self.T
        w2_parent = self._parent_values(omega, 0.0) ** 2
        w2 = omega * omega
        # mass-centre acceleration at θ̈ = 0: every rotating step pulls inwards
        a_x = -(w2_parent * r_x) @ self.T - w2 * rho_x
        a_y = -(w2_parent * r_y) @ self.T - w2 * rho_y
        pull = np.concatenate((p["g_x"] - a_x, p["g_y"] - a_y), axis=1) * p["m2"]
        Jt = J.transpose(0, 2, 1)
        M = Jt @ (p["m2"][:, :, None] * J) + p["M_rot"]
        forcing = (Jt @ pull[:, :, None])[:, :, 0]
        forcing -= p["k"] * (theta - p["rest"]) + p["c"] * omega_rel
        return np.concatenate((omega_rel, _solve(M, forcing)), axis=1)

    def energy(self, members: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Kinetic and potential energy (gravity and springs) of each member."""
        n = self.n
        p = self._member_parameters(members)
        theta, omega_rel = y[:, :n], y[:, n:]
        _, _, (c_x, c_y), J = self._kinematics(p, theta)
        v = (J @ omega_rel[:, :, None])[:, :, 0]
        omega = (self.sign * omega_rel) @ self.T
        T = 0.5 * np.sum(p["m2"] * v * v, axis=1) + 0.5 * np.sum(p["izz"] * omega * omega, axis=1)
        V = -np.sum(p["mass"] * (p["g_x"] * c_x + p["g_y"] * c_y + p["gz"] * p["height"]), axis=1)
        V += 0.5 * np.sum(p["k"] * (theta - p["rest"]) ** 2, axis=1)
        return T, V


def _solve(M: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Batched M x = rhs; a member whose M is singular gets NaN (its run then stops), not the batch."""
    if M.shape[1] == 2:  # Cramer's rule: one pass of arithmetic instead of LAPACK per member
        a, b, c, d = M[:, 0, 0], M[:, 0, 1], M[:, 1, 0], M[:, 1, 1]
        det = a * d - b * c
        det = np.where(np.abs(det) > 1e-300 * np.abs(a * d), det, np.nan)
        return np.column_stack(((d * rhs[:, 0] - b * rhs[:, 1]) / det, (a * rhs[:, 1] - c * rhs[:, 0]) / det))
    try:
        return np.linalg.solve(M, rhs[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        out = np.full_like(rhs, np.nan)
        for b in range(len(M)):
            try:
                out[b] = np.linalg.solve(M[b], rhs[b])
            except np.linalg.LinAlgError:
                pass
        return out
