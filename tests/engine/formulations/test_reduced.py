"""The re-choice of independent speeds in coordinate partitioning (engine/formulations/reduced.py;
Wehage and Haug 1982, THEORY.md's reduced formulations): continuous and rare (issue 31).

At a re-choice the run goes on from (q, u_i') with u_i' the new independent speeds of the same u:
the motion handed on is the one reached, so q, u and the energy are the same before and after to
rounding. And a well-conditioned partition is kept: the benchmark bicycle in absolute coordinates
(the issue: four re-choices in 0.6 s, 2e-8 J each) keeps its first choice at rtol 1e-10.
"""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

RTOL = 1e-10
ROUNDING = 1e-12  # q, u and E before and after a re-choice agree to this, relative to their size
PARTITIONED = {"kane", "gibbs_appell"}  # the formulations that eliminate speeds by partitioning


def _energy(formulation, t, y):
    q, u = formulation.state_to_qu(t, y)
    system = formulation.system
    T, V = system.energy_at(system.kinematic_state(q, u), q, u, t)
    return T + V


def _rechoices(sim):
    """Wrap the formulation's state_changed: (q, u, E) before and after each re-choice, in a list."""
    f, seen = sim.formulation, []
    original = f.state_changed

    def state_changed(t, y):
        before, E_before = f.state_to_qu(t, y), _energy(f, t, y)  # read with the partition in force
        handed_on = original(t, y)
        if handed_on is not None:
            seen.append((before, f.state_to_qu(t, handed_on), E_before, _energy(f, t, handed_on)))
        return handed_on

    f.state_changed = state_changed
    return seen


@pytest.mark.parametrize("method", METHODS)
def test_a_rechoice_hands_on_the_same_motion(method):
    """The double pendulum in absolute coordinates re-chooses twice in 0.9 s (Kane, Gibbs–Appell): q, u
    and E the same before and after to 1e-12 (their jump was measured 0 to 7e-15 J at E = 16.3 J)."""
    sim = Simulation(preset("double_pendulum_absolute"), method=method, coordinates="absolute",
                     rtol=RTOL, atol=RTOL, t_end=0.9)
    seen = _rechoices(sim)
    sim.run()
    assert sim.failure is None
    assert sim.stats["repartitions"] == len(seen)
    assert (len(seen) >= 1) == (method in PARTITIONED), f"{method}: {len(seen)} re-choices"
    for (q0, u0), (q1, u1), E0, E1 in seen:
        assert np.max(np.abs(q1 - q0)) <= ROUNDING * max(1.0, np.max(np.abs(q0)))
        assert np.max(np.abs(u1 - u0)) <= ROUNDING * max(1.0, np.max(np.abs(u0)))
        assert abs(E1 - E0) <= ROUNDING * abs(E0)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("method", METHODS)
def test_the_benchmark_bicycle_keeps_its_partition(method, coordinates):
    """0.6 s at rtol 1e-10: no re-choice, and the energy (2010 J) constant to rtol (measured ≤ 2e-10 J)."""
    sim = Simulation(preset("benchmark_bicycle"), method=method, coordinates=coordinates,
                     rtol=RTOL, atol=RTOL, t_end=0.6)
    samples = sim.run()
    E = samples[:, sim.column_index("E")]
    assert sim.failure is None and sim.stats["repartitions"] == 0
    assert np.max(np.abs(E - E[0])) <= RTOL * abs(E[0])
