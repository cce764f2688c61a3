"""A mode shown moving: the poses q(t) = q* + a·Re(shape·e^{iωt}) about the state linearized about.

An oscillatory mode turns at its damped frequency |Im λ| (its growth or decay left out, so it
can be watched for as long as wanted); a real mode swings its shape to and fro once every two
seconds. The shape is the mode's δq in the model's coordinates, largest entry 1, so the amplitude
a is that coordinate's (rad or m).
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.run.frames import Frame, PoseMap
from eomlab.engine.model import Model
from eomlab.engine.linearize.linearization import Linearization

REAL_MODE_PERIOD = 2.0  # s: how a mode without oscillation is swung


class ModeMotion:
    def __init__(self, model: Model, lin: Linearization):
        self.poses = PoseMap(model, "joint")
        self.names = list(model.coordinate_names)
        self.linearization = lin
        self.q_star = np.array([lin.q[n] for n in self.names], float)

    def coordinates(self, mode: int, amplitude: float, t: float) -> np.ndarray:
        m = self.linearization.modes[mode]
        shape = np.array([m.shape.get(n, 0.0) for n in self.names], complex)
        w = abs(m.eigenvalue.imag)
        if w > 1e-9:
            return self.q_star + amplitude * np.real(shape * complex(math.cos(w * t), math.sin(w * t)))
        return self.q_star + amplitude * shape.real * math.sin(2 * math.pi * t / REAL_MODE_PERIOD)

    def frame(self, mode: int, amplitude: float, t: float) -> Frame:
        return self.poses.frame(self.coordinates(mode, amplitude, t), t)
