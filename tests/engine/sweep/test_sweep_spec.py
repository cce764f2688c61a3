"""The sweep description: values, modes, names, and the run table."""
import numpy as np
import pytest

from eomlab.engine.model import ModelError
from eomlab.engine.modelfile import load_model
from eomlab.engine.presets import preset
from eomlab.engine.sweep.members import members
from eomlab.engine.sweep.spec import make_sweep

from sweep_helpers import DOUBLE


@pytest.fixture(scope="module")
def model():
    return load_model(DOUBLE)


def test_grid_is_every_combination_in_order(model):
    s = make_sweep(model, ["upper_theta=0:1:3", "lower_theta_dot=5,6"], ["final"])
    table = s.run_table()
    assert s.n_runs == 6
    assert table["upper_theta"].tolist() == [0, 0, 0.5, 0.5, 1, 1]
    assert table["lower_theta_dot"].tolist() == [5, 6, 5, 6, 5, 6]
    # a slice of the table is the same rows as the whole table's
    part = s.run_table(2, 5)
    assert part["run"].tolist() == [2, 3, 4] and part["upper_theta"].tolist() == [0.5, 0.5, 1]


def test_list_mode_pairs_the_values_and_wants_equal_lengths(model):
    s = make_sweep(model, ["upper_theta=1,2,3", "lower_theta=4,5,6"], ["final"], mode="list")
    assert s.n_runs == 3 and s.run_table()["lower_theta"].tolist() == [4, 5, 6]
    one = make_sweep(model, ["upper_theta=1,2,3", "tol=1e-9"], ["final"], mode="list")
    assert one.n_runs == 3 and one.run_table(1, 3)["tol"].tolist() == [1e-9, 1e-9]
    with pytest.raises(ModelError, match="lists of one length"):
        make_sweep(model, ["upper_theta=1,2,3", "lower_theta=4,5"], ["final"], mode="list")


def test_random_mode_is_reproducible_from_its_seed_and_stays_in_range(model):
    a = make_sweep(model, ["upper_theta=-1:2", "tol=1e-10:1e-6"], ["final"], mode="random", samples=500, seed=7)
    b = make_sweep(model, ["upper_theta=-1:2", "tol=1e-10:1e-6"], ["final"], mode="random", samples=500, seed=7)
    ta, tb = a.run_table(), b.run_table()
    np.testing.assert_array_equal(ta["upper_theta"], tb["upper_theta"])
    assert -1 <= ta["upper_theta"].min() and ta["upper_theta"].max() <= 2
    assert 1e-10 <= ta["tol"].min() and ta["tol"].max() <= 1e-6
    # tolerances are drawn evenly in their logarithm: about half below 1e-8
    assert 0.4 < np.mean(ta["tol"] < 1e-8) < 0.6
    np.testing.assert_array_equal(a.run_table(100, 200)["upper_theta"], ta["upper_theta"][100:200])


def test_tolerance_ranges_are_spaced_in_the_logarithm(model):
    s = make_sweep(model, ["rtol=1e-4:1e-10:4"], ["final"])
    np.testing.assert_allclose(s.varies[0].values, [1e-4, 1e-6, 1e-8, 1e-10])


def test_parameters_settings_and_initial_state_reach_each_run(model):
    s = make_sweep(model, ["bodies[1].mass=2,3", "gravity=5", "method=lagrange", "tol=1e-7", "upper_theta=0.25"],
                   ["final"], t_end=1.5)
    runs, reasons = members(s, s.run_table())
    assert reasons == ["", ""]
    m = runs[1].model
    assert m.bodies[1].mass == 3 and np.isclose(np.linalg.norm(m.gravity), 5) and m.gravity[1] < 0
    assert (m.settings.method, m.settings.rtol, m.settings.atol, m.settings.t_end) == ("lagrange", 1e-7, 1e-7, 1.5)
    assert runs[0].q0[0] == 0.25 and runs[0].q0[1] == model.bodies[1].joint.q0[0]


def test_columns_are_named_as_given(model):
    s = make_sweep(model, ["upper_theta=0:1:2"], ["final:lower_theta", "flip_time:upper_theta", "end:upper_theta*2"])
    assert s.columns == ("run", "upper_theta", "final:lower_theta", "flip_time:upper_theta", "end:upper_theta*2",
                         "engine", "failure")


def test_a_chain_varies_by_its_own_names():
    chain = preset("planar_chain", n=3)
    s = make_sweep(chain, ["link2_theta=0:1:2"], ["final"])
    assert "final:link3_theta_dot" in s.columns
