"""Independent coordinates and speeds about a state, and a formulation's right-hand side in them.

The state x = (q_i, u_i) holds the independent coordinates (the holonomic rows, and e·e = 1 of
Euler parameters, fix the others: Newton on Φ(q) = 0) and the independent speeds (every linear
velocity-level row — holonomic rows differentiated once and first-order rows — fixes the
others: u_d = −A_d⁻¹ (A_i u_i + c)). This is the reduced state of Kane's and Maggi's equations
(THEORY.md §2–3): the point always lies on the constraint manifold, so a formulation's own
accelerations there are the motion, whatever it integrates. ẋ = (q̇_i, u̇_i) with q̇ = W(q) u.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from eomlab.engine.constraints import HOLONOMIC, VELOCITY
from eomlab.engine.formulations import make_formulation
from eomlab.engine.formulations.rank import numerical_rank
from eomlab.engine.model import Model, ModelError, is_planar
from eomlab.engine.rotations import quaternion_from_matrix
from eomlab.engine.mechanics.system import build_system

NEWTON_STEPS = 40


class Systems:
    """The MechanicalSystems of one linearization, each built once (an equilibrium search makes a chart
    at every Newton iterate; a 50-link chain's system takes 60 ms to build). Owned by the call, so they
    go with it (a large tree's compiled workspace is big) and two calls never share one."""

    def __init__(self):
        self._built: dict[tuple[Model, str], object] = {}

    def __call__(self, model: Model, coordinates: str):
        key = (model, coordinates)
        if key not in self._built:
            self._built[key] = build_system(model, coordinates)
        return self._built[key]


def with_rate_speeds(model: Model, systems: Systems | None = None) -> Model:
    """Euler-angle joints with body-rate speeds get angle-rate speeds (u = q̇), the initial rates
    from the initial body rates: the second-order form M δq̈ + C δq̇ + K δq = 0 needs rates."""
    system = (systems or Systems())(model, "joint")
    if not any(jl.euler is not None and jl.body_rates for jl in system.kin.joints):
        return model
    rates = system.kin.qdot(system.q0, system.u0)
    bodies = []
    for b, jl in zip(model.bodies, system.kin.joints):
        j = b.joint
        if jl.euler is not None and jl.body_rates:
            r = rates[jl.q_slice]
            j = replace(j, speeds="euler", u0=tuple(float(x) for x in r))
        bodies.append(replace(b, joint=j))
    return replace(model, bodies=tuple(bodies))


def greedy_columns(A: np.ndarray, order) -> list[int]:
    """Columns of A taken in `order` while each raises the rank, until the rank of A is reached."""
    r = numerical_rank(A)
    chosen: list[int] = []
    for j in order:
        if len(chosen) == r:
            break
        if numerical_rank(A[:, chosen + [j]], float(np.abs(A).max())) > len(chosen):
            chosen.append(j)
    return chosen


class Chart:
    """A formulation of `model` (method, coordinates) about the state (q, u): its independent
    coordinates `iq` and speeds `iu`, the map x ↦ (q, u) and the right-hand side x ↦ ẋ."""

    def __init__(self, model: Model, method: str, coordinates: str, systems: Systems, q=None, u=None,
                 t: float = 0.0, independent=None):
        settings = replace(model.settings, method=method, coordinates=coordinates,
                           stabilization=replace(model.settings.stabilization, kind="none"))
        model = model.with_settings(method=method, coordinates=coordinates)
        # the chart is always the joint coordinates' (absolute runs are read through them, so a
        # cyclic turn stays one coordinate); the accelerations are the chosen coordinates' own
        self.system = systems(model, "joint")
        self.dynamics_system = self.system if coordinates == "joint" else systems(model, "absolute")
        self.formulation = make_formulation(method, self.dynamics_system, settings, settings.maggi_basis)
        self.formulation.multipliers_wanted = False
        self.planar = is_planar(model)
        self.t = t
        s = self.system
        self.q_star = np.array(s.q0 if q is None else q, float)
        self.u_star = np.array(s.u0 if u is None else u, float)
        self.quaternions = [slice(jl.q_slice.stop - 4, jl.q_slice.stop) for jl in s.kin.quaternion_joints]
        self._choose(independent)
        self.x_star = np.concatenate((self.q_star[self.iq], self.u_star[self.iu]))
        self.q_star = self.coordinates(self.x_star[:len(self.iq)])
        self.u_star = self.speeds(self.q_star, self.x_star[len(self.iq):])
        self.formulation.initial_state(*self._own_state(self.q_star, self.u_star))

    # --- the partition ------------------------------------------------------------------

    def _rows(self, q):
        """The constraint rows at (t, q, u = 0) (None without constraints)."""
        if self.system.constraints is None:
            return None
        dyn = self.system.dynamics(self.t, q, np.zeros(self.system.n_u))
        return self.system.constraints.evaluate(dyn)

    def _position_rows(self, q):
        """(Φ, Φ_q): the holonomic residuals and e·e − 1 of Euler parameters, and their Jacobian."""
        s = self.system
        rows = self._rows(q)
        parts, jac = [], []
        if rows is not None:
            holo = np.flatnonzero(rows.level == HOLONOMIC)
            if holo.size:
                W = s.rate_matrix(q) if s.has_body_rates else np.eye(s.n_q)
                parts.append(rows.position)
                jac.append(rows.A[holo] @ np.linalg.pinv(W))  # Φ_q W = A (Φ ignores |p| of Euler parameters)
        for qs in self.quaternions:
            p = q[qs]
            row = np.zeros(s.n_q)
            row[qs] = 2.0 * p
            parts.append(np.array([p @ p - 1.0]))
            jac.append(row[None, :])
        if not parts:
            return np.zeros(0), np.zeros((0, s.n_q))
        return np.concatenate(parts), np.vstack(jac)

    def _velocity_rows(self, q):
        """(A_v, c_v): the linear velocity-level rows, velocity = A_v u + c_v."""
        rows = self._rows(q)
        n_u = self.system.n_u
        if rows is None:
            return np.zeros((0, n_u)), np.zeros(0)
        lv = rows.level
        for r in rows.velocity_rows:
            if r not in rows.linear_rows and lv[r] in (HOLONOMIC, VELOCITY):
                raise ModelError("constraints", f"row {self.system.constraints.row_label(r)} is not linear in the "
                                 "speeds: linearize needs velocity constraints linear in the speeds")
        sel = np.array([r for r in rows.linear_rows if lv[r] in (HOLONOMIC, VELOCITY)], int)
        return rows.A[sel], rows.c[np.searchsorted(rows.linear_rows, sel)]

    def _choose(self, independent):
        s = self.system
        names_q, names_u = list(s.coordinate_names), list(s.speed_names)
        _, J = self._position_rows(self.q_star)
        wanted = set(independent or ())
        norms = np.linalg.norm(J, axis=0) if J.size else np.zeros(s.n_q)
        order = [k for k in np.argsort(-norms, kind="stable") if names_q[k] not in wanted]
        dq = greedy_columns(J, order) if J.shape[0] else []
        if J.shape[0] and len(dq) < numerical_rank(J):
            raise ModelError("linearize", "the chosen independent coordinates leave the holonomic rows unsolvable")
        self.dq = np.array(sorted(dq), int)
        self.iq = np.setdiff1d(np.arange(s.n_q), self.dq)
        A_v, _ = self._velocity_rows(self.q_star)
        rate_of = {s.kin.speed_of_coordinate(k): k for k in range(s.n_q)}
        dependent_q = set(self.dq.tolist())
        rank = {}
        for j in range(s.n_u):
            k = rate_of.get(j)
            # dependent first: rates of dependent coordinates, then speeds that are no rate, then the rest
            rank[j] = 0 if k in dependent_q else (1 if k is None else 2)
            if names_u[j] in wanted or (k is not None and names_q[k] in wanted):
                rank[j] = 3
        order = sorted(range(s.n_u), key=lambda j: (rank[j], j))
        du = greedy_columns(A_v, order) if A_v.shape[0] else []
        self.du = np.array(sorted(du), int)
        self.iu = np.setdiff1d(np.arange(s.n_u), self.du)
        self.names = [names_q[k] for k in self.iq] + [names_u[j] for j in self.iu]
        self.rate_of_speed = [rate_of.get(j) for j in self.iu]

    # --- x ↦ (q, u) and x ↦ ẋ ----------------------------------------------------------

    @property
    def n_x(self) -> int:
        return len(self.iq) + len(self.iu)

    def coordinates(self, qi) -> np.ndarray:
        """q with q[iq] = qi and the dependent coordinates solving Φ(q) = 0 (Newton)."""
        q = self.q_star.copy()
        q[self.iq] = qi
        if self.dq.size == 0:
            return q
        step_before = np.inf
        for _ in range(NEWTON_STEPS):
            r, J = self._position_rows(q)
            dx = np.linalg.lstsq(J[:, self.dq], -r, rcond=None)[0]
            q[self.dq] += dx
            step = float(np.max(np.abs(dx)))
            if step <= 1e-15 * (1.0 + float(np.max(np.abs(q[self.dq])))) or step >= step_before:
                break
            step_before = step
        r, _ = self._position_rows(q)
        if float(np.max(np.abs(r), initial=0.0)) > 1e-9 * (1.0 + float(np.max(np.abs(q)))):
            raise ArithmeticError("the holonomic constraints cannot be met there (the independent coordinates "
                                  "left the region they describe)")
        return q

    def speeds(self, q, ui) -> np.ndarray:
        """u with u[iu] = ui and the dependent speeds solving the velocity rows."""
        u = np.zeros(self.system.n_u)
        u[self.iu] = ui
        if self.du.size:
            A, c = self._velocity_rows(q)
            u[self.du] = np.linalg.solve(A[:, self.du], -(A[:, self.iu] @ ui + c)) if A.shape[0] == self.du.size \
                else np.linalg.lstsq(A[:, self.du], -(A[:, self.iu] @ ui + c), rcond=None)[0]
        return u

    def speed_map(self, q) -> np.ndarray:
        """C (n_u × independent speeds) with δu = C δu_i at q."""
        C = np.zeros((self.system.n_u, len(self.iu)))
        C[self.iu, np.arange(len(self.iu))] = 1.0
        if self.du.size:
            A, _ = self._velocity_rows(q)
            C[self.du] = -np.linalg.lstsq(A[:, self.du], A[:, self.iu], rcond=None)[0]
        return C

    def coordinate_map(self, q) -> np.ndarray:
        """(n_q × independent coordinates) with δq = Z δq_i at q (tangent of Φ(q) = 0)."""
        Z = np.zeros((self.system.n_q, len(self.iq)))
        Z[self.iq, np.arange(len(self.iq))] = 1.0
        if self.dq.size:
            _, J = self._position_rows(q)
            Z[self.dq] = -np.linalg.lstsq(J[:, self.dq], J[:, self.iq], rcond=None)[0]
        return Z

    def state(self, x):
        """(q, u) on the constraint manifold for x = (q_i, u_i)."""
        q = self.coordinates(x[:len(self.iq)])
        return q, self.speeds(q, x[len(self.iq):])

    def _own_state(self, q, u):
        """The formulation's coordinates and speeds at the joint state (q, u): the same in joint
        coordinates, each body's pose and pose speeds in absolute ones (as engine.mechanics.absolute)."""
        if self.dynamics_system is self.system:
            return q, u
        ks = self.system.kin.evaluate(q, u)
        qa, ua = [], []
        for i in range(len(self.system.body_names)):
            R, o, w = ks.R[i], ks.origin[i], ks.omega[i]
            v = self.system.kin.point_velocity(ks, i, o)
            if self.planar:
                qa += [o[0], o[1], math.atan2(R[1, 0], R[0, 0])]
                ua += [v[0], v[1], w[2]]
            else:
                qa += [*o, *quaternion_from_matrix(R)]
                ua += [*v, *(R.T @ w)]
        return np.array(qa, float), np.array(ua, float)

    def exact_jacobian(self):
        """x ↦ ∂ẋ/∂x exactly (pinocchio's derivatives of ABA) where the chart's state is the formulation's
        own state of a free tree without force elements on the compiled path, else None."""
        f, s = self.formulation, self.system
        if self.dynamics_system is not s or s.constraints is not None or s.forces or not f._free_tree:
            return None
        if len(self.iq) != s.n_q or len(self.iu) != s.n_u:
            return None
        return s.free_state_jacobian()

    def rhs(self, x) -> np.ndarray:
        """ẋ = (q̇_i, u̇_i): the formulation's own accelerations at the state x (in absolute
        coordinates carried to the joint speeds, u̇_j = G u̇_abs + J_j⁺ (β_abs − β_j))."""
        f = self.formulation
        q, u = self.state(x)
        qo, uo = self._own_state(q, u)
        y = f.qu_to_state(qo, f.model_to_own(qo, uo))
        if self.dynamics_system is self.system and self.system.constraints is None and len(y) == self.n_x:
            return f.derivative(self.t, y)
        ev = f.evaluate(self.t, y)
        u_dot = ev.u_dot
        if self.dynamics_system is not self.system:
            view = self.dynamics_system.joint_coordinates
            view.reference = q
            seen = view.state(ev.dynamics, rates=False)
            u_dot = seen.G @ u_dot + seen.bias()
        return np.concatenate((self.system.qdot(q, u)[self.iq], u_dot[self.iu]))
