"""The energy balance of an edited run (engine/run/energy_account.py) and the model facts the window
puts into words (engine/model_facts.py)."""
from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import FORMULATIONS

from eomlab.engine.run.energy_account import EnergyAccount
from eomlab.engine.model_facts import model_facts
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation


def _account_of(sim: Simulation, edits: list[tuple[float, float]], forced: bool = False) -> EnergyAccount:
    """The account the window keeps: a stretch at the first sample and one per edit (t, E before)."""
    data = sim.samples()
    t, (E, T, V) = data[:, 0], (data[:, sim.column_index(c)] for c in ("E", "T", "V"))
    account = EnergyAccount()
    account.begin(t[0], E[0], T[0], V[0], forced)
    for t_edit, before in edits:
        k = int(np.flatnonzero(np.abs(t - t_edit) < 1e-9)[0])
        account.begin(t[k], E[k], T[k], V[k], forced, energy_before=before)
    return account


@pytest.mark.parametrize("method", FORMULATIONS)
def test_gravity_and_mass_changes_are_no_work_and_restart_the_drift(method):
    sim = Simulation(preset("four_bar"), method=method, rtol=1e-10, atol=1e-10)
    edits = []
    for t_stop, path, value in ((0.5, "gravity", [0, -3.0, 0]), (1.0, "bodies[1].mass", 4.0)):
        sim.advance(t_stop)
        edits.append((sim.samples()[-1, 0], sim.samples()[-1, sim.column_index("E")]))
        sim.set_parameter(path, value)
    sim.advance(1.5)
    data = sim.samples()
    energy = data[:, sim.column_index("E")]
    jump = np.max(np.abs(np.diff(energy)))
    assert jump > 10.0  # the edits did change E (by tens of joules)
    work, drift = _account_of(sim, edits).balance(data[:, 0], energy)
    assert np.all(work == 0.0)  # a conservative model: no work, whatever the edits
    assert np.nanmax(np.abs(drift)) < 1e-6  # each stretch from its own start (rtol 1e-10)
    for t_edit, _ in edits:  # and each restarts at zero
        assert drift[np.flatnonzero(np.abs(data[:, 0] - t_edit) < 1e-9)[0]] == 0.0


def test_a_forced_stretch_books_its_change_of_energy_as_work():
    """A pull on a conservative model from 1 s to 2 s: its ΔE is work, carried on after it."""
    account = EnergyAccount()
    account.begin(0.0, 10.0, 10.0, 0.0, False)
    account.begin(1.0, 10.0, 10.0, 0.0, True, energy_before=10.0)
    account.begin(2.0, 14.0, 14.0, 0.0, False, energy_before=13.5)  # closed by the sample before
    t = np.array([0.5, 1.5, 2.0, 3.0])
    work, drift = account.balance(t, np.array([10.0, 12.0, 14.0, 14.07]))
    np.testing.assert_allclose(work, [0.0, 2.0, 3.5, 3.5], atol=1e-15)
    assert np.isnan(drift[1]) and drift[2] == 0.0
    assert drift[3] == pytest.approx(0.07 / 14.0, abs=1e-15)


def test_going_back_forgets_later_stretches():
    account = EnergyAccount()
    account.begin(0.0, 1.0, 1.0, 0.0, False)
    account.begin(1.0, 3.0, 1.0, 2.0, False, energy_before=1.0)
    account.begin(1.0, 5.0, 1.0, 4.0, False, energy_before=3.0)  # the same sample edited again
    assert len(account.stretches) == 2 and account.stretches[-1].e0 == 5.0
    account.drop_after(0.5)
    assert len(account.stretches) == 1
    _, drift = account.balance(np.array([0.0, 2.0]), np.array([1.0, 1.5]))
    assert drift[1] == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize(("name", "coordinates", "rows", "independent", "conservative"), [
    ("four_bar", "joint", (2, 0, 0), 1, True),
    ("four_bar", "absolute", (8, 0, 0), 1, True),
    ("double_compound_pendulum", "joint", (0, 0, 0), 2, True),
    ("rolling_disk_leaning", "joint", (1, 2, 0), 3, True),
    ("acceleration_constraint_particle", "joint", (0, 0, 1), 2, True),
    ("driven_crank", "joint", (3, 0, 0), 0, False),
])
def test_model_facts(name, coordinates, rows, independent, conservative):
    facts = model_facts(preset(name), coordinates)
    assert (facts.holonomic_rows, facts.velocity_rows, facts.acceleration_rows) == rows
    assert facts.independent_speeds == independent
    assert facts.conservative is conservative
    assert facts.constrained is (sum(rows) > 0)


@pytest.mark.parametrize(("method", "says"), [("lagrange", "q̇ (3)"), ("maggi", "u (3)"), ("udwadia_kalaba", "u (3)"),
                                              ("kane", "independent speeds (1)"), ("gibbs_appell", "independent speeds (1)")])
def test_what_each_formulation_integrates_on_the_four_bar(method, says):
    """Maggi keeps holonomic rows at the acceleration level: it integrates all three speeds of the
    one-degree-of-freedom four-bar, and says so (it said "independent speeds (3)")."""
    assert says in Simulation(preset("four_bar"), method=method).stats["integrates"]
