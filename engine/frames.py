"""Frame: the drawable pose of every body at one instant, for any coordinate vector.

A window draws stored states (a sample row, the model's initial pose, a scrubbed instant) with
`Simulation.frame(q, t)` where it holds the run, `PoseMap(model, coordinates).frame(q, t)` where it
holds only the samples (the run lives in a worker), or `initial_frame(model)` before there is a run.
None of them integrates, projects or compiles anything.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .absolute import to_absolute
from .kinematics import TreeKinematics
from .model import Model, initial_coordinates


@dataclass(frozen=True)
class Frame:
    """World rotations (nb, 3, 3), hinge origins (nb, 3) and mass centres (nb, 3) of every body in
    the order of `model.bodies`, at time t."""

    t: float
    rotations: np.ndarray
    origins: np.ndarray
    mass_centres: np.ndarray


def frame_at(kin: TreeKinematics, q, t: float = 0.0) -> Frame:
    """The poses of the bodies of `kin` at coordinates q (in the coordinates `kin` was built in)."""
    q = np.asarray(q, dtype=float)
    if q.shape != (kin.n_q,):
        raise ValueError(f"expected {kin.n_q} coordinates, got shape {q.shape}")
    rotations, origins = kin.poses(q)
    mass_centres = origins + np.einsum("bij,bj->bi", rotations, kin.com_body)
    return Frame(float(t), rotations, origins, mass_centres)


class PoseMap:
    """The poses of a model's bodies for coordinate vectors of a run in `coordinates` ("joint" or
    "absolute"; default: the model's setting): the integrated coordinates of that run's samples
    (`row[sim.state_columns[0]]`; in absolute coordinates the poses, not the joint coordinates)."""

    def __init__(self, model: Model, coordinates: str | None = None):
        coordinates = coordinates or model.settings.coordinates
        self.kin = TreeKinematics(to_absolute(model)[0] if coordinates == "absolute" else model)

    def frame(self, q, t: float = 0.0) -> Frame:
        return frame_at(self.kin, q, t)


def initial_frame(model: Model) -> Frame:
    """The model's pose at t = 0 with q0 as given (joint coordinates; constraints not enforced)."""
    return frame_at(TreeKinematics(model), initial_coordinates(model))
