"""The general 3-D strategy of the tree kinematics: the chain of rotation products along the tree
(the one sequential part), then partial velocities, velocities and bias accelerations stacked
over all bodies with the path matrix (THEORY.md §4)."""
from __future__ import annotations


import numpy as np

from eomlab.engine.joints import joint_type
from eomlab.engine.rotations import cross
from eomlab.engine.kinematics.layout import EYE3, JointLayout, KinematicState, parent_rows, with_fields


class SpatialKinematics:
    """Positions and velocities of any tree (every joint type, any axes)."""

    def __init__(self, tree):
        self.joints, self.parent, self.n_bodies, self.n_u = tree.joints, tree.parent, tree.n_bodies, tree.n_u
        self.path_matrix, self.speed_body, self.moved = tree.path_matrix, tree.speed_body, tree.moved
        self.com_body = tree.com_body
        self._at = np.array([jl.at for jl in self.joints], dtype=float).reshape(self.n_bodies, 3)
        # incidence[b, s] = 1 when speed s belongs to body b's joint
        self._speed_incidence = np.zeros((self.n_bodies, self.n_u))
        self._speed_incidence[self.speed_body, np.arange(self.n_u)] = 1.0
        self._Hw_const, self._Hv_const = self._constant_columns()
        # each joint's type and what it keeps (read once: positions runs at every evaluation)
        self._prepared = {jl.body: (kind, kind.prepare(jl)) for jl in self.joints for kind in (joint_type(jl.type),)}

    def _joint_motion(self, jl: JointLayout, q: np.ndarray, u: np.ndarray):
        """Relative rotation, translation, speed columns (joint frame) and bias terms of a joint.

        Returns R_rel, d, Hw (3, k), Hv (3, k), bias_w (3,), where omega_rel = Hw u_j and
        d_dot = Hv u_j in joint-frame components, and bias_w = (dHw/dt) u_j.
        """
        return joint_type(jl.type).motion(jl, q, u)

    def poses(self, q: np.ndarray):
        """World rotation (nb, 3, 3) and hinge origin (nb, 3) of every body."""
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
        return joint_type(jl.type).pose(jl, qj)

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
            if joint_type(jl.type).constant_turning:
                Hw[jl.u_slice] = hw.T
        return Hw, Hv

    def positions(self, q: np.ndarray) -> KinematicState:
        """Poses and partial velocities at q; the velocity fields are those of u = 0."""
        nb = self.n_bodies
        R = np.empty((nb, 3, 3))
        RJ = np.empty((nb, 3, 3))
        Rp_all = np.empty((nb, 3, 3))
        d_local = np.zeros((nb, 3))
        Hw_cols = self._Hw_const.copy()
        Hv_cols = self._Hv_const
        euler_parts = {}  # body -> (bias, its parts) for joints whose speed columns turn with q: the bias needs u
        eye = EYE3
        # the one sequential part: the chain of rotations
        for jl in self.joints:
            i, p = jl.body, self.parent[jl.body]
            Rp = R[p] if p >= 0 else eye
            Rp_all[i] = Rp
            RJi = Rp if jl.fixed_rotation_is_identity else Rp @ jl.rotation
            RJ[i] = RJi
            kind, prepared = self._prepared[i]
            R_rel, d = kind.place(jl, q[jl.q_slice], prepared, Hw_cols, euler_parts)
            R[i] = RJi if R_rel is None else RJi @ R_rel
            if d is not None:
                d_local[i] = d
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
        speed_origin = origin[self.speed_body]
        return (*partial_velocities(axis_w, axis_v, speed_origin, com, self.moved), speed_origin)

    def with_velocities(self, ks: KinematicState, u: np.ndarray) -> KinematicState:
        """The state at (q, u) from the positions stage at q (which it does not change)."""
        RJ, Hw_cols, Hv_cols, r_rel, rho, euler_parts = ks.stage
        nb = self.n_bodies
        T_t = self.path_matrix.T
        bias_w_J = np.zeros((nb, 3))
        for i, (bias, parts) in euler_parts.items():  # joints whose speed columns turn with q
            bias_w_J[i] = bias(*parts, u)
        # joint-frame relative rates per body: Σ over its speeds of column · u
        w_rel_J = self._sum_per_body(Hw_cols * u[:, None])
        dd_J = self._sum_per_body(Hv_cols * u[:, None])
        rotated = RJ @ np.stack((w_rel_J, dd_J, bias_w_J), axis=2)  # (nb, 3, 3)
        w_rel, dd, bias_w = rotated[:, :, 0], rotated[:, :, 1], rotated[:, :, 2]
        omega = T_t @ w_rel
        omega_parent = parent_rows(omega, self.parent)
        # velocity-product terms of each hinge, summed along the path (THEORY.md §4)
        wp_x = cross(omega_parent[:, None, :], np.stack((w_rel, r_rel, dd), axis=1))  # (nb, 3, 3)
        summed = T_t @ np.hstack((wp_x[:, 0] + bias_w, wp_x[:, 1] + dd))
        alpha_bias, v_origin = summed[:, :3], summed[:, 3:]
        alpha_parent = parent_rows(alpha_bias, self.parent)
        pair = cross(np.stack((alpha_parent, omega_parent)), np.stack((r_rel, wp_x[:, 1])))
        a_origin = T_t @ (pair[0] + pair[1] + 2.0 * wp_x[:, 2])
        w_a_x_rho = cross(np.stack((omega, alpha_bias)), rho)
        v_com = v_origin + w_a_x_rho[0]
        a_bias = a_origin + w_a_x_rho[1] + cross(omega, w_a_x_rho[0])
        return with_fields(ks, omega=omega, v_com=v_com, alpha_bias=alpha_bias, a_bias=a_bias)

    def _sum_per_body(self, per_speed: np.ndarray) -> np.ndarray:
        """Rows per speed (nu, 3) summed into rows per body (nb, 3)."""
        return self._speed_incidence @ per_speed



def partial_velocities(axis_w, axis_v, speed_origin, points, moved):
    """J_w, J_v (nb, 3, nu) of one point per body (points (nb, 3), world): speed s, a twist of
    angular axis axis_w[s] whose point speed_origin[s] moves at axis_v[s], moves body j when
    moved[j, s] is 1."""
    nb, nu = moved.shape
    lever = points[:, None, :] - speed_origin[None, :, :]  # (nb, nu, 3)
    m = moved[:, :, None]
    J_w = (np.broadcast_to(axis_w[None], (nb, nu, 3)) * m).transpose(0, 2, 1)
    J_v = ((axis_v[None] + cross(axis_w[None], lever)) * m).transpose(0, 2, 1)
    return np.ascontiguousarray(J_w), np.ascontiguousarray(J_v)
