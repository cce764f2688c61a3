"""Loop closures on the compiled path (engine.compiled.point_rows) against the numpy path's constraint
kinds (engine.constraints.geometric), at random states: A, b, Φ and the velocity residual, by
`evaluate` and by `evaluate_split` + `rows_at`, alone and stacked with other kinds (joints as rows in
absolute coordinates). Tolerance: 1e-11 relative to max(1, max |x|)."""
import numpy as np
import pytest

from eomlab.engine.compiled.point_rows import PointRowSet
from eomlab.engine.constraints import ConstraintSet
from eomlab.engine.mechanics.system import build_system
from eomlab.engine.presets import preset

from four_bar_chain import four_bar_chain

REL = 1e-11
MODELS = {
    "four_bar": lambda: preset("four_bar"),
    "chain_of_3_four_bars": lambda: four_bar_chain(3),
    "cartesian_pendulum": lambda: preset("cartesian_pendulum"),  # a distance row on planar joints
    "spherical_pendulum_cartesian": lambda: preset("spherical_pendulum_cartesian"),
}
CASES = [(name, "joint") for name in sorted(MODELS)] + [("four_bar", "absolute"), ("chain_of_3_four_bars", "absolute")]


def _close(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, what
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    assert np.max(np.abs(a - b), initial=0.0) <= REL * scale, what


def _same_rows(fast, slow):
    for field in ("A", "b", "position", "velocity", "c"):
        _close(getattr(fast, field), getattr(slow, field), field)
    for field in ("level", "owner", "velocity_rows", "linear_rows"):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field


@pytest.mark.parametrize("name, coordinates", CASES)
def test_point_rows_match_the_numpy_kinds(name, coordinates, monkeypatch):
    pytest.importorskip("pinocchio")
    model = MODELS[name]()
    fast_system = build_system(model, coordinates)
    monkeypatch.setenv("EOMLAB_FAST_PATH", "0")
    slow_system = build_system(model, coordinates)
    if not fast_system.compiled:
        pytest.skip(fast_system.dynamics_path)
    assert isinstance(fast_system.constraints, PointRowSet)
    assert type(slow_system.constraints) is ConstraintSet
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = fast_system.q0 + 0.1 * rng.standard_normal(fast_system.n_q)
        u = rng.uniform(-1.0, 1.0, fast_system.n_u)
        slow = slow_system.constraints.evaluate(slow_system.dynamics(0.3, q, u))
        _same_rows(fast_system.constraints.evaluate(fast_system.dynamics(0.3, q, u)), slow)
        zero = fast_system.dynamics(0.3, q, np.zeros(fast_system.n_u))
        split = fast_system.constraints.evaluate_split(zero)
        _same_rows(split.rows, slow_system.constraints.evaluate(slow_system.dynamics(0.3, q, np.zeros(fast_system.n_u))))
        _same_rows(fast_system.constraints.rows_at(split, fast_system.dynamics(0.3, q, u)), slow)


@pytest.mark.parametrize("name, coordinates", [("rolling_disk_leaning", "joint"), ("double_pendulum_absolute", "absolute")])
def test_other_kinds_keep_the_general_rows(name, coordinates):
    """A set without coincident and distance rows (rolling, joints as rows) stays the general one."""
    system = build_system(preset(name), coordinates)
    assert type(system.constraints) is ConstraintSet
