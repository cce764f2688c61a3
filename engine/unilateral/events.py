"""Events located on the integrator's dense output: a row closing, a resting row letting go.

After each accepted step [t₀, t₁] the gaps of the open rows (and the forces of the resting rows)
are read from the step's dense output at GRID + 1 instants. A row closes where its gap first goes
below −PENETRATION after being ≥ 0; the instant where the gap is 0 is then found by Brent's method
on the dense output to EVENT_XTOL. A resting row lets go where its force λ (engine.unilateral.impacts)
goes below −force tolerance, located likewise where λ = 0. The earliest event cuts the step: the
run samples the dense output up to it and restarts the integrator there with the state after it,
so no step straddles an event (as pushes do, engine.run.run_edits).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.unilateral.impacts import TOUCHING_GAP, Tolerances, resting_forces
from eomlab.engine.unilateral.gap_rows import UnilateralRows

GRID = 8
#: a gap below this (m or rad) is a real crossing, not rounding around a touching row
PENETRATION = 1e-12
#: the event instants to within this (s)
EVENT_XTOL = 1e-13
#: finer grids looked at within a first cell (each GRID times finer)
MAX_REFINE = 12


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
    """The first instant where a row's value crosses its value at t₀ (or 0, if above) downwards and
    goes on to `below` under it: a grid cell [t_a, t_b] above at t_a and not at t_b, refined by
    Brent's method. Measured from the value at t₀ when that is slightly below 0 (touching after an
    impact, within TOUCHING_GAP), so the small error of the last location does not grow. A row that
    touches at t₀ and is above only early in the first cell (a tiny bounce) has that cell looked at
    on finer grids. A row deeper than TOUCHING_GAP at t₀ (started so) can only come out: None."""
    if values[0] < -TOUCHING_GAP:
        return None
    offset = min(float(values[0]), 0.0)
    h = values - offset
    deep = np.flatnonzero(h < -below)
    if deep.size == 0:
        return None
    j = int(deep[0])
    above = np.flatnonzero(h[:j] > 0.0)
    if above.size:
        a = int(above[-1])
        return _root(value_at, offset, times[a], times[a + 1])
    t_lo, t_hi = times[0], times[1]
    for _ in range(MAX_REFINE):  # h ≤ 0 up to j: above 0 only very early, if at all?
        fine = np.linspace(t_lo, t_hi, GRID + 1)
        hv = np.array([value_at(t) - offset for t in fine[1:]])
        up = np.flatnonzero(hv > 0.0)
        if up.size:
            after = np.flatnonzero(hv[up[0]:] <= 0.0)
            if after.size:
                k = int(up[0] + after[0])  # hv[k] ≤ 0 follows hv[k − 1] > 0
                return _root(value_at, offset, fine[k], fine[k + 1])
            break
        t_hi = fine[1]
    # never above: it went on closing from t₀; the event where it is `below` under its start
    return _root(value_at, offset - below, times[max(j - 1, 0)], times[j])


def _root(value_at, level: float, lo: float, hi: float) -> float:
    from scipy.optimize import brentq  # loads when first needed, not with the run

    return float(brentq(lambda t: value_at(t) - level, lo, hi, xtol=EVENT_XTOL, rtol=4 * np.finfo(float).eps))
