"""The one planarity test (engine.model.is_planar): what it calls planar, and a model whose joint
frame flips z, which moves in a plane but turns the other way round and so runs in 3-D."""
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.model import is_planar
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

FLIP_Z = ((1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, -1.0))  # a half turn about x


def flipped_pendulum(q0: float = 0.5):
    """The compound pendulum hung from a joint frame turned half round x: revolute about the
    frame's z = world −z, so it swings in the x–y plane the other way round."""
    model = preset("planar_chain", n=1, kind="rod", angles=q0)
    body = model.bodies[0]
    return replace(model, bodies=(replace(body, joint=replace(body.joint, rotation=FLIP_Z)),))


@pytest.mark.parametrize("name", ["planar_chain", "double_compound_pendulum", "cart_pendulum", "four_bar",
                                  "knife_edge"])
def test_planar_presets_are_planar(name):
    assert is_planar(preset(name))


@pytest.mark.parametrize("name", ["spatial_chain", "heavy_top", "rolling_disk_leaning"])
def test_spatial_presets_are_not(name):
    assert not is_planar(preset(name))


def test_a_flipped_z_frame_is_not_planar_for_the_engine_nor_the_window():
    model = flipped_pendulum()
    assert not is_planar(model)
    sim = Simulation(model, t_end=0.5)
    assert not sim.system.kin.planar  # the kinematics take the 3-D path, as the window draws it


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_the_flipped_pendulum_is_the_mirror_of_the_plain_one(coordinates):
    """Turning +θ about −z is turning −θ about +z: the mass centre follows the plain pendulum started
    at −q0, and stays in the plane z = 0."""
    flipped = Simulation(flipped_pendulum(0.5), coordinates=coordinates, t_end=1.0, rtol=1e-10, atol=1e-10)
    plain = Simulation(preset("planar_chain", n=1, kind="rod", angles=-0.5), coordinates=coordinates,
                       t_end=1.0, rtol=1e-10, atol=1e-10)
    a, b = flipped.run(), plain.run()
    assert flipped.failure is None and plain.failure is None
    com_a, com_b = ([sim.column_index(f"link1.{c}") for c in "xyz"] for sim in (flipped, plain))
    assert np.allclose(a[:, com_a], b[:, com_b], atol=1e-8)
    assert np.max(np.abs(a[:, com_a[2]])) < 1e-9
