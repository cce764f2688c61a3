"""Rolling disks and knife edges in the constrained kernel (engine.compiled.kernel_model, constrained_kernels)
against the numpy path (EOMLAB_FAST_PATH=0), every formulation, at the initial state and at random states.

Models: the benchmark bicycle (a free joint in Euler angles with angle-rate speeds, taken as three slides and
three revolutes; two rolling disks: two contact rows kept by Maggi at the acceleration level beside four slip
rows), the knife edge and the Chaplygin sleigh (a knife edge behind the mass centre, on a planar joint).
Tolerance: 1e-12 relative to max |ẏ| of the numpy path (the same equations in another order of arithmetic)."""
import numpy as np
import pytest

from eomlab.engine.compiled.constrained_rhs import constrained_kernel
from eomlab.engine.methods import METHODS
from eomlab.engine.model import Stabilization
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from kernel_checks import loaded_constrained_kernels, formulations, kernel_derivative as _kernel_derivative, states as _states

MODELS = ("benchmark_bicycle", "knife_edge", "chaplygin_sleigh")
REL = 1e-12


@pytest.fixture(scope="module")
def kernels():
    loaded = loaded_constrained_kernels()
    WARMED.extend(len(f.signatures) for f in _entry_points(loaded))  # what the background warm-up compiled
    return loaded


WARMED: list[int] = []


def _entry_points(kernels):
    return kernels.constrained_derivative, kernels.dop853_attempt, kernels.dop853_extra_stages


def _formulations(name, method, monkeypatch, stabilization=None):
    return formulations(preset(name), method, monkeypatch, stabilization)


def _assert_equal(compiled, reference):
    assert np.max(np.abs(compiled - reference)) <= REL * float(np.max(np.abs(reference)))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", MODELS)
def test_the_compiled_right_hand_side_is_the_numpy_paths(name, method, kernels, monkeypatch):
    fast, slow = _formulations(name, method, monkeypatch)
    for y in _states(fast):
        held, compiled = _kernel_derivative(kernels, fast, y)
        assert held, (name, method)
        reference = slow.derivative(0.0, y)
        _assert_equal(compiled, reference)
        _assert_equal(fast.derivative(0.0, y), reference)


@pytest.mark.parametrize("method", METHODS)
def test_baumgarte_terms_on_first_order_rows_are_the_numpy_paths(method, kernels, monkeypatch):
    """α ψ on the slip rows, 2α Φ̇ + β² Φ on the contact rows (THEORY.md §3); the random states leave both."""
    baumgarte = Stabilization(kind="baumgarte", alpha=5.0, beta=7.0)
    fast, slow = _formulations("benchmark_bicycle", method, monkeypatch, stabilization=baumgarte)
    for y in _states(fast):
        held, compiled = _kernel_derivative(kernels, fast, y)
        assert held
        _assert_equal(compiled, slow.derivative(0.0, y))


@pytest.mark.parametrize("method", METHODS)
def test_a_disk_lying_flat_takes_the_numpy_paths_error(method, kernels, monkeypatch):
    """The bicycle rolled a quarter turn lays its wheels flat: the kernel does not hold the state and the
    compiled path raises the numpy path's error, which names the constraint."""
    fast, slow = _formulations("benchmark_bicycle", method, monkeypatch)
    y = _states(fast, 1)[0].copy()
    y[4] = np.pi / 2  # roll
    held, _ = _kernel_derivative(kernels, fast, y)
    assert not held
    for formulation in (fast, slow):
        with pytest.raises(ArithmeticError, match="lies flat"):
            formulation.derivative(0.0, y)


@pytest.mark.parametrize("method", METHODS)
def test_body_rate_speeds_stay_on_the_numpy_formulations(method, kernels, monkeypatch):
    """The leaning rolling disk's free joint has body-rate speeds (pinocchio's spherical joint): not held where
    the system keeps them, and the compiled path gives the numpy path's; Lagrange's system takes the angle
    rates as speeds (three revolutes), which the kernel holds."""
    fast, slow = _formulations("rolling_disk_leaning", method, monkeypatch)
    kernel = constrained_kernel(fast)
    assert (kernel is None) == fast.system.has_body_rates
    for y in _states(fast):
        reference = slow.derivative(0.0, y)
        _assert_equal(fast.derivative(0.0, y), reference)
        if kernel is not None:
            held, compiled = _kernel_derivative(kernels, fast, y)
            assert held
            _assert_equal(compiled, reference)


@pytest.mark.parametrize("method", ["maggi", "kane"])
def test_a_bicycle_run_on_the_kernel_follows_the_numpy_run(method, kernels, monkeypatch):
    """0.3 s at 5 m/s (DOP853, rtol = atol = 1e-10) both ways, every step attempt in the kernel on the
    compiled path: the samples agree to 1e-8 (both within their tolerance of the motion). The kernel's arguments
    have the types the background warm-up compiled: nothing compiles on the stepping thread."""
    runs = {}
    for path in ("1", "0"):
        monkeypatch.setenv("EOMLAB_FAST_PATH", path)
        sim = Simulation(preset("benchmark_bicycle"), method=method, coordinates="joint", rtol=1e-10, atol=1e-10,
                         t_end=0.3)
        runs[path] = (sim.run(), sim)
    (fast, sim), (plain, _) = runs["1"], runs["0"]
    assert sim.formulation.compiled_step.steps > 0
    assert fast.shape == plain.shape
    assert np.max(np.abs(fast - plain)) <= 1e-8
    assert [len(f.signatures) for f in _entry_points(kernels)] == WARMED
