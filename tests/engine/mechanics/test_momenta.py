"""Velocities and angular momenta of the bodies (engine.mechanics.momenta) in world axes.

Tolerances: H_G = R (I ω_body) to 1e-12; the heavy top's vertical angular momentum about its
fixed point is conserved along a run at rtol = atol = 1e-12 to 1e-8; v_G matches the mass-centre
columns' finite differences to the difference's own error."""
import numpy as np
import pytest

from eomlab.engine.presets import heavy_top, planar_chain
from eomlab.engine.simulation import Simulation

TIGHT = dict(rtol=1e-12, atol=1e-12)


def test_heavy_top_angular_momentum_is_its_inertia_times_omega_in_the_world(method):
    model = heavy_top()
    sim = Simulation(model, method=method, t_end=0.5)
    sim.advance(0.5)
    row = sim.samples()[-1]
    q, omega_body = row[1:4], row[4:7]  # zxz angles and body rates (the model's speeds)
    R = sim.frame(q).rotations[0]
    expected = R @ (np.array(model.bodies[0].inertia) @ omega_body)
    assert np.max(np.abs(sim.angular_momenta()[0] - expected)) < 1e-12
    assert np.max(np.abs(sim.angular_velocities()[0] - R @ omega_body)) < 1e-12


def test_heavy_top_vertical_angular_momentum_about_the_tip_is_conserved(method):
    """Gravity's moment about the fixed tip is horizontal: H_z about the tip stays; about the mass
    centre it does not (the tip's force has a moment there)."""
    sim = Simulation(heavy_top(), method=method, t_end=1.0, **TIGHT)
    rows = sim.run()
    assert sim.failure is None, sim.failure
    about_tip = np.array([sim.angular_momenta(row, about=[0.0, 0.0, 0.0])[0, 2] for row in rows[::10]])
    about_centre = np.array([sim.angular_momenta(row)[0, 2] for row in rows[::10]])
    assert np.max(np.abs(about_tip - about_tip[0])) < 1e-8
    assert np.ptp(about_centre) > 1e-4


def test_mass_centre_velocities_are_the_rates_of_the_mass_centres():
    sim = Simulation(planar_chain(3), t_end=0.5, **TIGHT)
    rows = sim.run()
    k = 25
    names = sim.system.body_names
    columns = [[sim.column_index(f"{n}.{a}") for a in "xyz"] for n in names]
    h = rows[k + 1, 0] - rows[k, 0]
    for b, cols in enumerate(columns):
        slope = (rows[k + 1, cols] - rows[k - 1, cols]) / (2 * h)
        assert np.max(np.abs(sim.mass_centre_velocities(rows[k])[b] - slope)) < 1e-3
    assert np.allclose(sim.angular_velocities(rows[k])[:, :2], 0.0)
    assert sim.angular_momenta(rows[k]).shape == (3, 3)


@pytest.mark.parametrize("about", [None, [1.0, -2.0, 0.5]])
def test_momenta_about_a_point_shift_by_the_moment_of_the_linear_momentum(about):
    sim = Simulation(heavy_top(), t_end=0.1)
    sim.advance(0.1)
    H = sim.angular_momenta(about=about)
    v, G = sim.mass_centre_velocities(), sim.samples()[-1][[sim.column_index(f"top.{a}") for a in "xyz"]]
    shift = np.zeros(3) if about is None else np.cross(G - np.array(about), 1.0 * v[0])
    assert np.max(np.abs(H[0] - sim.angular_momenta()[0] - shift)) < 1e-12
