"""StateContext: what force elements and constraint rows read at one state of a system."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.kinematics import KinematicState


@dataclass
class StateContext:
    """One state (t, q, u) with what is derived from it once and shared by every reader."""

    t: float
    q: np.ndarray
    u: np.ndarray
    qd: np.ndarray  # coordinate rates, q_dot = W u
    W: np.ndarray | None  # q_dot = W u (None: the speeds are the rates)
    ks: KinematicState  # poses, velocities and Jacobians of every body at (q, u)
