"""The bodies' kinematic state on the compiled path: the fields of engine.kinematics'
KinematicState, from pinocchio's joint Jacobians and their time variation (engine.compiled.tree_backend),
each group formed the first time a reader asks for it.

With J the world twist columns of the speeds (the angular axis ω_s and the velocity v_O,s of the
body-fixed point at the world origin) and moved[b, s] = 1 when speed s moves body b:

    ω_b = Σ_s moved ω_s u_s,        v_P = Σ_s moved (v_O,s + ω_s × P) u_s,
    a_P at u̇ = 0:  a_O + α_b × P + ω_b × v_P,   (a_O, α_b) = Σ_s moved J̇_s u_s,

the last because the world twist's rate is that of a body-fixed point at the origin. Constraint
rows and force elements read this state exactly as the numpy one (`kin.point_jacobian` takes the
speeds' twist point as the world origin: speed_origin = 0), so no kind has two implementations.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.kinematics.spatial_kinematics import partial_velocities
from eomlab.engine.rotations import cross

_POSES = ("R", "origin", "com", "axis_w", "axis_v", "speed_origin", "_columns")
_JACOBIANS = ("J_w", "J_v")
_VELOCITIES = ("omega", "v_com")
_BIASES = ("alpha_bias", "a_bias")
_GROUP = {**dict.fromkeys(_POSES, "_poses"), **dict.fromkeys(_JACOBIANS, "_jacobians"),
          **dict.fromkeys(_VELOCITIES, "_velocities"), **dict.fromkeys(_BIASES, "_biases")}


class CompiledKinematicState:
    """KinematicState's fields at (q, u) on a PinocchioTree (u None: the positions stage, whose
    velocity fields are those of u = 0); a field's group is formed on its first read."""

    def __init__(self, tree, q_pin: np.ndarray, u: np.ndarray | None):
        self._tree, self._q_pin, self._u = tree, q_pin, u

    def __getattr__(self, name):  # only for fields not yet formed
        group = _GROUP.get(name)
        if group is None:
            raise AttributeError(name)
        getattr(self, group)()
        return self.__dict__[name]

    def with_velocities(self, u: np.ndarray) -> "CompiledKinematicState":
        """The state at (q, u), sharing what this positions stage has formed."""
        state = CompiledKinematicState(self._tree, self._q_pin, u)
        formed = self.__dict__
        state.__dict__.update({k: formed[k] for k in _POSES + _JACOBIANS if k in formed})
        return state

    def _poses(self):
        tree = self._tree
        R, origin, columns = tree.poses_and_axes(self._q_pin)
        self.R, self.origin, self._columns = R, origin, columns
        self.axis_v, self.axis_w = columns[:, :3], columns[:, 3:]
        self.com = origin + (R @ tree.kin.com_body[:, :, None])[:, :, 0]
        self.speed_origin = np.zeros_like(self.axis_w)

    def _jacobians(self):
        self.J_w, self.J_v = partial_velocities(self.axis_w, self.axis_v, self.speed_origin, self.com,
                                                self._tree.kin.moved)

    def _velocities(self):
        u = self._u
        if u is None:
            self.omega = self.v_com = np.zeros((self._tree.kin.n_bodies, 3))
            return
        twists = self._tree.kin.moved @ (self._columns * u[:, None])  # (v_O, ω) of every body
        self.omega = twists[:, 3:]
        self.v_com = twists[:, :3] + cross(self.omega, self.com)

    def _biases(self):
        if self._u is None:
            self.alpha_bias = self.a_bias = np.zeros((self._tree.kin.n_bodies, 3))
            return
        rates = self._tree.bias_twists(self._q_pin, self._u)
        self.alpha_bias = rates[:, 3:]
        self.a_bias = rates[:, :3] + cross(self.alpha_bias, self.com) + cross(self.omega, self.v_com)
