"""What the tree kinematics hand around: where each joint's coordinates and speeds sit
(`JointLayout`), the poses, velocities and Jacobians of every body at one state
(`KinematicState`), the gimbal-lock error, and small row-gathering helpers."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.rotations import EulerSequence


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
    axis2: np.ndarray | None = None  # the second axis of a type that has one

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


def path_matrix(parent) -> np.ndarray:
    """T[k, i] = 1 when joint k lies on body i's path to the ground (parent[i] = -1: hangs from ground;
    parents come before children)."""
    nb = len(parent)
    T = np.zeros((nb, nb))
    for i in range(nb):
        k = i
        while k >= 0:
            T[k, i] = 1.0
            k = parent[k]
    return T


EYE3 = np.eye(3)
EYE3.flags.writeable = False


def with_fields(ks: KinematicState, **fields) -> KinematicState:
    """A shallow copy of `ks` with some fields replaced (dataclasses.replace validates and costs far more)."""
    new = object.__new__(KinematicState)
    new.__dict__.update(ks.__dict__)
    new.__dict__.update(fields)
    return new


def parent_values_complex(values: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """values[parent[i]] per body, 1 (no turn) where the parent is ground."""
    padded = np.ones(values.shape[0] + 1, dtype=complex)
    padded[:-1] = values
    return padded[parent]


def parent_values(values: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """values[parent[i]] per body for a 1-D array, 0 where the parent is ground."""
    padded = np.zeros(values.shape[0] + 1)
    padded[:-1] = values
    return padded[parent]


def parent_rows(values: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """values[parent[i]] per body, zeros where the parent is ground (index −1 → the zero row)."""
    padded = np.empty((values.shape[0] + 1, values.shape[1]))
    padded[:-1] = values
    padded[-1] = 0.0
    return padded[parent]
