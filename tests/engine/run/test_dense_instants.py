"""Simulation.watch_instants: the coordinates at origin + k·spacing from each step's dense output
(what the window draws between two samples, gui/runs/pacing.py)."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation


@pytest.mark.parametrize("integrator", ["DOP853", "RK45", "Radau", "RK4"])
def test_instants_lie_on_the_grid_and_equal_the_samples_where_both_are(integrator):
    sim = Simulation(preset("tumbling_box").with_settings(integrator=integrator, dt=0.005))
    sim.watch_instants(1 / 40, origin=0.005)
    rows = sim.advance(1.0)
    instants = sim.take_instants()
    times = np.array([t for t, _ in instants])
    k = np.round((times - 0.005) * 40)
    assert np.allclose(times, 0.005 + k / 40, atol=1e-12) and np.all(np.diff(k) == 1)
    assert times[0] == pytest.approx(0.005) and times[-1] <= sim.t + 1e-12 and sim.t - times[-1] < 1 / 40
    q = sim.state_columns[0]
    common = 0
    for t, q_t in instants:  # every 0.05 s an instant (0.03, 0.08, ...) falls on a sample (dt_out = 0.01)
        hit = np.flatnonzero(np.abs(rows[:, 0] - t) < 1e-9)
        if len(hit):
            common += 1
            assert np.allclose(rows[hit[0], q], q_t, atol=1e-12)  # the same dense output, no projection
    assert common >= 19
    assert sim.take_instants() == []  # taken once


def test_without_a_grid_nothing_is_kept():
    sim = Simulation(preset("simple_pendulum"))
    sim.advance(0.5)
    assert sim.take_instants() == []
    sim.watch_instants(0.1)
    sim.advance(1.0)
    assert [round(t, 9) for t, _ in sim.take_instants()][:3] == [0.6, 0.7, 0.8]  # from the run's time on
    sim.watch_instants(None)
    sim.advance(1.5)
    assert sim.take_instants() == []
