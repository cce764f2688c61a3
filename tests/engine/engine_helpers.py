"""Helpers shared by the engine tests (a unique module name: tests/gui has a conftest too)."""
import numpy as np

from eomlab.engine.methods import METHODS
from eomlab.engine.simulation import Simulation

FORMULATIONS = list(METHODS)


def run(model, method, **settings):
    """Run to t_end; return (simulation, samples) and fail loudly if the run stopped early."""
    sim = Simulation(model, method=method, **settings)
    rows = sim.run()
    assert sim.failure is None, sim.failure
    return sim, rows


def column(sim, rows, name):
    return rows[:, sim.column_index(name)]


def crossing_times(t, values, direction=0, fit_points=7):
    """Times where `values` crosses zero, located by a local polynomial fit (no extra runs).

    With samples every 0.01 s of a smooth signal a degree-6 fit is accurate far below 1e-10.
    """
    out = []
    half = fit_points // 2
    for k in range(1, len(values)):
        a, b = values[k - 1], values[k]
        if a == 0 or a * b > 0:
            continue
        if direction > 0 and not a < b:
            continue
        if direction < 0 and not a > b:
            continue
        lo, hi = max(0, k - half), min(len(values), k + half + 1)
        if hi - lo < fit_points:
            continue
        tt, vv = t[lo:hi], values[lo:hi]
        centre = 0.5 * (t[k - 1] + t[k])
        poly = np.polynomial.Polynomial.fit(tt - centre, vv, fit_points - 1)
        roots = [r.real + centre for r in poly.roots() if abs(r.imag) < 1e-9 and t[k - 1] - 1e-12 <= r.real + centre <= t[k] + 1e-12]
        out.append(roots[0])
    return np.array(out)
