"""Action: a force and a couple that one thing exerts on a body at a point, with its reaction.

Constraint forces (engine.forcing.joint_forces) and applied forces (engine.forcing.applied_forces) are both lists
of Actions in world axes, so a picture draws them alike and a test can sum them per body. The two
maps between actions and generalized forces live here:

- `generalized_force`: Q = Σ J_Pᵀ F + J_ωᵀ τ over every body an action touches (virtual work);
  for the constraint actions of a kind this is that kind's Aᵀλ, the check that an action sits
  where its constraint acts.
- `joint_wrench`: the force at a joint's point and the couple that give a joint's own speeds the
  generalized force Q_j (a motor's effort, a joint spring, a servo's multiplier): the least-norm
  solution of S_jᵀ w = Q_j with S_j the joint's partial velocities (its motion subspace).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def _zero() -> np.ndarray:
    return np.zeros(3)


@dataclass(frozen=True, eq=False)  # arrays inside: compare fields, not Actions
class Action:
    """`force` (N) at world point `at` and `torque` (N·m, a free couple) that `source` exerts on
    body `on`, and −force at `other_at`, −torque on body `other` (−1: ground or nothing: gravity,
    a push). `kind` groups actions for drawing: "joint", "contact", "closure", "actuator",
    "gravity", "spring", "effort", "load", "push"."""

    source: str
    kind: str
    on: int
    at: np.ndarray
    force: np.ndarray = field(default_factory=_zero)
    torque: np.ndarray = field(default_factory=_zero)
    other: int = -1
    other_at: np.ndarray | None = None

    def on_bodies(self) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """(body, world point, force, torque) for each body it acts on (ground left out)."""
        out = []
        if self.on >= 0:
            out.append((self.on, self.at, self.force, self.torque))
        if self.other >= 0:
            out.append((self.other, self.at if self.other_at is None else self.other_at, -self.force, -self.torque))
        return out


@dataclass(frozen=True, eq=False)
class ActionArrays:
    """Many Actions as rows of arrays (a window draws every action of a sample at once; the engine
    forms gravity and the joint reactions as arrays and makes `Action`s only when asked): row i
    is `actions()[i]`. A row of `other_at` is NaN where the Action's `other_at` is None."""

    sources: tuple[str, ...]
    kinds: tuple[str, ...]
    on: np.ndarray  # (k,) int
    at: np.ndarray  # (k, 3)
    force: np.ndarray
    torque: np.ndarray
    other: np.ndarray
    other_at: np.ndarray

    def __len__(self) -> int:
        return len(self.sources)

    @classmethod
    def of(cls, actions) -> "ActionArrays":
        actions = list(actions)
        k = len(actions)
        rows = np.zeros((4, k, 3))
        for i, a in enumerate(actions):
            rows[0, i], rows[1, i], rows[2, i] = a.at, a.force, a.torque
            rows[3, i] = np.nan if a.other_at is None else a.other_at
        return cls(tuple(a.source for a in actions), tuple(a.kind for a in actions),
                   np.fromiter((a.on for a in actions), int, k), rows[0], rows[1], rows[2],
                   np.fromiter((a.other for a in actions), int, k), rows[3])

    @classmethod
    def joined(cls, *parts: "ActionArrays") -> "ActionArrays":
        parts = [p for p in parts if len(p)] or list(parts[:1])
        if len(parts) == 1:
            return parts[0]
        return cls(sum((p.sources for p in parts), ()), sum((p.kinds for p in parts), ()),
                   *(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("on", "at", "force", "torque", "other", "other_at")))

    def actions(self) -> list[Action]:
        return [Action(s, k, int(on), at, f, tau, int(other), None if np.isnan(oa[0]) else oa)
                for s, k, on, at, f, tau, other, oa in zip(self.sources, self.kinds, self.on, self.at, self.force,
                                                          self.torque, self.other, self.other_at)]

    def reaction_points(self) -> np.ndarray:
        """(k, 3) where each reaction acts: `other_at`, else `at`."""
        return np.where(np.isnan(self.other_at[:, :1]), self.at, self.other_at)

    def on_bodies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(bodies, world points, forces, torques) of every side on a body (ground left out), as
        `Action.on_bodies` of each row."""
        mine, theirs = self.on >= 0, self.other >= 0
        return (np.concatenate((self.on[mine], self.other[theirs])),
                np.concatenate((self.at[mine], self.reaction_points()[theirs])),
                np.concatenate((self.force[mine], -self.force[theirs])),
                np.concatenate((self.torque[mine], -self.torque[theirs])))


def generalized_force(kin, ks, actions) -> np.ndarray:
    """Σ J_Pᵀ F + J_ωᵀ τ (n_u) of `actions` on the tree `kin` at the kinematic state `ks`."""
    Q = np.zeros(kin.n_u)
    for action in actions:
        for body, point, force, torque in action.on_bodies():
            Q += kin.point_jacobian(ks, body, point).T @ force + ks.J_w[body].T @ torque
    return Q


def joint_motion(kin, ks, body: int) -> np.ndarray:
    """(6, k) partial velocities of the point at body `body`'s origin and of its angular velocity
    in its own joint's k speeds: the motions its joint allows."""
    jl = kin.joints[body]
    J_P = kin.point_jacobian(ks, body, ks.origin[body])[:, jl.u_slice]
    return np.vstack((J_P, ks.J_w[body][:, jl.u_slice]))


def joint_wrench(kin, ks, body: int, Q_joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(force at the body's origin, couple) on body `body` from its parent through its joint whose
    generalized force in the joint's own speeds is Q_joint (least norm: along the allowed motions)."""
    S = joint_motion(kin, ks, body)
    w = np.linalg.lstsq(S.T, np.asarray(Q_joint, float), rcond=None)[0]
    return w[:3], w[3:]


def joint_action(kin, ks, body: int, Q_joint, source: str, kind: str) -> Action:
    """The Action of `joint_wrench` on the child `body` with its reaction on the parent."""
    force, torque = joint_wrench(kin, ks, body, Q_joint)
    point = ks.origin[body].copy()
    return Action(source, kind, body, point, force, torque, int(kin.parent[body]), point)
