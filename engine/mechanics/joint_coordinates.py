"""Joint coordinates and joint speeds as functions of the bodies' poses (absolute coordinates).

A run in absolute coordinates integrates every body's own pose; its joints are constraint rows.
`JointCoordinates` gives back what the joints read, so that every column, force and constraint
written in joint coordinates keeps its meaning:

- q_j = g(q_abs): each joint's coordinates from its parent's and its child's pose (the child's
  rotation and origin in the joint frame, R_rel = (R_p F)ᵀ R_c, d = (R_p F)ᵀ (o_c − o_p − R_p at),
  read as the joint's angle, slide, Euler angles or Euler parameters).
- u_j = G u_abs with G = J_j⁺ J_abs: J_j and J_abs stack the mass-centre partial velocities and
  partial angular velocities of every body in joint and in absolute coordinates. Both give the
  same body velocities and J_j has full column rank, so on the joints' rows G is the Jacobian of
  g in the speeds (the relative angular and linear velocity of child and parent, joint by joint).
- u̇_j = G u̇_abs + J_j⁺ (β_abs − β_j) (β: the bias accelerations of the two kinematics).

Generalized forces in joint speeds go to absolute speeds as Gᵀ Q_j (equal virtual power); a
constraint row A_j u̇_j = b_j becomes A_j G u̇_abs = b_j − A_j J_j⁺ (β_abs − β_j) (the chain rule).

An angle is a function of the poses only up to whole turns: each is taken on the branch nearest
`reference` (the previous sample's joint coordinates), as are the sign of Euler parameters and
the second solution of Euler angles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from eomlab.engine.joints import joint_type
from eomlab.engine.kinematics import JointLayout, KinematicState, TreeKinematics
from eomlab.engine.model import Model, initial_coordinates, speed_names
from eomlab.engine.rotations import EulerSequence, perpendiculars, quaternion_from_matrix
from eomlab.engine.mechanics.state import StateContext

TWO_PI = 2.0 * math.pi


def nearest_turn(angle: float, reference: float) -> float:
    """`angle` moved by whole turns to within half a turn of `reference`."""
    return reference + math.remainder(angle - reference, TWO_PI)


def _stacked(ks: KinematicState) -> np.ndarray:
    """(6 nb, n_u): the mass-centre partial velocities, then the partial angular velocities."""
    return np.concatenate((ks.J_v.reshape(-1, ks.J_v.shape[-1]), ks.J_w.reshape(-1, ks.J_w.shape[-1])))


def _bias(ks: KinematicState) -> np.ndarray:
    return np.concatenate((ks.a_bias.ravel(), ks.alpha_bias.ravel()))


class _RevoluteAngle:
    """θ about the unit axis a from R_rel: R n = cos θ n + sin θ (a × n) for n ⟂ a."""

    def __init__(self, axis: np.ndarray):
        self.n, self.m = perpendiculars(axis / np.linalg.norm(axis))

    def __call__(self, R: np.ndarray, reference: float) -> float:
        turned = R @ self.n
        return nearest_turn(math.atan2(float(self.m @ turned), float(self.n @ turned)), reference)


def _euler_angles(euler: EulerSequence, R: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The Euler angles of R nearest `reference`: both solutions, each angle by whole turns."""
    first = euler.angles(R)
    symmetric = euler.sequence[0] == euler.sequence[2]
    second = np.array([first[0] + math.pi, -first[1] if symmetric else math.pi - first[1], first[2] + math.pi])
    best = None
    for angles in (first, second):
        near = np.array([nearest_turn(float(a), float(r)) for a, r in zip(angles, reference)])
        if best is None or np.sum((near - reference) ** 2) < np.sum((best - reference) ** 2):
            best = near
    return best


def _rotation_coordinates(jl: JointLayout, R: np.ndarray, reference: np.ndarray) -> np.ndarray:
    if jl.quaternion:
        p = quaternion_from_matrix(R)
        return -p if float(p @ reference) < 0 else p
    return _euler_angles(jl.euler, R, reference)


@dataclass
class JointState:
    """One absolute state seen in joint coordinates."""

    context: StateContext  # t, q_j, u_j, q̇_j, W_j and the joint kinematics at (q_j, u_j)
    G: np.ndarray  # u_j = G u_abs
    pseudo_inverse: np.ndarray  # J_j⁺
    absolute: KinematicState

    def bias(self) -> np.ndarray:
        """u̇_j at u̇_abs = 0."""
        return self.pseudo_inverse @ (_bias(self.absolute) - _bias(self.context.ks))


class JointCoordinates:
    """The joint coordinates, joint speeds and joint kinematics of `model` at any absolute state
    of it (`engine.mechanics.absolute` keeps the body order, so body i is body i in both)."""

    def __init__(self, model: Model):
        self.kin = TreeKinematics(model)
        self.coordinate_names = list(self.kin.coordinate_names)
        self.speed_names = [n for b in model.bodies for n in speed_names(b.name, b.joint)]
        self.n_q = self.kin.n_q
        self.q0 = np.array(initial_coordinates(model), dtype=float)
        self._has_body_rates = any(jl.turns_with_body_rates for jl in self.kin.joints)
        self._angles: dict[int, _RevoluteAngle] = {}  # filled by the joints whose angles it reads
        self._reference = self.q0.copy()
        self._cache: tuple | None = None
        self._pose_cache: tuple | None = None

    @property
    def reference(self) -> np.ndarray:
        return self._reference

    @reference.setter
    def reference(self, q: np.ndarray) -> None:
        self._reference = np.array(q, dtype=float)
        self._cache = self._pose_cache = None

    def coordinates(self, R: np.ndarray, origin: np.ndarray) -> np.ndarray:
        """q_j from the world rotations (nb, 3, 3) and body-frame origins (nb, 3) of the bodies."""
        q = np.empty(self.n_q)
        ref = self._reference
        for jl in self.kin.joints:
            i, p = jl.body, self.kin.parent[jl.body]
            Rp, op = (R[p], origin[p]) if p >= 0 else (np.eye(3), np.zeros(3))
            RJ = Rp @ jl.rotation
            R_rel = RJ.T @ R[i]
            d = RJ.T @ (origin[i] - op - Rp @ jl.at)
            q[jl.q_slice] = self._joint_values(jl, R_rel, d, ref[jl.q_slice])
        return q

    def _joint_values(self, jl: JointLayout, R: np.ndarray, d: np.ndarray, ref: np.ndarray) -> list[float]:
        return joint_type(jl.type).joint_values(self, jl, R, d, ref)

    # the readers a joint type reads its coordinates with (engine.joints)
    nearest_turn = staticmethod(nearest_turn)

    def angle(self, jl: JointLayout, R: np.ndarray, reference: float) -> float:
        """The turn about jl's axis of R nearest `reference`."""
        reader = self._angles.get(jl.body)
        if reader is None:
            reader = self._angles[jl.body] = _RevoluteAngle(jl.axis)
        return reader(R, reference)

    def rotation(self, jl: JointLayout, R: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """The Euler angles or parameters of R nearest `reference`."""
        return _rotation_coordinates(jl, R, reference)

    def state(self, ctx: StateContext, rates: bool = True) -> JointState:
        """The joint-coordinate view of the absolute state ctx (kept until the next state; what
        depends on the poses only, until the next poses). `rates=False` leaves out W_j and q̇_j
        (a sample's values need neither, and W_j does not exist where Euler angles lock)."""
        key = (ctx.t, ctx.q.tobytes(), ctx.u.tobytes(), rates)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        q, positions, pseudo_inverse, G, W = self._at_poses(ctx, rates)
        u = G @ ctx.u
        context = StateContext(t=ctx.t, q=q, u=u, qd=W @ u if W is not None else u, W=W,
                               ks=self.kin.with_velocities(positions, u))
        seen = JointState(context, G, pseudo_inverse, ctx.ks)
        self._cache = (key, seen)
        return seen

    def _at_poses(self, ctx: StateContext, rates: bool):
        """q_j, the joint kinematics' positions stage, J_j⁺, G and W_j at the poses of ctx."""
        key = (ctx.q.tobytes(), rates)
        if self._pose_cache is not None and self._pose_cache[0] == key:
            return self._pose_cache[1]
        q = self.coordinates(ctx.ks.R, ctx.ks.origin)
        positions = self.kin.positions(q)
        pseudo_inverse = np.linalg.pinv(_stacked(positions))
        G = pseudo_inverse @ _stacked(ctx.ks)
        W = self.kin.rate_matrix(q) if self._has_body_rates and rates else None
        self._pose_cache = (key, (q, positions, pseudo_inverse, G, W))
        return self._pose_cache[1]

    def values(self, t: float, q: np.ndarray, u: np.ndarray, ks: KinematicState) -> tuple[np.ndarray, np.ndarray]:
        """(q_j, u_j) at an absolute state (a sample)."""
        seen = self.state(StateContext(t=t, q=q, u=u, qd=u, W=None, ks=ks), rates=False)
        return seen.context.q.copy(), seen.context.u.copy()
