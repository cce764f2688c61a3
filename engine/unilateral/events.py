"""Events located on the integrator's dense output: a row closing, a resting row letting go.

After each accepted step [t₀, t₁] the gaps of the open rows (and the forces of the resting rows)
are read from the step's dense output at GRID + 1 instants. A row closes where its gap first goes
below −PENETRATION after being ≥ 0; the instant where the gap is 0 is then found by Brent's method
on the dense output to EVENT_XTOL. A resting row lets go where its force λ (engine.unilateral.impacts)
goes below −force tolerance, located likewise where λ = 0. The earliest event cuts the step: the
run samples the dense output up to it and restarts the integrator there with the state after it,
so no step straddles an event (as pushes do, engine.run_edits).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from .impacts import Tolerances, resting_forces
from .rows import UnilateralRows

GRID = 8
#: a gap below this (m or rad) is a real crossing, not rounding around a touching row
PENETRATION = 1e-12
#: the event instants to within this (s)
EVENT_XTOL = 1e-13


@dataclass
class Event:
    t: float
    y: np.ndarray
    kind: str  # "impact" or "release"
    row: int


class CutStep:
    """The accepted step seen up to the event: what the run's sampling reads (t, y, t_old, sample)."""

    def __init__(self, stepper, event: Event):
        self._stepper, self.t, self.y, self.t_old = stepper, event.t, event.y, stepper.t_old

    def sample(self, t: float) -> np.ndarray:
        return self._stepper.sample(min(t, self.t))


def _gaps(f, rows: UnilateralRows, t: float, y: np.ndarray) -> np.ndarray:
    q, u = f.state_to_qu(t, y)
    return rows.evaluate(f.system.dynamics(t, q, u), bias=False).g


def first_event(f, rows: UnilateralRows, resting: np.ndarray, tol: Tolerances, st) -> Event | None:
    """The earliest event within the stepper's last step, or None."""
    t0, t1 = st.t_old, st.t
    if t0 is None or not t1 > t0:
        return None
    times = np.linspace(t0, t1, GRID + 1)
    states = [st.sample(t) for t in times[:-1]] + [np.asarray(st.y, float)]
    open_rows = np.setdiff1d(np.arange(len(rows)), resting)
    best: Event | None = None
    if open_rows.size:
        gaps = np.array([_gaps(f, rows, t, y)[open_rows] for t, y in zip(times, states)])
        for col, i in enumerate(open_rows):
            found = _crossing(times, gaps[:, col], PENETRATION, lambda t, i=i: _gaps(f, rows, t, st.sample(t))[i])
            if found is not None and (best is None or found < best.t):
                best = Event(found, st.sample(found), "impact", int(i))
    if resting.size:
        forces = np.array([resting_forces(f, rows, resting, t, y) for t, y in zip(times, states)])
        for col, i in enumerate(resting):
            found = _crossing(times, forces[:, col], tol.force,
                              lambda t, col=col: resting_forces(f, rows, resting, t, st.sample(t))[col])
            if found is not None and (best is None or found < best.t):
                best = Event(found, st.sample(found), "release", int(i))
    return best


def _crossing(times: np.ndarray, values: np.ndarray, below: float, value_at) -> float | None:
    """The first instant where `values` crosses 0 downwards and goes on below −`below`: a grid cell
    [t_a, t_b] with value ≥ 0 at t_a and < 0 at t_b before that point, refined by Brent's method.
    A row already below 0 at t₀ (touching after an impact) counts from where it first is ≥ 0, or,
    never there, from its crossing of −`below`."""
    deep = np.flatnonzero(values < -below)
    if deep.size == 0:
        return None
    j = int(deep[0])
    shift = 0.0
    above = np.flatnonzero(values[:j] >= 0.0)
    if above.size == 0:
        if j == 0:
            return None  # below at the start (started so): it can only come out
        shift = below
        above = np.flatnonzero(values[:j] + shift >= 0.0)
        if above.size == 0:
            return None
    a = int(above[-1])  # the last instant before j at or above 0: the next one is below
    lo, hi = times[a], times[a + 1]
    return float(brentq(lambda t: value_at(t) + shift, lo, hi, xtol=EVENT_XTOL, rtol=4 * np.finfo(float).eps))
