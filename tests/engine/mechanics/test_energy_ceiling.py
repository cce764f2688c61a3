"""engine.mechanics.energy_ceiling: how high each mass centre can rise with the model's energy —
closed forms, a run that never passes its ceiling, and the models where no such bound holds."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.mechanics.energy_ceiling import mass_centre_ceilings
from eomlab.engine.modelfile import load_model
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from project_paths import ROOT

MODELS = ROOT / "assets" / "models"


def test_a_pendulum_rises_to_where_it_started_at_rest():
    """The simple pendulum of the assets (1 m, 1 kg, at rest at 2.5 rad from hanging): −cos 2.5, to 1e-12."""
    ceilings = mass_centre_ceilings(load_model(MODELS / "simple_pendulum.eom.json"))
    assert ceilings == {"bob": pytest.approx(-math.cos(2.5), abs=1e-12)}


def test_every_cradle_ball_can_rise_only_as_high_as_the_ball_let_go():
    """Five 1 m pendulums, one let go at 0.6 rad: whichever ball takes the energy rises to 1 − cos 0.6
    above the hanging height (−1 m), to 1e-12."""
    ceilings = mass_centre_ceilings(load_model(MODELS / "newtons_cradle.eom.json"))
    assert len(ceilings) == 5
    for height in ceilings.values():
        assert height == pytest.approx(-math.cos(0.6), abs=1e-12)


def test_no_mass_centre_of_a_run_passes_its_ceiling():
    """The double compound pendulum over 5 s (kane, rtol 1e-10): every sampled mass-centre height below
    its ceiling (to 1e-9 m)."""
    model = preset("double_compound_pendulum")
    ceilings = mass_centre_ceilings(model)
    sim = Simulation(model.with_settings(rtol=1e-10, atol=1e-10, t_end=5.0))
    rows = np.asarray(sim.run())
    n = len(model.bodies)
    heights = np.array([[sim.system.energy_and_centres(r[1:1 + n], r[1 + n:1 + 2 * n])[2][k, 1] for k in range(n)]
                        for r in rows])
    for k, body in enumerate(model.bodies):
        assert np.max(heights[:, k]) <= ceilings[body.name] + 1e-9


def test_no_bound_where_energy_can_come_in_or_a_joint_slides():
    """A prescribed motion (work done on the model), a sliding joint, no gravity: None."""
    assert mass_centre_ceilings(load_model(MODELS / "driven_crank.eom.json")) is None
    assert mass_centre_ceilings(load_model(MODELS / "bouncing_ball.eom.json")) is None  # planar joint: slides
    assert mass_centre_ceilings(load_model(MODELS / "cart_pendulum.eom.json")) is None  # the cart slides
    no_gravity = replace(preset("double_compound_pendulum"), gravity=(0.0, 0.0, 0.0))
    assert mass_centre_ceilings(no_gravity) is None


@pytest.mark.parametrize("mass, gravity", [(5e-324, 1e-3), (1e-320, 9.81)])
def test_a_weight_below_the_smallest_float_has_no_ceiling_and_warns_nothing(mass, gravity):
    """Issue 31's monkey (double pendulum in compare mode, seed 22): a mass near the smallest float
    under a tiny gravity made m |g| = 0, and the ceiling's division warned. No bound is drawn then."""
    model = preset("double_compound_pendulum")
    bodies = (replace(model.bodies[0], mass=mass), *model.bodies[1:])
    model = replace(model, bodies=bodies, gravity=(0.0, -gravity, 0.0))
    with np.errstate(divide="raise", over="raise", invalid="raise"):  # what numpy warns of (not underflow)
        ceilings = mass_centre_ceilings(model)
    assert ceilings is not None and ceilings[model.bodies[0].name] == math.inf
    assert all(math.isfinite(c) or c == math.inf for c in ceilings.values())
