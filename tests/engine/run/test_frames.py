"""Poses for any stored state: Simulation.frame, PoseMap and initial_frame give the mass centres the
samples hold, in joint and absolute coordinates, without integrating anything."""
import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.engine.simulation import PoseMap, Simulation, initial_frame


def _mass_centres(sim, row):
    return row[[sim.column_index(f"{b}.{c}") for b in sim.system.body_names for c in "xyz"]].reshape(-1, 3)


@pytest.mark.parametrize("name, coordinates", [("double_compound_pendulum", "joint"), ("four_bar", "absolute"),
                                               ("heavy_top", "joint"), ("spatial_chain", "absolute")])
def test_frames_of_stored_samples_match_their_mass_centres(name, coordinates):
    sim = Simulation(preset(name), coordinates=coordinates, t_end=0.3)
    rows = sim.run()
    poses = PoseMap(preset(name), coordinates)
    for row in rows[[0, len(rows) // 2, -1]]:
        q = row[sim.state_columns[0]]
        for frame in (sim.frame(q, row[0]), poses.frame(q, row[0])):
            assert frame.t == row[0]
            assert np.allclose(frame.mass_centres, _mass_centres(sim, row), atol=1e-12)
            assert np.allclose(frame.rotations @ frame.rotations.transpose(0, 2, 1), np.eye(3), atol=1e-12)
    assert sim.t == rows[-1, 0]  # drawing changed nothing


def test_initial_frame_is_the_first_sample_of_an_unconstrained_model():
    model = preset("planar_chain", n=4)
    sim = Simulation(model, t_end=0.1)
    frame = initial_frame(model)
    assert np.allclose(frame.mass_centres, _mass_centres(sim, sim.samples()[0]), atol=1e-12)
    assert frame.rotations.shape == (4, 3, 3) and frame.origins.shape == (4, 3)


def test_a_coordinate_vector_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="expected 2 coordinates"):
        Simulation(preset("double_compound_pendulum")).frame(np.zeros(3))
