"""RunView (engine/run/run_view.py): what the window asks about a run held elsewhere. Its poses and
quantities at kept rows equal the run's own (1e-12), each row with the parameters in force at its
time once the run's history is taken; a history equal to the one held changes nothing."""
import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.engine.presets.planar_presets import simple_pendulum
from eomlab.engine.run.quantities import read_quantity
from eomlab.engine.simulation import RunView, Simulation


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_poses_and_forces_of_kept_rows_are_the_runs_own(method, coordinates):
    model = preset("double_compound_pendulum").with_settings(method=method, coordinates=coordinates)
    sim = Simulation(model, t_end=0.3)
    rows = sim.run()
    view = RunView(model, method=method)
    columns = (sim.state_columns[0].start, sim.state_columns[0].stop)
    for row in rows[[1, len(rows) // 2, -1]]:
        mine, theirs = view.frame(row, columns), sim.frame(row[sim.state_columns[0]], row[0])
        assert mine.t == row[0]
        np.testing.assert_allclose(mine.mass_centres, theirs.mass_centres, atol=1e-12)
        np.testing.assert_allclose(view.quantities().constraint_force_arrays(row).force,
                                   sim.constraint_force_arrays(row).force, atol=1e-12)


def test_the_history_taken_gives_each_row_its_parameters():
    """A mass change at the run's latest sample: rows before it are read with the old mass, after it with
    the new (the pivot's pull scales with the mass, 1e-12); the same history again changes nothing."""
    model = simple_pendulum(mass=1.5, theta0=1.0)
    sim = Simulation(model, t_end=1.0)
    sim.advance(0.5)
    sim.set_parameter("bodies[0].mass", 4.0)
    rows = sim.run()
    view = RunView(model)
    before, after = rows[rows[:, 0] < 0.45][-1], rows[-1]
    light = [view.quantities().joint_forces(row)[0] for row in (before, after)]
    assert view.take_history(sim.model_history()) and view.latest.bodies[0].mass == 4.0
    assert view.model_at(float(before[0])) is model  # the model it held, kept as the object known
    heavy = [view.quantities().joint_forces(row)[0] for row in (before, after)]
    np.testing.assert_allclose(heavy[0], light[0], atol=1e-12)
    np.testing.assert_allclose(heavy[1], 4.0 / 1.5 * light[1], rtol=1e-12)
    np.testing.assert_allclose(heavy[1], sim.joint_forces(after)[0], rtol=1e-12)
    held = view.models
    assert not view.take_history(sim.model_history()) and view.models is held


def test_initial_frame_is_the_models_pose_before_a_run():
    model = preset("planar_chain", n=3)
    sim = Simulation(model, t_end=0.1)
    first = sim.samples()[0]
    np.testing.assert_allclose(RunView.initial_frame(model).mass_centres,
                               sim.frame(first[sim.state_columns[0]]).mass_centres, atol=1e-12)


def test_quantities_are_read_by_name_and_an_unknown_name_is_refused():
    sim = Simulation(preset("double_compound_pendulum"), t_end=0.2)
    row = sim.run()[-1]
    np.testing.assert_allclose(read_quantity(sim.quantities, "mass_centre_velocities", row),
                               sim.mass_centre_velocities(row), atol=0)
    with pytest.raises(ValueError, match="no quantity named 'run'"):
        read_quantity(sim.quantities, "run", row)
