"""The planar strategy of the tree kinematics, for models `engine.model.is_planar` accepts: every
joint turns about z and slides in x–y, so positions are complex numbers x + i y, a turn by φ is a
product with e^{iφ}, absolute angles are sums of relative ones along the path, and nothing is
sequential. Several times faster than the general strategy on chains (bench/README.md)."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.joints import joint_type
from eomlab.engine.kinematics.layout import KinematicState, parent_values, parent_values_complex, with_fields


class PlanarKinematics:
    """Positions and velocities of a planar tree, vectorised over all bodies."""

    def __init__(self, tree):
        self.parent, self.n_bodies, self.n_u = tree.parent, tree.n_bodies, tree.n_u
        self.path_matrix, self.speed_body, self.moved = tree.path_matrix, tree.speed_body, tree.moved
        self.com_body = tree.com_body
        T = self.path_matrix
        at = np.array([jl.at for jl in tree.joints], dtype=float).reshape(self.n_bodies, 3)
        beta, theta_map, dx_map, dy_map, rot_sign, slide = self._layout(tree)
        self._beta, self._rot_sign = beta, rot_sign
        self._moved_turning = self.moved * rot_sign
        self._planar_maps = np.vstack((theta_map, dx_map, dy_map))
        self._at_complex = at[:, 0] + 1j * at[:, 1]
        self._com_complex = self.com_body[:, 0] + 1j * self.com_body[:, 1]
        self._slide_complex = slide[:, 0] + 1j * slide[:, 1]
        self._path_complex_t = np.ascontiguousarray(T.T, dtype=complex)  # no conversion per call
        self._origin_z = T.T @ at[:, 2]  # heights never change

    def poses(self, q: np.ndarray):
        """World rotation (nb, 3, 3) and hinge origin (nb, 3) of every body (no Jacobians: what a
        drawn frame needs, O(n) but for one product with the path matrix)."""
        e, _, _, origin_c = self._complex_poses(q)
        return self._rotations(e), self._spatial(origin_c, self._origin_z)

    @staticmethod
    def _layout(tree):
        """Linear maps of the tree: joint-frame angles β, relative angle and joint-frame translation
        as maps of q (and of u), the sign of each turning speed and each sliding speed's direction."""
        nb, nq = tree.n_bodies, tree.n_q
        beta = np.zeros(nb)  # joint-frame angle in the parent frame
        theta_map = np.zeros((nb, nq))  # relative angle = theta_map @ q (and its rate @ u)
        dx_map, dy_map = np.zeros((nb, nq)), np.zeros((nb, nq))  # joint-frame translation
        rot_sign = np.zeros(tree.n_u)  # ±1 for turning speeds
        slide = np.zeros((tree.n_u, 2))  # joint-frame sliding direction of sliding speeds
        for jl in tree.joints:
            F = jl.rotation
            i, k = jl.body, jl.q_slice.start
            beta[i] = math.atan2(F[1, 0], F[0, 0])
            joint_type(jl.type).planar_layout(jl, i, k, theta_map, dx_map, dy_map, rot_sign, slide)
        return beta, theta_map, dx_map, dy_map, rot_sign, slide

    def _complex_poses(self, q: np.ndarray):
        """(e^{iφ} of each body, of its joint frame, origin − parent's origin, origin), complex."""
        nb = self.n_bodies
        maps = self._planar_maps @ q  # relative angle and joint-frame translation, stacked
        theta_rel, d = maps[:nb], maps[nb : 2 * nb] + 1j * maps[2 * nb :]
        phi = self.path_matrix.T @ (self._beta + theta_rel)  # absolute body angles
        e = np.exp(1j * phi)
        e_J = e * np.exp(-1j * theta_rel)  # the joint frames
        r = parent_values_complex(e, self.parent) * self._at_complex + e_J * d  # origin_i − origin_parent
        return e, e_J, r, self._path_complex_t @ r

    @staticmethod
    def _spatial(points_c: np.ndarray, z: np.ndarray) -> np.ndarray:
        out = np.empty((points_c.size, 3))
        out[:, 0], out[:, 1], out[:, 2] = points_c.real, points_c.imag, z
        return out

    @staticmethod
    def _rotations(e: np.ndarray) -> np.ndarray:
        R = np.zeros((e.size, 3, 3))
        R[:, 0, 0] = R[:, 1, 1] = e.real
        R[:, 1, 0] = e.imag
        R[:, 0, 1] = -e.imag
        R[:, 2, 2] = 1.0
        return R

    def positions(self, q: np.ndarray) -> KinematicState:
        """Poses and partial velocities at q, in complex numbers; the velocity fields are those of u = 0."""
        rot_sign = self._rot_sign
        nb, nu = self.n_bodies, self.n_u
        e, e_J, r, origin_c = self._complex_poses(q)
        com_c = origin_c + e * self._com_complex
        origin = self._spatial(origin_c, self._origin_z)
        com = self._spatial(com_c, self._origin_z + self.com_body[:, 2])
        R = self._rotations(e)
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

    def with_velocities(self, ks: KinematicState, u: np.ndarray) -> KinematicState:
        """The state at (q, u) from the positions stage at q (which it does not change)."""
        e_J, r, rho = ks.stage
        nb = self.n_bodies
        T_t = self.path_matrix.T
        maps = self._planar_maps @ u
        v_slide = e_J * (maps[nb : 2 * nb] + 1j * maps[2 * nb :])  # sliding velocity, world
        omega_z = T_t @ maps[:nb]
        wp = parent_values(omega_z, self.parent)
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
        return with_fields(ks, omega=omega, v_com=v_com, a_bias=a_bias)

