"""Joints as holonomic rows, for models taken to absolute coordinates (engine.mechanics.absolute): a general
joint (JointRows), and all spherical or all planar revolute pins at once (SpatialPins, PlanarPins)."""
from __future__ import annotations

import numpy as np

from eomlab.engine.kinematics import TreeKinematics
from eomlab.engine.model import GROUND
from eomlab.engine.rotations import cross, skew as skew_matrix
from eomlab.engine.constraints.rows import HOLONOMIC, LinearKind, RowBlock, between, body_index


class JointRows(LinearKind):  # A and Φ need q only; b is quadratic in u
    """A joint of the tree turned into holonomic rows (absolute coordinates).

    Translation rows: Φ = e·(o_child − P_J) for joint-frame directions e the joint does not allow.
    Rotation rows: Φ = g·h for a joint-frame vector g and a child-fixed vector h that the joint
    keeps perpendicular. Derivatives come from the tree kinematics (ė = ω_parent × e, ...).
    """

    def __init__(self, kin: TreeKinematics, name: str, parent: str, child: str, at, rotation,
                 translation_dirs, rotation_pairs, labels, world_axes: bool = False):
        self.kin, self.name = kin, name
        self.parent, self.child = body_index(kin, parent), body_index(kin, child)
        self.at = np.array(at, float)
        self.F = np.array(rotation, float)
        self.E_local = np.array(translation_dirs, float).reshape(-1, 3)  # joint frame
        self.G_local = np.array([g for g, _ in rotation_pairs], float).reshape(-1, 3)  # joint frame
        self.H_local = np.array([h for _, h in rotation_pairs], float).reshape(-1, 3)  # child frame
        self.n_trans, self.n_rot = len(self.E_local), len(self.G_local)
        # joints that block every translation: world axes give world reaction components
        self.world_axes = world_axes
        self.rows = self.n_trans + self.n_rot
        self.level = (HOLONOMIC,) * self.rows
        self.labels = tuple(labels)

    def evaluate_at_zero(self, ctx):
        ks, kin = ctx.ks, self.kin
        Rp = ks.R[self.parent] if self.parent >= 0 else np.eye(3)
        op = ks.origin[self.parent] if self.parent >= 0 else np.zeros(3)
        RJ = Rp @ self.F
        PJ = op + Rp @ self.at
        c, p = self.child, self.parent
        oc = ks.origin[c]
        Jc, Jwc = kin.point_jacobian(ks, c, oc), ks.J_w[c]
        if p >= 0:
            Jp, Jwp = kin.point_jacobian(ks, p, PJ), ks.J_w[p]
        else:
            Jp = Jwp = np.zeros((3, kin.n_u))
        r = oc - PJ
        blocks_A, pos = [], []
        E = G = H = hxg = None
        if self.n_trans:
            if self.world_axes:
                E = self.E_local
                A = E @ (Jc - Jp)
            else:
                E = self.E_local @ RJ.T  # rows: world directions e fixed in the joint frame
                A = E @ (Jc - Jp) + cross(E, r) @ Jwp
            blocks_A.append(A)
            pos.append(E @ r)
        if self.n_rot:
            G = self.G_local @ RJ.T  # fixed in the joint frame
            H = self.H_local @ ks.R[c].T  # fixed in the child
            hxg = cross(H, G)
            blocks_A.append(hxg @ (Jwc - Jwp))
            pos.append(np.einsum("ij,ij->i", G, H))
        A = np.vstack(blocks_A) if len(blocks_A) > 1 else blocks_A[0]
        cache = (PJ, oc, r, Jc - Jp, E, G, H, hxg)
        block = RowBlock(A=A, b=self.bias_at(cache, ctx), position=np.concatenate(pos),
                         velocity=A @ ctx.u, c=np.zeros(self.rows))
        return block, cache

    def bias_at(self, cache, ctx):
        """−(the rows' acceleration terms at u̇ = 0): ė = ω_p × e, ḣ = ω_c × h, ... at ctx's u."""
        PJ, oc, r, J_rel, E, G, H, hxg = cache
        ks, kin, u = ctx.ks, self.kin, ctx.u
        c, p = self.child, self.parent
        zero = np.zeros(3)
        wp = ks.omega[p] if p >= 0 else zero
        ap = ks.alpha_bias[p] if p >= 0 else zero
        blocks_b = []
        if self.n_trans:
            r_bias = kin.point_bias(ks, c, oc) - (kin.point_bias(ks, p, PJ) if p >= 0 else zero)
            if self.world_axes:
                bias = E @ r_bias
            else:
                E_dot = cross(wp, E)
                bias = E @ r_bias + 2.0 * (E_dot @ (J_rel @ u)) + (cross(ap, E) + cross(wp, E_dot)) @ r
            blocks_b.append(-bias)
        if self.n_rot:
            wc = ks.omega[c]
            bias = hxg @ (ks.alpha_bias[c] - ap) + (cross(cross(wc, H), G) + cross(H, cross(wp, G))) @ (wc - wp)
            blocks_b.append(-bias)
        return np.concatenate(blocks_b) if len(blocks_b) > 1 else blocks_b[0]

    def actions(self, ks, lam):
        """The joint's force (translation rows, λ e at the child's origin) and couple (rotation
        rows, λ h × g) on the child; on the parent the reaction, at the point its rows use."""
        PJ, oc, _r, _J, E, _G, _H, hxg = self.evaluate_at_zero(self._zero_context(ks))[1]
        lam_t, lam_r = lam[:self.n_trans], lam[self.n_trans:]
        force = E.T @ lam_t if self.n_trans else np.zeros(3)
        torque = hxg.T @ lam_r if self.n_rot else np.zeros(3)
        at_parent = PJ if self.world_axes else oc  # the rows' parent point (A = eᵀ(J_c − J_p(P)))
        return [between(f"joint {self.kin.body_names[self.child]}", "joint", self.child, oc, force, self.parent,
                        at_parent, torque)]

    def _zero_context(self, ks):
        return _PositionsOnly(ks, np.zeros(self.kin.n_u))


class SpatialPins(LinearKind):
    """Every spherical joint of a 3-D model in absolute coordinates, all at once.

    Each body is a free joint to ground with speeds (v, ω_body): the world velocity of its origin
    and its body rates. Pin k: the child's origin o_c coincides with P = o_p + R_p a_k, in world
    x, y, z. Φ = o_c − P; A = [I on the child's v; −I on the parent's v; R_p [a_k]× on the
    parent's ω_body] (since ω_p × R_p a = −R_p [a]× ω_body); b = ω_p × (ω_p × R_p a_k). Equal
    to JointRows with world axes (tests), without a Python loop over the joints.
    """

    def __init__(self, kin: TreeKinematics, pins):
        self.kin, self.name = kin, "joints"
        n = len(pins)
        self.rows, self.level = 3 * n, (HOLONOMIC,) * (3 * n)
        self.row_names = [f"{child}.joint_{i}" for _, _, child, _ in pins for i in (0, 1, 2)]
        index = {name: i for i, name in enumerate(kin.body_names)}
        joint_of = {kin.body_names[jl.body]: jl for jl in kin.joints}
        self.child = np.array([index[c] for _, _, c, _ in pins])
        self.at = np.array([a for _, _, _, a in pins], float).reshape(n, 3)
        k = np.flatnonzero([p != GROUND for _, p, _, _ in pins])
        self._k = k
        self.parent = np.array([index[pins[i][1]] for i in k], dtype=int)
        rows = 3 * np.arange(n)[:, None] + np.arange(3)  # (n, 3)
        child_v = np.array([joint_of[c].u_slice.start for _, _, c, _ in pins])[:, None] + np.arange(3)
        parent_v = np.array([joint_of[pins[i][1]].u_slice.start for i in k], dtype=int)[:, None] + np.arange(3)
        A0 = np.zeros((3 * n, kin.n_u))
        A0[rows, child_v] = 1.0
        A0[rows[k], parent_v] = -1.0
        self._A0 = A0
        # A[3k + i, parent ω_j] = (R_p [a_k]×)_ij
        self._rows_w = np.broadcast_to(rows[k][:, :, None], (len(k), 3, 3))
        self._cols_w = np.broadcast_to((parent_v + 3)[:, None, :], (len(k), 3, 3))
        self._skew_at = np.array([skew_matrix(a) for a in self.at[k]]).reshape(len(k), 3, 3)
        self._zero_c = np.zeros(3 * n)
        self._zero_c.flags.writeable = False

    def evaluate_at_zero(self, ctx):
        ks, k = ctx.ks, self._k
        Rp = ks.R[self.parent]
        rho = (Rp @ self.at[k][:, :, None])[:, :, 0]
        target = self.at.copy()  # pins on the ground: P = a
        target[k] = ks.origin[self.parent] + rho
        A = self._A0.copy()
        A[self._rows_w, self._cols_w] = Rp @ self._skew_at
        b = self.bias_at(rho, ctx) if np.count_nonzero(ctx.u) else np.zeros(self.rows)  # quadratic in u
        block = RowBlock(A=A, b=b, position=(ks.origin[self.child] - target).ravel(),
                         velocity=A @ ctx.u, c=self._zero_c)
        return block, rho

    def bias_at(self, rho, ctx):
        w = ctx.ks.omega[self.parent]
        b = np.zeros((len(self.at), 3))
        b[self._k] = cross(w, cross(w, rho))
        return b.ravel()

    def actions(self, ks, lam):
        """Pin k: λ_k on the child at its origin, the reaction on the parent at its point."""
        targets = self.at.copy()
        k = self._k
        targets[k] = ks.origin[self.parent] + (ks.R[self.parent] @ self.at[k][:, :, None])[:, :, 0]
        parents = np.full(len(self.at), -1)
        parents[k] = self.parent
        return [between(f"joint {self.kin.body_names[c]}", "joint", int(c), ks.origin[c].copy(), lam[3 * i:3 * i + 3].copy(),
                        int(parents[i]), targets[i]) for i, c in enumerate(self.child)]


class PlanarPins(LinearKind):
    """Every revolute joint of a planar model in absolute coordinates, all at once.

    Pin k: the child's origin o_c coincides with the point P = o_p + R(θ_p) a_k of its parent, in
    world x and y. With x, y, θ per body: Φ = o_c − P, A = [I on the child's x, y; −I on the
    parent's x, y; −ẑ × ρ on θ_p] (ρ = R(θ_p) a_k), and b = −θ̇_p² ρ.
    """

    def __init__(self, kin: TreeKinematics, pins):
        self.kin, self.name = kin, "joints"
        n = len(pins)
        self.rows, self.level = 2 * n, (HOLONOMIC,) * (2 * n)
        self.row_names = [f"{child}.joint_{i}" for _, parent, child, _ in pins for i in (0, 1)]
        joint_of = {kin.body_names[jl.body]: jl for jl in kin.joints}
        self.child_body = [body_index(kin, c) for _, _, c, _ in pins]
        self.parent_body = [body_index(kin, p) for _, p, _, _ in pins]
        self.child_x = np.array([joint_of[c].u_slice.start for _, _, c, _ in pins])
        has_parent = np.array([p != GROUND for _, p, _, _ in pins])
        self.has_parent = has_parent
        self.parent_x = np.array([joint_of[p].u_slice.start if p != GROUND else 0 for _, p, _, _ in pins])
        self.at = np.array([a[:2] for _, _, _, a in pins], float)
        self.row_index = np.arange(n)
        # index arrays of the vectorised evaluation: pins k with a parent body
        k = np.flatnonzero(has_parent)
        self._k = k
        self._theta = self.parent_x[k] + 2  # the parent's angle θ_p (and speed)
        self._child_xy = np.column_stack((self.child_x, self.child_x + 1))
        self._parent_xy = np.column_stack((self.parent_x[k], self.parent_x[k] + 1))
        self._at_k = self.at[k]
        n_u = kin.n_u
        A0 = np.zeros((2 * n, n_u))
        rx, ry = 2 * self.row_index, 2 * self.row_index + 1
        A0[rx, self.child_x] = 1.0
        A0[ry, self.child_x + 1] = 1.0
        A0[rx[k], self.parent_x[k]] = -1.0
        A0[ry[k], self.parent_x[k] + 1] = -1.0
        self._A0 = A0
        self._flat_x = rx[k] * n_u + self._theta  # A[row x, θ_p] = ρ_y
        self._flat_y = ry[k] * n_u + self._theta  # A[row y, θ_p] = −ρ_x
        self._zero_c = np.zeros(2 * n)
        self._zero_c.flags.writeable = False

    def evaluate_at_zero(self, ctx):
        q, u = ctx.q, ctx.u
        k, th = self._k, q[self._theta]
        c, s = np.cos(th), np.sin(th)
        ax, ay = self._at_k[:, 0], self._at_k[:, 1]
        rho = self.at.copy()
        rho_x = c * ax - s * ay
        rho_y = s * ax + c * ay
        rho[k, 0] = rho_x
        rho[k, 1] = rho_y
        phi = q[self._child_xy] - rho
        phi[k] -= q[self._parent_xy]
        A = self._A0.copy()
        flat = A.reshape(-1)
        flat[self._flat_x] = rho_y  # −(ẑ × ρ)_x = ρ_y
        flat[self._flat_y] = -rho_x
        cache = rho[k]
        b = self.bias_at(cache, ctx) if np.count_nonzero(u) else np.zeros(self.rows)  # quadratic in u
        return RowBlock(A=A, b=b, position=phi.ravel(), velocity=A @ u, c=self._zero_c), cache

    def bias_at(self, rho_k, ctx):
        """b = −θ̇_p² ρ (pins on the ground have b = 0)."""
        th_dot = ctx.u[self._theta]
        b = np.zeros((len(self.at), 2))
        b[self._k] = -(th_dot * th_dot)[:, None] * rho_k
        return b.ravel()

    def actions(self, ks, lam):
        """Pin k: (λ_2k, λ_2k+1) on the child at its origin, the reaction on the parent at its point."""
        out = []
        for i, (child, parent) in enumerate(zip(self.child_body, self.parent_body)):
            at = np.array([*self.at[i], 0.0])
            target = np.array([*self.at[i], ks.origin[child][2]]) if parent < 0 else ks.origin[parent] + ks.R[parent] @ at
            force = np.array([lam[2 * i], lam[2 * i + 1], 0.0])
            out.append(between(f"joint {self.kin.body_names[child]}", "joint", int(child), ks.origin[child].copy(),
                               force, int(parent), target))
        return out


class _PositionsOnly:
    """The kinematic state alone, as the rows' evaluation reads it (u = 0: A and the points)."""

    def __init__(self, ks, u):
        self.ks, self.u = ks, u
