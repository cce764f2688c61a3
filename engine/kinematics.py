"""Numeric tree kinematics in joint coordinates (Roberson–Wittenburg, seed 004).

Bodies hang from ground through one joint each. Everything that depends only on the tree's
topology — the path matrix T (T[i, j] = 1 when hinge i lies on the path from ground to body j) —
is built once; per state the only sequential work is the chain of rotation products, everything
else is a stacked numpy operation over all bodies or all speeds.

For body j with mass centre c_j (world):
    v_c = J_v u,        a_c = J_v u_dot + a_bias       (seed 004 (45)–(46): r_dot = α q_dot + s)
    ω   = J_w u,        ω_dot = J_w u_dot + α_bias
The columns of J_v and J_w are the partial velocities and partial angular velocities of Kane's
method (seed 003).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import math

import numpy as np

from .model import GROUND, Model
from .rotations import (
    EulerSequence, axis_angle_matrix, cross, gimbal_margin, quaternion_body_rates, quaternion_matrix,
    quaternion_rate_matrix, skew as skew_matrix,
)


@dataclass
class JointLayout:
    """Where one joint's coordinates and speeds sit in q and u."""

    body: int
    type: str
    q_slice: slice
    u_slice: slice
    axis: np.ndarray
    at: np.ndarray
    rotation: np.ndarray  # fixed joint-frame rotation in the parent frame
    fixed_rotation_is_identity: bool
    euler: EulerSequence | None  # Euler-angle joints only
    body_rates: bool  # spherical/free rotation speeds are body-axis ω components
    quaternion: bool = False  # spherical/free joint in Euler parameters (4 coordinates, 3 speeds)

    @property
    def turns_with_body_rates(self) -> bool:
        """Its last three speeds are body rates, related to the coordinate rates by q_dot = W u."""
        return self.quaternion or (self.euler is not None and self.body_rates)


@dataclass
class KinematicState:
    """Poses, velocities, Jacobians and bias accelerations of every body at one (q, u)."""

    R: np.ndarray  # (nb, 3, 3) body-to-world rotation
    origin: np.ndarray  # (nb, 3) hinge (body-frame origin)
    com: np.ndarray  # (nb, 3) mass centre
    omega: np.ndarray  # (nb, 3)
    v_com: np.ndarray  # (nb, 3)
    J_w: np.ndarray  # (nb, 3, nu) partial angular velocities
    J_v: np.ndarray  # (nb, 3, nu) partial velocities of the mass centres
    alpha_bias: np.ndarray  # (nb, 3) angular acceleration at u_dot = 0
    a_bias: np.ndarray  # (nb, 3) mass-centre acceleration at u_dot = 0
    axis_w: np.ndarray  # (nu, 3) world angular axis of each speed
    axis_v: np.ndarray  # (nu, 3) world sliding axis of each speed
    speed_origin: np.ndarray  # (nu, 3) origin of the body the speed's joint moves
    stage: tuple = field(default=(), repr=False)  # positions-stage intermediates for with_velocities


class GimbalLock(ArithmeticError):
    """Euler-angle rates are undefined: the rate matrix is singular."""

    def __init__(self, coordinate: str, value: float, body_rates: bool = False):
        self.coordinate = coordinate
        self.value = value
        cure = "" if body_rates else "body-rate speeds (\"speeds\": \"body\"), "
        super().__init__(
            f"Euler-angle gimbal lock: {coordinate} = {value:.6g} makes the angle rates undefined; "
            f"use {cure}another sequence or Euler parameters (\"orientation\": \"quaternion\")"
        )


class TreeKinematics:
    """Tree kinematics of a Model's bodies in joint coordinates."""

    def __init__(self, model: Model):
        self.body_names = [b.name for b in model.bodies]
        index = {name: i for i, name in enumerate(self.body_names)}
        self.parent = np.array([-1 if b.parent == GROUND else index[b.parent] for b in model.bodies], dtype=int)
        if any(p >= i for i, p in enumerate(self.parent)):
            raise ValueError("bodies must be ordered parents before children")
        self.n_bodies = nb = len(model.bodies)
        self.mass = np.array([b.mass for b in model.bodies], dtype=float)
        self.com_body = np.array([b.com for b in model.bodies], dtype=float).reshape(nb, 3)
        self.inertia_body = np.array([b.inertia for b in model.bodies], dtype=float).reshape(nb, 3, 3)

        self.joints: list[JointLayout] = []
        self.coordinate_names: list[str] = []
        qi = ui = 0
        for i, b in enumerate(model.bodies):
            j = b.joint
            k, kq = j.dof, j.n_coordinates
            rot = np.array(j.rotation, dtype=float)
            self.joints.append(
                JointLayout(
                    body=i,
                    type=j.type,
                    q_slice=slice(qi, qi + kq),
                    u_slice=slice(ui, ui + k),
                    axis=np.array(j.axis, dtype=float),
                    at=np.array(j.at, dtype=float),
                    rotation=rot,
                    fixed_rotation_is_identity=bool(np.allclose(rot, np.eye(3), atol=0.0, rtol=0.0)),
                    euler=EulerSequence(j.sequence) if j.type in ("spherical", "free") and not j.quaternion else None,
                    body_rates=j.speeds == "body" or j.quaternion,
                    quaternion=j.quaternion,
                )
            )
            self.coordinate_names.extend(j.names)
            qi += kq
            ui += k
        self.n_q, self.n_u = qi, ui
        self.quaternion_joints = [jl for jl in self.joints if jl.quaternion]
        # coordinates whose rate is a speed (all but the rotation of body-rate joints)
        plain = [(jl.q_slice.start + k, jl.u_slice.start + k) for jl in self.joints
                 for k in range(jl.u_slice.stop - jl.u_slice.start - (3 if jl.turns_with_body_rates else 0))]
        self._plain_q = np.array([a for a, _ in plain], dtype=int)
        self._plain_u = np.array([b for _, b in plain], dtype=int)

        # path matrix T and the body each speed belongs to
        T = np.zeros((nb, nb))
        for j in range(nb):
            i = j
            while i >= 0:
                T[i, j] = 1.0
                i = self.parent[i]
        self.path_matrix = T
        self.speed_body = np.array([jl.body for jl in self.joints for _ in range(jl.u_slice.stop - jl.u_slice.start)], dtype=int)
        # moved[j, s]: speed s moves body j (its joint lies on j's path)
        self.moved = T[self.speed_body, :].T if self.n_u else np.zeros((nb, 0))
        self._at = np.array([jl.at for jl in self.joints], dtype=float).reshape(nb, 3)
        self._planar = self._planar_layout() if nb else None
        if self._planar is not None:
            beta, theta_map, dx_map, dy_map, rot_sign, slide = self._planar
            self._moved_turning = self.moved * rot_sign
            self._planar_maps = np.vstack((theta_map, dx_map, dy_map))
            self._at_complex = self._at[:, 0] + 1j * self._at[:, 1]
            self._com_complex = self.com_body[:, 0] + 1j * self.com_body[:, 1]
            self._slide_complex = slide[:, 0] + 1j * slide[:, 1]
            self._path_complex_t = np.ascontiguousarray(T.T, dtype=complex)  # no conversion per call
        self._origin_z = T.T @ self._at[:, 2]  # planar trees: heights never change
        # incidence[b, s] = 1 when speed s belongs to body b's joint
        self._speed_incidence = np.zeros((nb, self.n_u))
        self._speed_incidence[self.speed_body, np.arange(self.n_u)] = 1.0

    # --- per joint -------------------------------------------------------------------------

    def _joint_motion(self, jl: JointLayout, q: np.ndarray, u: np.ndarray):
        """Relative rotation, translation, speed columns (joint frame) and bias terms of a joint.

        Returns R_rel, d, Hw (3, k), Hv (3, k), bias_w (3,), where omega_rel = Hw u_j and
        d_dot = Hv u_j in joint-frame components, and bias_w = (dHw/dt) u_j.
        """
        t = jl.type
        zero3 = np.zeros(3)
        if t == "revolute":
            return axis_angle_matrix(jl.axis, q[0]), zero3, jl.axis[:, None], np.zeros((3, 1)), zero3
        if t == "prismatic":
            return np.eye(3), jl.axis * q[0], np.zeros((3, 1)), jl.axis[:, None], zero3
        if t == "planar":
            c, s = np.cos(q[2]), np.sin(q[2])
            R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            Hv = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
            Hw = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
            return R, np.array([q[0], q[1], 0.0]), Hw, Hv, zero3
        if t in ("spherical", "free"):
            rates_or_w = u[-3:]
            if jl.quaternion:
                R = quaternion_matrix(q[-4:])
            else:
                ra, rb, rc = jl.euler.parts(q[-3:])
                R = ra @ rb @ rc
            if jl.body_rates:
                Hw_rot, bias = R, zero3  # d/dt(R w_body) = R w_body_dot: no bias
            else:
                Hw_rot = jl.euler.rate_matrix_parent(ra, rb)
                bias = jl.euler.rate_bias_parent(ra, rb, rates_or_w)
            if t == "spherical":
                return R, zero3, Hw_rot, np.zeros((3, 3)), bias
            Hw = np.hstack((np.zeros((3, 3)), Hw_rot))
            Hv = np.hstack((np.eye(3), np.zeros((3, 3))))
            return R, q[:3].copy(), Hw, Hv, bias
        return np.eye(3), zero3, np.zeros((3, 0)), np.zeros((3, 0)), zero3  # fixed

    # --- poses ------------------------------------------------------------------------------

    def poses(self, q: np.ndarray):
        """World rotation (nb, 3, 3) and hinge origin (nb, 3) of every body."""
        q = np.asarray(q, dtype=float)
        if self._planar is not None:
            ks = self._positions_planar(q)
            return ks.R, ks.origin
        nb = self.n_bodies
        R = np.empty((nb, 3, 3))
        origin = np.empty((nb, 3))
        for jl in self.joints:
            i, p = jl.body, self.parent[jl.body]
            R_rel, d = self._joint_pose(jl, q[jl.q_slice])
            Rp = R[p] if p >= 0 else np.eye(3)
            op = origin[p] if p >= 0 else np.zeros(3)
            RJ = Rp if jl.fixed_rotation_is_identity else Rp @ jl.rotation
            R[i] = RJ @ R_rel
            origin[i] = op + Rp @ jl.at + RJ @ d
        return R, origin

    def _joint_pose(self, jl: JointLayout, qj: np.ndarray):
        t = jl.type
        if t == "revolute":
            return axis_angle_matrix(jl.axis, qj[0]), np.zeros(3)
        if t == "prismatic":
            return np.eye(3), jl.axis * qj[0]
        if t == "planar":
            c, s = np.cos(qj[2]), np.sin(qj[2])
            return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]), np.array([qj[0], qj[1], 0.0])
        if t in ("spherical", "free"):
            R = quaternion_matrix(qj[-4:]) if jl.quaternion else jl.euler.matrix(qj[-3:])
            return R, (qj[:3].copy() if t == "free" else np.zeros(3))
        return np.eye(3), np.zeros(3)

    def com_positions(self, q: np.ndarray) -> np.ndarray:
        if self._planar is not None:
            return self._positions_planar(np.asarray(q, dtype=float)).com
        R, origin = self.poses(q)
        return origin + np.einsum("bij,bj->bi", R, self.com_body)

    # --- kinematic equations q_dot = W(q) u -------------------------------------------------

    def _body_rate_blocks(self, q: np.ndarray):
        """(joint, its rotation coordinates' slice, its body rates' slice, matrix) for each joint
        whose speeds are body rates: E_b with ω_body = E_b · (Euler-angle rates), or for Euler
        parameters the (4, 3) matrix of ṗ = ½ p ⊗ ω_body."""
        for jl in self.joints:
            if not jl.turns_with_body_rates:
                continue
            qs, us = jl.q_slice, jl.u_slice
            if jl.quaternion:
                qb = slice(qs.stop - 4, qs.stop)
                yield jl, qb, slice(us.stop - 3, us.stop), quaternion_rate_matrix(q[qb])
            else:
                _, rb, rc = jl.euler.parts(q[qs][-3:])
                yield jl, slice(qs.stop - 3, qs.stop), slice(us.stop - 3, us.stop), jl.euler.rate_matrix_body(rb, rc)

    def qdot(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Coordinate rates from speeds; body-rate speeds go through the Euler rate matrix or the
        Euler parameters' kinematic equations."""
        qd = np.empty(self.n_q)
        qd[self._plain_q] = u[self._plain_u]
        for jl, qb, ub, E in self._body_rate_blocks(q):
            if jl.quaternion:
                qd[qb] = E @ u[ub]
            else:
                self._check_gimbal(jl, q[jl.q_slice][-2])
                qd[qb] = np.linalg.solve(E, u[ub])
        return qd

    def speeds_from_rates(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Inverse of qdot: speeds u from coordinate rates."""
        u = np.empty(self.n_u)
        u[self._plain_u] = qd[self._plain_q]
        for jl, qb, ub, E in self._body_rate_blocks(q):
            u[ub] = quaternion_body_rates(q[qb], qd[qb]) if jl.quaternion else E @ qd[qb]
        return u

    def rate_matrix(self, q: np.ndarray) -> np.ndarray:
        """W(q) (n_q, n_u) with q_dot = W u (identity for rate speeds)."""
        W = np.zeros((self.n_q, self.n_u))
        W[self._plain_q, self._plain_u] = 1.0
        for jl, qb, ub, E in self._body_rate_blocks(q):
            if not jl.quaternion:
                self._check_gimbal(jl, q[jl.q_slice][-2])  # a named GimbalLock, not a singular E
            W[qb, ub] = E if jl.quaternion else np.linalg.inv(E)
        return W

    def quaternion_rates_bias(self, qd: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Ẇ u (n_q) on the Euler-parameter rows: q̈ = W u̇ + Ẇ u, and W is linear in p there,
        so Ẇ u = ½ Q(ṗ) ω. Zero on every other row (Euler-angle body-rate blocks excluded)."""
        bias = np.zeros(self.n_q)
        for jl in self.quaternion_joints:
            qs, us = jl.q_slice, jl.u_slice
            qb = slice(qs.stop - 4, qs.stop)
            bias[qb] = quaternion_rate_matrix(qd[qb]) @ u[us.stop - 3 : us.stop]
        return bias

    def euler_body_rate_coordinates(self) -> list[int]:
        """Indices of the Euler angles whose joint has body-rate speeds (q_dot = E⁻¹ ω)."""
        return [k for jl in self.joints if jl.euler is not None and jl.body_rates
                for k in range(jl.q_slice.stop - 3, jl.q_slice.stop)]

    def speed_of_coordinate(self, k: int) -> int | None:
        """The speed that is coordinate k's rate, or None (rotation coordinates of body-rate joints)."""
        hit = np.flatnonzero(self._plain_q == k)
        return int(self._plain_u[hit[0]]) if hit.size else None

    # --- Euler parameters: the normalisation constraint e·e = 1 ------------------------------

    def normalisation_residuals(self, q: np.ndarray) -> np.ndarray:
        """e·e − 1 of every Euler-parameter joint (the flow keeps it; integration error does not)."""
        return np.array([float(q[jl.q_slice][-4:] @ q[jl.q_slice][-4:]) - 1.0 for jl in self.quaternion_joints])

    def normalised(self, q: np.ndarray) -> np.ndarray:
        """q with every Euler-parameter joint scaled to |p| = 1 (the nearest point, and the same pose)."""
        q = np.array(q, dtype=float)
        for jl in self.quaternion_joints:
            qs = jl.q_slice
            p = q[qs.stop - 4 : qs.stop]
            n = math.sqrt(float(p @ p))
            if not n > 1e-12:
                raise ArithmeticError(f"the Euler parameters of '{self.body_names[jl.body]}' are all zero")
            q[qs.stop - 4 : qs.stop] = p / n
        return q

    def _check_gimbal(self, jl: JointLayout, theta: float, tol: float = 1e-9):
        if gimbal_margin(jl.euler.sequence, theta) < tol:
            name = self.coordinate_names[jl.q_slice.stop - 2]
            raise GimbalLock(name, theta, jl.body_rates)

    def gimbal_values(self, q: np.ndarray) -> np.ndarray:
        """sin θ (symmetric sequences) or cos θ (others) of every Euler-angle joint: 0 at the lock."""
        vals = []
        for jl in self.joints:
            if jl.euler is not None:
                th = q[jl.q_slice][-2]
                vals.append(math.sin(th) if jl.euler.sequence[0] == jl.euler.sequence[2] else math.cos(th))
        return np.array(vals)

    def gimbal_crossing(self, q_before: np.ndarray, q_after: np.ndarray, tol: float):
        """Raise GimbalLock when a step reached or crossed an Euler-angle singularity."""
        before, after = self.gimbal_values(q_before), self.gimbal_values(q_after)
        k = 0
        for jl in self.joints:
            if jl.euler is None:
                continue
            if abs(after[k]) < tol or before[k] * after[k] < 0:
                raise GimbalLock(self.coordinate_names[jl.q_slice.stop - 2], float(q_after[jl.q_slice][-2]),
                                 jl.body_rates)
            k += 1

    def gimbal_checks(self, q: np.ndarray, tol: float = 1e-9):
        """Raise GimbalLock when an Euler-angle joint sits (within tol) at its singular angle."""
        for jl in self.joints:
            if jl.euler is not None:
                self._check_gimbal(jl, q[jl.q_slice][-2], tol)

    # --- the full state ----------------------------------------------------------------------

    def _constant_columns(self):
        """Speed columns (joint frame) that do not depend on q: sliding always, turning for
        revolute and planar joints."""
        nu = self.n_u
        Hw = np.zeros((nu, 3))
        Hv = np.zeros((nu, 3))
        zero_u = np.zeros(nu)
        for jl in self.joints:
            k = jl.u_slice.stop - jl.u_slice.start
            if k == 0:
                continue
            q_neutral = np.zeros(jl.q_slice.stop - jl.q_slice.start)
            if jl.quaternion:
                q_neutral[-4] = 1.0
            _, _, hw, hv, _ = self._joint_motion(jl, q_neutral, zero_u[jl.u_slice])
            Hv[jl.u_slice] = hv.T
            if jl.type in ("revolute", "prismatic", "planar"):
                Hw[jl.u_slice] = hw.T
        return Hw, Hv

    # --- the full state, in two stages: positions (q) then velocities (u) --------------------

    def evaluate(self, q: np.ndarray, u: np.ndarray) -> KinematicState:
        return self.with_velocities(self.positions(q), u)

    def positions(self, q: np.ndarray) -> KinematicState:
        """Poses and partial velocities at q; the velocity fields are those of u = 0."""
        q = np.asarray(q, dtype=float)
        if self._planar is not None:
            return self._positions_planar(q)
        return self._positions_spatial(q)

    def with_velocities(self, ks: KinematicState, u: np.ndarray) -> KinematicState:
        """The state at (q, u) from the positions stage at q (which it does not change)."""
        u = np.asarray(u, dtype=float)
        if self._planar is not None:
            return self._velocities_planar(ks, u)
        return self._velocities_spatial(ks, u)

    def _positions_spatial(self, q: np.ndarray) -> KinematicState:
        nb = self.n_bodies
        if not hasattr(self, "_Hw_const"):
            self._Hw_const, self._Hv_const = self._constant_columns()
            self._revolute_K = {
                jl.body: (skew_matrix(jl.axis), skew_matrix(jl.axis) @ skew_matrix(jl.axis))
                for jl in self.joints if jl.type == "revolute"
            }
        R = np.empty((nb, 3, 3))
        RJ = np.empty((nb, 3, 3))
        Rp_all = np.empty((nb, 3, 3))
        d_local = np.zeros((nb, 3))
        Hw_cols = self._Hw_const.copy()
        Hv_cols = self._Hv_const
        euler_parts = {}  # body -> (joint, R_a, R_b) for Euler-rate joints, whose bias needs u
        eye = _EYE3
        # the one sequential part: the chain of rotations
        for jl in self.joints:
            i, p = jl.body, self.parent[jl.body]
            Rp = R[p] if p >= 0 else eye
            Rp_all[i] = Rp
            RJi = Rp if jl.fixed_rotation_is_identity else Rp @ jl.rotation
            RJ[i] = RJi
            t = jl.type
            if t == "revolute":
                K, K2 = self._revolute_K[i]
                th = q[jl.q_slice.start]
                R[i] = RJi @ (eye + math.sin(th) * K + (1.0 - math.cos(th)) * K2)
            elif t == "fixed":
                R[i] = RJi
            elif t == "prismatic":
                R[i] = RJi
                d_local[i] = jl.axis * q[jl.q_slice.start]
            elif t == "planar":
                R_rel, d = self._joint_pose(jl, q[jl.q_slice])
                R[i] = RJi @ R_rel
                d_local[i] = d
            else:  # spherical, free
                qj = q[jl.q_slice]
                if jl.quaternion:
                    R_rel = quaternion_matrix(qj[-4:])
                else:
                    ra, rb, rc = jl.euler.parts(qj[-3:])
                    R_rel = ra @ rb @ rc
                R[i] = RJi @ R_rel
                if t == "free":
                    d_local[i] = qj[:3]
                s = jl.u_slice
                if jl.body_rates:
                    Hw_cols[s.stop - 3 : s.stop] = R_rel.T  # ω_rel = R_rel ω_body
                else:
                    Hw_cols[s.stop - 3 : s.stop] = jl.euler.rate_matrix_parent(ra, rb).T
                    euler_parts[i] = (jl, ra, rb)
        r_rel = (Rp_all @ self._at[:, :, None])[:, :, 0] + (RJ @ d_local[:, :, None])[:, :, 0]
        origin = self.path_matrix.T @ r_rel
        rho = (R @ self.com_body[:, :, None])[:, :, 0]
        com = origin + rho
        axes = RJ[self.speed_body] @ np.stack((Hw_cols, Hv_cols), axis=2)  # (nu, 3, 2)
        axis_w, axis_v = axes[:, :, 0], axes[:, :, 1]
        J_w, J_v, speed_origin = self._jacobians(axis_w, axis_v, origin, com)
        zeros = np.zeros((nb, 3))
        ks = KinematicState(R=R, origin=origin, com=com, omega=zeros, v_com=zeros, J_w=J_w, J_v=J_v,
                            alpha_bias=zeros, a_bias=zeros, axis_w=axis_w, axis_v=axis_v,
                            speed_origin=speed_origin)
        ks.stage = (RJ, Hw_cols, Hv_cols, r_rel, rho, euler_parts)
        return ks

    def _jacobians(self, axis_w, axis_v, origin, com):
        """Partial (angular) velocities: column s moves body j when its joint lies on j's path."""
        nb, nu = self.n_bodies, self.n_u
        speed_origin = origin[self.speed_body]
        lever = com[:, None, :] - speed_origin[None, :, :]  # (nb, nu, 3)
        moved = self.moved[:, :, None]
        J_w = (np.broadcast_to(axis_w[None], (nb, nu, 3)) * moved).transpose(0, 2, 1)
        J_v = ((axis_v[None] + cross(axis_w[None], lever)) * moved).transpose(0, 2, 1)
        return np.ascontiguousarray(J_w), np.ascontiguousarray(J_v), speed_origin

    def _velocities_spatial(self, ks: KinematicState, u: np.ndarray) -> KinematicState:
        RJ, Hw_cols, Hv_cols, r_rel, rho, euler_parts = ks.stage
        nb = self.n_bodies
        T_t = self.path_matrix.T
        bias_w_J = np.zeros((nb, 3))
        for i, (jl, ra, rb) in euler_parts.items():
            s = jl.u_slice
            bias_w_J[i] = jl.euler.rate_bias_parent(ra, rb, u[s.stop - 3 : s.stop])
        # joint-frame relative rates per body: Σ over its speeds of column · u
        w_rel_J = self._sum_per_body(Hw_cols * u[:, None])
        dd_J = self._sum_per_body(Hv_cols * u[:, None])
        rotated = RJ @ np.stack((w_rel_J, dd_J, bias_w_J), axis=2)  # (nb, 3, 3)
        w_rel, dd, bias_w = rotated[:, :, 0], rotated[:, :, 1], rotated[:, :, 2]
        omega = T_t @ w_rel
        omega_parent = _parent_rows(omega, self.parent)
        # velocity-product terms of each hinge, summed along the path (seed 004 (52)–(54))
        wp_x = cross(omega_parent[:, None, :], np.stack((w_rel, r_rel, dd), axis=1))  # (nb, 3, 3)
        summed = T_t @ np.hstack((wp_x[:, 0] + bias_w, wp_x[:, 1] + dd))
        alpha_bias, v_origin = summed[:, :3], summed[:, 3:]
        alpha_parent = _parent_rows(alpha_bias, self.parent)
        pair = cross(np.stack((alpha_parent, omega_parent)), np.stack((r_rel, wp_x[:, 1])))
        a_origin = T_t @ (pair[0] + pair[1] + 2.0 * wp_x[:, 2])
        w_a_x_rho = cross(np.stack((omega, alpha_bias)), rho)
        v_com = v_origin + w_a_x_rho[0]
        a_bias = a_origin + w_a_x_rho[1] + cross(omega, w_a_x_rho[0])
        return _with_fields(ks, omega=omega, v_com=v_com, alpha_bias=alpha_bias, a_bias=a_bias)

    # --- planar trees: everything vectorised, angles add along paths --------------------------

    def _planar_layout(self):
        """Linear maps of a planar tree (every joint turns about z and slides in x–y), or None."""
        nb, nq = self.n_bodies, self.n_q
        beta = np.zeros(nb)  # joint-frame angle in the parent frame
        theta_map = np.zeros((nb, nq))  # relative angle = theta_map @ q (and its rate @ u)
        dx_map, dy_map = np.zeros((nb, nq)), np.zeros((nb, nq))  # joint-frame translation
        rot_sign = np.zeros(self.n_u)  # ±1 for turning speeds
        slide = np.zeros((self.n_u, 2))  # joint-frame sliding direction of sliding speeds
        z = np.array([0.0, 0.0, 1.0])
        for jl in self.joints:
            F = jl.rotation
            if not (np.allclose(F[2], z, atol=1e-12) and np.allclose(F[:, 2], z, atol=1e-12)):
                return None
            i, k = jl.body, jl.q_slice.start
            beta[i] = math.atan2(F[1, 0], F[0, 0])
            if jl.type == "revolute":
                if not np.allclose(abs(jl.axis[2]), 1.0, atol=1e-12):
                    return None
                theta_map[i, k] = rot_sign[k] = math.copysign(1.0, jl.axis[2])
            elif jl.type == "prismatic":
                if abs(jl.axis[2]) > 1e-12:
                    return None
                dx_map[i, k], dy_map[i, k] = jl.axis[0], jl.axis[1]
                slide[k] = jl.axis[:2]
            elif jl.type == "planar":
                dx_map[i, k] = dy_map[i, k + 1] = 1.0
                theta_map[i, k + 2] = rot_sign[k + 2] = 1.0
                slide[k], slide[k + 1] = (1.0, 0.0), (0.0, 1.0)
            elif jl.type != "fixed":
                return None
        return beta, theta_map, dx_map, dy_map, rot_sign, slide

    def _positions_planar(self, q: np.ndarray) -> KinematicState:
        """Planar tree at q, in complex numbers: x + i y, and a turn by φ is a product with e^{iφ}."""
        beta, theta_map, dx_map, dy_map, rot_sign, slide = self._planar
        nb, nu = self.n_bodies, self.n_u
        T_t = self.path_matrix.T
        maps = self._planar_maps @ q  # relative angle and joint-frame translation, stacked
        theta_rel, d = maps[:nb], maps[nb : 2 * nb] + 1j * maps[2 * nb :]
        phi = T_t @ (beta + theta_rel)  # absolute body angles
        e = np.exp(1j * phi)
        e_J = e * np.exp(-1j * theta_rel)  # the joint frames
        e_p = _parent_values_complex(e, self.parent)
        r = e_p * self._at_complex + e_J * d  # origin_i − origin_parent
        origin_c = self._path_complex_t @ r
        com_c = origin_c + e * self._com_complex
        origin = np.empty((nb, 3))
        origin[:, 0], origin[:, 1], origin[:, 2] = origin_c.real, origin_c.imag, self._origin_z
        com = np.empty((nb, 3))
        com[:, 0], com[:, 1], com[:, 2] = com_c.real, com_c.imag, self._origin_z + self.com_body[:, 2]
        R = np.zeros((nb, 3, 3))
        R[:, 0, 0] = R[:, 1, 1] = e.real
        R[:, 1, 0] = e.imag
        R[:, 0, 1] = -e.imag
        R[:, 2, 2] = 1.0
        # partial velocities (columns of J): turning speeds i σ (c_j − o_s), sliding speeds their axis
        sb = self.speed_body
        slide_c = e_J[sb] * self._slide_complex
        axis_v = np.zeros((nu, 3))
        axis_v[:, 0], axis_v[:, 1] = slide_c.real, slide_c.imag
        axis_w = np.zeros((nu, 3))
        axis_w[:, 2] = rot_sign
        so_c = origin_c[sb]
        J_c = self.moved * slide_c + self._moved_turning * 1j * (com_c[:, None] - so_c[None, :])
        J_v = np.zeros((nb, 3, nu))
        J_v[:, 0, :], J_v[:, 1, :] = J_c.real, J_c.imag
        J_w = np.zeros((nb, 3, nu))
        J_w[:, 2, :] = self._moved_turning
        zeros = np.zeros((nb, 3))
        ks = KinematicState(R=R, origin=origin, com=com, omega=zeros, v_com=zeros, J_w=J_w, J_v=J_v,
                            alpha_bias=zeros, a_bias=zeros, axis_w=axis_w, axis_v=axis_v,
                            speed_origin=origin[sb])
        ks.stage = (e_J, r, com_c - origin_c)
        return ks

    def _velocities_planar(self, ks: KinematicState, u: np.ndarray) -> KinematicState:
        e_J, r, rho = ks.stage
        nb = self.n_bodies
        T_t = self.path_matrix.T
        maps = self._planar_maps @ u
        v_slide = e_J * (maps[nb : 2 * nb] + 1j * maps[2 * nb :])  # sliding velocity, world
        omega_z = T_t @ maps[:nb]
        wp = _parent_values(omega_z, self.parent)
        terms = np.empty((nb, 2), dtype=complex)
        terms[:, 0] = 1j * wp * r + v_slide  # ω_p ẑ × r + d_dot
        terms[:, 1] = -wp * wp * r + 2j * wp * v_slide  # −ω_p² r + 2 ω_p ẑ × d_dot
        summed = self._path_complex_t @ terms
        v_c = summed[:, 0] + 1j * omega_z * rho
        a_c = summed[:, 1] - omega_z * omega_z * rho
        v_com = np.zeros((nb, 3))
        v_com[:, 0], v_com[:, 1] = v_c.real, v_c.imag
        a_bias = np.zeros((nb, 3))
        a_bias[:, 0], a_bias[:, 1] = a_c.real, a_c.imag
        omega = np.zeros((nb, 3))
        omega[:, 2] = omega_z
        return _with_fields(ks, omega=omega, v_com=v_com, a_bias=a_bias)

    def _sum_per_body(self, per_speed: np.ndarray) -> np.ndarray:
        """Rows per speed (nu, 3) summed into rows per body (nb, 3)."""
        return self._speed_incidence @ per_speed

    def point_jacobian(self, ks: KinematicState, body: int, point_world: np.ndarray) -> np.ndarray:
        """(3, nu) partial velocities of a world point fixed in `body`; zeros for ground (-1)."""
        if body < 0:
            return np.zeros((3, self.n_u))
        lever = point_world[None, :] - ks.speed_origin
        cols = (ks.axis_v + cross(ks.axis_w, lever)) * self.moved[body][:, None]
        return cols.T

    def point_bias(self, ks: KinematicState, body: int, point_world: np.ndarray) -> np.ndarray:
        """Acceleration of a body-fixed world point at u_dot = 0."""
        if body < 0:
            return np.zeros(3)
        rho = point_world - ks.com[body]
        w = ks.omega[body]
        return ks.a_bias[body] + cross(ks.alpha_bias[body], rho) + cross(w, cross(w, rho))

    def point_velocity(self, ks: KinematicState, body: int, point_world: np.ndarray) -> np.ndarray:
        if body < 0:
            return np.zeros(3)
        return ks.v_com[body] + cross(ks.omega[body], point_world - ks.com[body])


_EYE3 = np.eye(3)
_EYE3.flags.writeable = False


def _with_fields(ks: KinematicState, **fields) -> KinematicState:
    """A shallow copy of `ks` with some fields replaced (dataclasses.replace costs 10 µs here)."""
    new = object.__new__(KinematicState)
    new.__dict__.update(ks.__dict__)
    new.__dict__.update(fields)
    return new


def _parent_values_complex(values: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """values[parent[i]] per body, 1 (no turn) where the parent is ground."""
    padded = np.ones(values.shape[0] + 1, dtype=complex)
    padded[:-1] = values
    return padded[parent]


def _parent_values(values: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """values[parent[i]] per body for a 1-D array, 0 where the parent is ground."""
    padded = np.zeros(values.shape[0] + 1)
    padded[:-1] = values
    return padded[parent]


def _parent_rows(values: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """values[parent[i]] per body, zeros where the parent is ground (index −1 → the zero row)."""
    padded = np.empty((values.shape[0] + 1, values.shape[1]))
    padded[:-1] = values
    padded[-1] = 0.0
    return padded[parent]
