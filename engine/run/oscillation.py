"""The period and amplitude of an oscillating coordinate, measured from its samples, and the
small-oscillation period a one-degree-of-freedom model predicts.

Measured: the level half-way between the samples' extremes is the centre; the times where the
coordinate crosses it upwards (linear interpolation between samples) are one period apart; the
period is the mean spacing of the latest crossings and the amplitude half the swing (maximum −
minimum) between the last two.

Predicted: about the stable equilibrium q* (the minimum of V), T₀ = 2π √(M(q*) / V''(q*)) — for a
simple pendulum 2π √(l/g), for a compound one 2π √(I_O / (m g d)).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from eomlab.engine.model import Model
from eomlab.engine.mechanics.system import build_system

#: crossings used for the measured period (the latest; fewer when the run has fewer)
CROSSINGS = 6
#: the samples' swing must exceed this (in the coordinate's units) to count as an oscillation
MIN_SWING = 1e-9


@dataclass(frozen=True)
class Oscillation:
    period: float  # s
    amplitude: float  # half the swing, in the coordinate's units
    centre: float
    cycles: int  # full periods the measurement averages


def measure_oscillation(t, x, crossings: int = CROSSINGS) -> Oscillation | None:
    """The period and amplitude of the samples x(t); None with fewer than one full period."""
    t, x = np.asarray(t, float), np.asarray(x, float)
    keep = np.isfinite(t) & np.isfinite(x)
    t, x = t[keep], x[keep]
    if x.size < 3 or float(np.ptp(x)) <= MIN_SWING:
        return None
    centre = 0.5 * (float(np.max(x)) + float(np.min(x)))
    s = x - centre
    up = np.flatnonzero((s[:-1] < 0.0) & (s[1:] >= 0.0))
    if up.size < 2:
        return None
    times = t[up] - s[up] * (t[up + 1] - t[up]) / (s[up + 1] - s[up])
    times = times[-(crossings + 1):] if crossings > 0 else times
    last = slice(up[-2], up[-1] + 2)
    amplitude = 0.5 * float(np.ptp(x[last]))
    return Oscillation(float(np.mean(np.diff(times))), amplitude, centre, int(times.size - 1))


def small_oscillation_period(model: Model) -> float | None:
    """T₀ = 2π √(M/V'') about the stable equilibrium of a model with one coordinate and no
    constraints; None for others or when there is no stable equilibrium."""
    system = build_system(model, model.settings.coordinates)
    if system.n_q != 1 or system.n_u != 1 or system.constraints is not None:
        return None

    def potential(q: float) -> float:
        return system.energy(0.0, np.array([q]), np.zeros(1))[1]

    q0 = float(system.q0[0])
    grid = q0 + np.linspace(-math.pi, math.pi, 721)
    values = [potential(q) for q in grid]
    k = int(np.argmin(values))
    if k in (0, len(grid) - 1):
        return None  # V falls off the searched range: no minimum within it
    from scipy.optimize import minimize_scalar  # loads when first needed, not with the run

    best = minimize_scalar(potential, bracket=(grid[k - 1], grid[k], grid[k + 1]), tol=1e-12)
    q_star = float(best.x)
    h = 1e-2 * max(1.0, abs(q_star))  # a five-point stencil: truncation ~h⁴, round-off ~ε/h²
    f = [potential(q_star + k * h) for k in (-2, -1, 0, 1, 2)]
    stiffness = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * h**2)
    inertia = float(system.mass_matrix(np.array([q_star]))[0, 0])
    if not stiffness > 0.0 or not inertia > 0.0:
        return None
    return 2 * math.pi * math.sqrt(inertia / stiffness)
