"""Joint armature: the inertia of a rotor geared to a joint, seen on the joint's own speeds.

A joint with armature a adds the kinetic energy T_a = ½ a (|ḋ|² + |ω_rel|²), ḋ the rate of its
slide in the joint frame and ω_rel the child's angular velocity relative to the parent. For every
joint type whose speeds are slide rates and components of ω_rel on orthonormal axes (revolute,
prismatic, cylindrical, universal, planar, spherical and free with body-rate speeds or Euler
parameters) that is ½ a Σ u_k² over its speeds: a on the joint's diagonal of M and no
velocity-product term, which is MuJoCo's `dof_armature` and pinocchio's `Model.armature`.

T_a enters Lagrange's equations (THEORY.md (2.2), (2.6)) as any kinetic energy does. Written with the
joint speeds as u_j = P u + (nothing) in the system's speeds u and u̇_j = P u̇ + β:

    M += Pᵀ A P,   forcing −= Pᵀ A β,   T += ½ (P u)ᵀ A (P u),   S_Gibbs += ½ (P u̇ + β)ᵀ A (P u̇ + β)

with A = diag(a per joint speed). P is the identity in joint coordinates (β = 0); in absolute
coordinates P = G and β the joint speeds' rate at u̇ = 0 (engine.mechanics.joint_coordinates); for a
spherical or free joint whose speeds are the Euler-angle rates (Lagrange's own speeds for body-rate
joints) its rotation rows are the body rates R_iᵀ(ω_i − ω_p), ω = J_ω u, whose rate at u̇ = 0 is
R_iᵀ(α_bias,i − α_bias,p + ω_i × ω_p); as A is isotropic, P and β are kept in world axes.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.mechanics.state import StateContext


class Armature:
    """The armature terms of a MechanicalSystem. `diagonal` holds a per speed where P is the
    identity (joint coordinates); `blocks` the angle-rate joints' rotations (body, parent, a)."""

    def __init__(self, model, kin, joint_view=None):
        self.joint_view = joint_view  # absolute coordinates: the joint-coordinate view (P = G)
        self.diagonal = np.zeros(kin.n_u if joint_view is None else joint_view.kin.n_u)
        self.blocks: list[tuple[int, int, float]] = []
        joints = (joint_view.kin if joint_view is not None else kin).joints
        for b, jl in zip(model.bodies, joints):
            a = float(b.joint.armature)
            if not a:
                continue
            angle_rates = jl.euler is not None and not jl.body_rates and joint_view is None
            speeds = range(jl.u_slice.start, jl.u_slice.stop - (3 if angle_rates else 0))
            self.diagonal[list(speeds)] = a
            if angle_rates:
                self.blocks.append((jl.body, int(kin.parent[jl.body]), a))
        self.any = bool(np.any(self.diagonal)) or bool(self.blocks)

    @classmethod
    def of(cls, model, kin, joint_view=None) -> "Armature | None":
        """The model's armature terms, or None when no joint has any."""
        if not any(b.joint.armature for b in model.bodies):
            return None
        return cls(model, kin, joint_view)

    def explicit(self, compiled: bool) -> bool:
        """Whether M and the forcing need `terms` on top of the tree's (pinocchio's CRBA and ABA
        carry the diagonal in joint coordinates themselves: `pinocchio_armature`)."""
        return self.joint_view is not None or bool(self.blocks) or not compiled

    def pinocchio_armature(self) -> np.ndarray | None:
        """pinocchio's Model.armature (eomlab's speed order) in joint coordinates, else None."""
        return self.diagonal.copy() if self.joint_view is None else None

    def _rows(self, ctx, with_bias: bool):
        """(P, β, joint speeds' weights a) at the state ctx (t, q, u, ks)."""
        if self.joint_view is not None:
            seen = self.joint_view.state(ctx, rates=False)
            return seen.G, (seen.bias() if with_bias else None), self.diagonal
        n = len(self.diagonal)
        rows = [np.eye(n)]
        bias = [np.zeros(n)]
        weights = [self.diagonal]
        ks = ctx.ks
        for body, parent, a in self.blocks:
            Jw = ks.J_w[body] - (ks.J_w[parent] if parent >= 0 else 0.0)
            rows.append(Jw)
            if with_bias:  # d/dt of R_iᵀ(ω_i − ω_p) at u̇ = 0, turned back to world axes (A is isotropic)
                bias.append(ks.alpha_bias[body] - (ks.alpha_bias[parent] + np.cross(ks.omega[parent], ks.omega[body])
                                                   if parent >= 0 else 0.0))
            weights.append(np.full(3, a))
        return np.vstack(rows), (np.concatenate(bias) if with_bias else None), np.concatenate(weights)

    def terms(self, ctx, compiled: bool) -> tuple[np.ndarray, np.ndarray]:
        """(ΔM, Δforcing) at the state ctx: what the armature adds beyond the tree's own M and
        forcing on this path (the diagonal is already pinocchio's in joint coordinates)."""
        P, beta, a = self._rows(ctx, with_bias=True)
        if compiled and self.joint_view is None:
            a = a.copy()
            a[: len(self.diagonal)] = 0.0  # CRBA and ABA hold it
        PA = P.T * a
        return PA @ P, -(PA @ beta)

    def energy(self, t: float, q: np.ndarray, u: np.ndarray, ks) -> float:
        """T_a = ½ (P u)ᵀ A (P u) at (t, q, u), ks the kinematic state there."""
        if self.joint_view is None and not self.blocks:
            return 0.5 * float(u @ (self.diagonal * u))
        P, _, a = self._rows(StateContext(t=t, q=q, u=u, qd=u, W=None, ks=ks), with_bias=False)
        uj = P @ u
        return 0.5 * float(uj @ (a * uj))
