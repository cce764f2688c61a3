"""Planar models in absolute coordinates on the compiled constrained kernel (engine.compiled.kernel_model holds
their revolute joints, engine.constraints.joint_rows.PlanarPins, as coincident rows) against the numpy path
(EOMLAB_FAST_PATH=0), every formulation.

Tolerances: one right-hand side 1e-12 relative to max |ẏ| of the numpy path (the same arithmetic in another
order: 1e-14 measured); whole runs at rtol = atol = 1e-10 agree to RUN_AGREE after 1 s, the two paths
differing by rounding in every stage and the step sizes following it (1e-9 measured); the closure residual and
the relative energy drift of those runs stay within what the tolerance allows (RESIDUAL, DRIFT)."""
import numpy as np
import pytest

from project_paths import MODELS

from eomlab.engine.compiled.constrained_rhs import ConstrainedStep, constrained_kernel
from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile import load_model
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from kernel_checks import loaded_constrained_kernels, formulations as _formulations, kernel_derivative as _kernel_derivative, states as _states

ABSOLUTE = {
    "four_bar": lambda: preset("four_bar"),
    "double_pendulum": lambda: preset("double_compound_pendulum"),
    "point_mass_pendulum": lambda: load_model(MODELS / "simple_pendulum.eom.json"),  # inertia 0: M singular
}
RHS_REL = 1e-12
RUN_AGREE = 1e-7  # the state after 1 s, relative to max(1, |value|)
RESIDUAL = 1e-8  # |Φ| and |Φ̇| over the run's samples
DRIFT = 1e-8  # max |E − E₀| / |E₀| over the run's samples


@pytest.fixture(scope="module")
def kernels():
    loaded = loaded_constrained_kernels()
    return loaded


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", sorted(ABSOLUTE))
def test_the_kernel_holds_absolute_coordinates_as_the_numpy_path(name, method, kernels, monkeypatch):
    fast, slow = _formulations(ABSOLUTE[name](), method, monkeypatch, coordinates="absolute")
    assert isinstance(fast.compiled_step, ConstrainedStep)
    for y in _states(fast):
        held, compiled = _kernel_derivative(kernels, fast, y)
        assert held, (name, method)
        reference = slow.derivative(0.0, y)
        scale = float(np.max(np.abs(reference)))
        assert np.max(np.abs(compiled - reference)) <= RHS_REL * scale
        assert np.max(np.abs(fast.derivative(0.0, y) - reference)) <= RHS_REL * scale


def _run(method, fast: bool, monkeypatch, model, t_end, tol):
    monkeypatch.setenv("EOMLAB_FAST_PATH", "1" if fast else "0")
    sim = Simulation(model, method=method, coordinates="absolute", integrator="DOP853", rtol=tol, atol=tol,
                     t_end=t_end)
    monkeypatch.delenv("EOMLAB_FAST_PATH")
    rows = sim.run()
    assert sim.failure is None, (method, fast, sim.failure)
    return sim, rows


@pytest.mark.parametrize("method", METHODS)
def test_a_run_of_the_absolute_four_bar_follows_the_numpy_run(method, kernels, monkeypatch):
    """The four-bar in absolute coordinates for 1 s (DOP853, rtol = atol = 1e-10) with its steps in the kernel:
    the state at 1 s as the numpy path's, the closure held and the energy kept."""
    runs = {fast: _run(method, fast, monkeypatch, preset("four_bar"), 1.0, 1e-10) for fast in (True, False)}
    (sim, fast), (_, plain) = runs[True], runs[False]
    assert sim.formulation.compiled_step.steps > 0.9 * sim.stats["steps"]  # (the first steps run while it loads)
    assert fast.shape == plain.shape
    scale = np.maximum(1.0, np.abs(plain[-1]))
    assert np.max(np.abs(fast[-1] - plain[-1]) / scale) <= RUN_AGREE
    residual = max(np.max(np.abs(fast[:, sim.column_index(c)])) for c in ("drift_pos", "drift_vel"))
    assert residual <= RESIDUAL
    assert np.max(sim.relative_energy_drift(fast[:, sim.column_index("E")])) <= DRIFT


@pytest.mark.parametrize("method", METHODS)
def test_the_point_mass_pendulum_finishes_on_both_paths(method, kernels, monkeypatch):
    """Issue #30's stall: the shipped simple pendulum (a point mass, inertia 0, its joint frame turned) in
    absolute coordinates at rtol = atol = 1e-12 past t = 0.495 s, where Udwadia–Kalaba's steps had shrunk to
    1e-10 s: both paths finish in under 5,000 steps and agree to RUN_AGREE."""
    model = load_model(MODELS / "simple_pendulum.eom.json")
    runs = {fast: _run(method, fast, monkeypatch, model, 0.6, 1e-12) for fast in (True, False)}
    (sim, fast), (reference, plain) = runs[True], runs[False]
    assert sim.stats["steps"] < 5000 and reference.stats["steps"] < 5000
    assert constrained_kernel(sim.formulation) is not None
    scale = np.maximum(1.0, np.abs(plain[-1]))
    assert np.max(np.abs(fast[-1] - plain[-1]) / scale) <= RUN_AGREE
