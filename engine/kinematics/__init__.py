"""Numeric tree kinematics in joint coordinates (Roberson–Wittenburg; Wittenburg 2008, ch. 5; THEORY.md §4).

Bodies hang from ground through one joint each. Everything that depends only on the tree's
topology — the path matrix T (T[i, j] = 1 when hinge i lies on the path from ground to body j) —
is built once; per state the only sequential work is the chain of rotation products, everything
else is a stacked numpy operation over all bodies or all speeds.

For body j with mass centre c_j (world):
    v_c = J_v u,        a_c = J_v u_dot + a_bias       (THEORY.md §4: r_dot = α q_dot + s)
    ω   = J_w u,        ω_dot = J_w u_dot + α_bias
The columns of J_v and J_w are the partial velocities and partial angular velocities of Kane's
method (Kane & Levinson 1985).

The per-state work is one of two strategies, chosen once per model (`choose_strategy`):
`PlanarKinematics` (complex numbers, no sequential part) for models `engine.model.is_planar`
accepts, `SpatialKinematics` (the chain of rotation products) for every other tree.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.joints import joint_type
from eomlab.engine.model import GROUND, Model, is_planar
from eomlab.engine.rotations import EulerSequence, cross
from eomlab.engine.kinematics.layout import GimbalLock, JointLayout, KinematicState, path_matrix
from eomlab.engine.kinematics.planar_kinematics import PlanarKinematics
from eomlab.engine.kinematics.rates import KinematicEquations
from eomlab.engine.kinematics.spatial_kinematics import SpatialKinematics

__all__ = ["GimbalLock", "JointLayout", "KinematicState", "PlanarKinematics", "SpatialKinematics", "TreeKinematics",
           "choose_strategy", "path_matrix"]


def choose_strategy(tree: "TreeKinematics", model: Model):
    """The planar strategy for a planar model, the general one otherwise."""
    return PlanarKinematics(tree) if is_planar(model) else SpatialKinematics(tree)


class TreeKinematics(KinematicEquations):
    """Tree kinematics of a Model's bodies in joint coordinates: the topology, the kinematic
    equations (`KinematicEquations`) and, through the strategy, the state at (q, u)."""

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
                    euler=EulerSequence(j.sequence) if joint_type(j.type).orientation and not j.quaternion else None,
                    body_rates=j.speeds == "body" or j.quaternion,
                    quaternion=j.quaternion,
                    axis2=np.array(j.axis2, dtype=float),
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
        self.path_matrix = T = path_matrix(self.parent)
        self.speed_body = np.array([jl.body for jl in self.joints for _ in range(jl.u_slice.stop - jl.u_slice.start)], dtype=int)
        # moved[j, s]: speed s moves body j (its joint lies on j's path)
        self.moved = T[self.speed_body, :].T if self.n_u else np.zeros((nb, 0))
        self.strategy = choose_strategy(self, model)
        self.planar = isinstance(self.strategy, PlanarKinematics)

    # --- the state, in two stages: positions (q) then velocities (u) -------------------------

    def evaluate(self, q: np.ndarray, u: np.ndarray) -> KinematicState:
        return self.strategy.with_velocities(self.strategy.positions(np.asarray(q, dtype=float)),
                                             np.asarray(u, dtype=float))

    def positions(self, q: np.ndarray) -> KinematicState:
        """Poses and partial velocities at q; the velocity fields are those of u = 0."""
        return self.strategy.positions(np.asarray(q, dtype=float))

    def with_velocities(self, ks: KinematicState, u: np.ndarray) -> KinematicState:
        """The state at (q, u) from the positions stage at q (which it does not change)."""
        return self.strategy.with_velocities(ks, np.asarray(u, dtype=float))

    def poses(self, q: np.ndarray):
        """World rotation (nb, 3, 3) and hinge origin (nb, 3) of every body."""
        return self.strategy.poses(np.asarray(q, dtype=float))

    def com_positions(self, q: np.ndarray) -> np.ndarray:
        R, origin = self.poses(q)
        return origin + np.einsum("bij,bj->bi", R, self.com_body)

    # --- points fixed in a body ----------------------------------------------------------------

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
