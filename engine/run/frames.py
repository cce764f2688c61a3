"""Frame: the drawable pose of every body at one instant, for any coordinate vector.

A window draws stored states (a sample row, the model's initial pose, a scrubbed instant) with
`Simulation.frame(q, t)` where it holds the run, `PoseMap(model, coordinates).frame(q, t)` where it
holds only the samples (the run lives in a worker), or `initial_frame(model)` before there is a run.
None of them integrates, projects or compiles anything; `assembled_frame(model)`, the pose a run of a
constrained model starts from, projects q0 onto the constraints first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from eomlab.engine.mechanics.absolute import to_absolute
from eomlab.engine.kinematics import TreeKinematics
from eomlab.engine.model import Model, initial_coordinates


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


#: at most this many instants are taken from one step's dense output (a very fine grid on a long step)
MAX_INSTANTS_PER_STEP = 10_000


class DenseInstants:
    """For `Simulation` (its `watch_instants`, `take_instants`): the integrated coordinates at the
    instants origin + k·spacing that each step passes, read from that step's dense output (DOP853,
    RK45, Radau, BDF, LSODA; RK4's cubic Hermite), so that a window can draw instants between the
    samples. `course`: the run's RunCourse (the formulation integrating now).

        sim.watch_instants(1 / 120)
        sim.advance(1.0)
        sim.take_instants()      # [(t, q), ...] for t = 1/120, 2/120, ... 1.0
    """

    def __init__(self, course):
        self.course = course
        self._grid: tuple[float, float] | None = None
        self._instants: list | None = None
        self._last = -math.inf

    def watch(self, spacing: float | None, origin: float, now: float) -> None:
        """From the next step after `now` on, keep the coordinates at origin + k·spacing (None: none)."""
        self._grid = None if spacing is None or not spacing > 0 else (float(spacing), float(origin))
        self._instants = [] if self._grid else None
        self._last = now

    def take(self) -> list[tuple[float, np.ndarray]]:
        """The (t, q) kept since the last call."""
        taken, self._instants = self._instants or [], [] if self._grid else None
        return taken

    def drop_after(self, t: float) -> None:
        """A run stopped at t within its last step (a gimbal lock): no instant after it."""
        if self._instants:
            self._instants = [(t_k, q) for t_k, q in self._instants if t_k <= t]

    def emit(self, st) -> None:
        """Keep the instants the step `st` just made passed."""
        if self._grid is None or st.t_old is None:
            return
        spacing, origin = self._grid
        start = max(st.t_old, self._last)
        k = math.floor((start - origin) / spacing) + 1
        f = self.course.formulation
        for _ in range(MAX_INSTANTS_PER_STEP):
            t_k = origin + k * spacing
            if t_k > st.t:
                break
            self._instants.append((t_k, f.state_to_qu(t_k, st.sample(t_k))[0]))
            self._last = t_k
            k += 1


def assembled_frame(model: Model) -> Frame:
    """The pose at t = 0 with q0 projected onto the model's constraints as a run does before its first
    step (engine.run.start_checks, least squares in the mass metric), in joint coordinates on the numpy
    path: about a millisecond for the four-bar, no pinocchio or numba (scipy.linalg only where q0 is off
    the constraints). A run in absolute coordinates projects in its own coordinates and may land a
    rounding apart. Without constraints, or where q0 cannot be made consistent (the run says why), the
    pose as given."""
    if not model.constraints:
        return initial_frame(model)
    from eomlab.engine.mechanics.system import MechanicalSystem
    from eomlab.engine.run.start_checks import consistent_initial_state

    try:
        system = MechanicalSystem(model, compiled=False)
        q0, _u0 = consistent_initial_state(system, [])
    except Exception:  # noqa: BLE001 - the run reports the model's problem; the picture falls back
        return initial_frame(model)
    return frame_at(system.kin, q0)
