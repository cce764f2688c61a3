"""The constrained right-hand side in one numba call (engine.compiled.constrained_rhs and constrained_kernels)
against the numpy path (EOMLAB_FAST_PATH=0), every formulation, at the initial state and at random states.

Tolerance: REL[model] relative to max |ẏ| of the numpy path. 1e-12 where the saddle-point matrix is well
conditioned; the chain of 10 four-bars has cond([[M, Aᵀ], [A, 0]]) ≈ 3e6, where the numpy path and the
pinocchio-based path that preceded the kernel already differ by 3.8e-12 (any two orders of the same
arithmetic do), so it gets 2e-11."""
import numpy as np
import pytest

from eomlab.engine.compiled.constrained_rhs import constrained_kernel
from eomlab.engine.methods import METHODS
from eomlab.engine.model import ModelError, Stabilization
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from four_bar_chain import four_bar_chain, four_bar_chain_data
from kernel_checks import loaded_constrained_kernels, formulations as _formulations, kernel_derivative as _kernel_derivative, states as _states

MODELS = {
    "four_bar": lambda: preset("four_bar"),
    "chain_of_10_four_bars": lambda: four_bar_chain(10),
    "cartesian_pendulum": lambda: preset("cartesian_pendulum"),  # a distance row on a planar joint's slides
}
REL = {"four_bar": 1e-12, "chain_of_10_four_bars": 2e-11, "cartesian_pendulum": 1e-12}


@pytest.fixture(scope="module")
def kernels():
    loaded = loaded_constrained_kernels()
    return loaded


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_compiled_right_hand_side_is_the_numpy_paths(name, method, kernels, monkeypatch):
    fast, slow = _formulations(MODELS[name](), method, monkeypatch)
    for y in _states(fast):
        held, compiled = _kernel_derivative(kernels, fast, y)
        assert held, (name, method)
        reference = slow.derivative(0.0, y)
        scale = float(np.max(np.abs(reference)))
        assert np.max(np.abs(compiled - reference)) <= REL[name] * scale
        assert np.max(np.abs(fast.derivative(0.0, y) - reference)) <= REL[name] * scale


@pytest.mark.parametrize("method", METHODS)
def test_baumgarte_terms_are_the_numpy_paths(method, kernels, monkeypatch):
    baumgarte = Stabilization(kind="baumgarte", alpha=5.0, beta=7.0)
    fast, slow = _formulations(MODELS["four_bar"](), method, monkeypatch, baumgarte)
    assert fast.baumgarte == (5.0, 7.0)
    for y in _states(fast):
        reference = slow.derivative(0.0, y)
        held, compiled = _kernel_derivative(kernels, fast, y)
        assert held
        assert np.max(np.abs(compiled - reference)) <= 1e-12 * float(np.max(np.abs(reference)))


@pytest.mark.parametrize("method", METHODS)
def test_what_the_kernel_does_not_hold_takes_the_numpy_path(method, kernels, monkeypatch):
    """The closure twice: redundant rows. Lagrange refuses them before the run (the start checks); Udwadia–Kalaba's A G is rank deficient (the numpy path's SVD); the reduced
    formulations keep the copies at the acceleration level. Every method gives the numpy path's answer or error."""
    data = four_bar_chain_data(1)
    twice = dict(data["constraints"][0], name="closure_again")
    from eomlab.engine.modelfile.reading import model_from_dict

    model = model_from_dict(dict(data, constraints=data["constraints"] + [twice]))
    if method == "lagrange":
        with pytest.raises(ModelError, match="redundant"):
            Simulation(model, method=method, coordinates="joint")
        return
    fast, slow = _formulations(model, method, monkeypatch)
    y = _states(fast, 1)[0]
    kernel = constrained_kernel(fast)
    parts = kernel.partition()
    if parts is not None:
        out = np.empty(y.size)
        assert not kernels.constrained_derivative(kernel.tree, *kernel.closures, kernel.code, *parts, kernel.gains,
                                                  kernel.tolerances, y, out)
    reference = slow.derivative(0.0, y)
    assert np.max(np.abs(fast.derivative(0.0, y) - reference)) <= 1e-12 * float(np.max(np.abs(reference)))


def test_spatial_absolute_coordinates_stay_on_the_numpy_formulations():
    """3-D absolute coordinates (Euler parameters and body rates per body) are not held: the numpy path's
    derivative (planar models in absolute coordinates are: test_absolute_kernels)."""
    pytest.importorskip("pinocchio")
    for method in METHODS:
        formulation = Simulation(preset("spatial_chain", n=2), method=method, coordinates="absolute").formulation
        assert constrained_kernel(formulation) is None


def test_a_run_on_the_kernel_follows_the_numpy_run(kernels, monkeypatch):
    """Kane's four-bar for 0.5 s (DOP853, rtol = atol = 1e-10) both ways: the samples agree to 1e-7."""
    runs = {}
    for path in ("1", "0"):
        monkeypatch.setenv("EOMLAB_FAST_PATH", path)
        sim = Simulation(preset("four_bar"), method="kane", coordinates="joint", rtol=1e-10, atol=1e-10, t_end=0.5)
        runs[path] = sim.run()
    assert runs["1"].shape == runs["0"].shape
    assert np.max(np.abs(runs["1"] - runs["0"])) <= 1e-7


@pytest.mark.compiled_path
@pytest.mark.parametrize("method", METHODS)
def test_the_compiled_step_takes_scipys_steps(method, kernels):
    """The four-bar for 0.5 s (DOP853, rtol = atol = 1e-10) with every step attempt in one numba call, against
    scipy's Python step on the same right-hand side: the same number of steps, samples equal to 1e-12 (the
    same arithmetic in another order)."""
    runs = {}
    for compiled in (True, False):
        sim = Simulation(preset("four_bar"), method=method, coordinates="joint", rtol=1e-10, atol=1e-10, t_end=0.5)
        if not compiled:
            sim.formulation.compiled_step = None
        runs[compiled] = (sim.run(), sim)
    (fast, sim), (plain, reference) = runs[True], runs[False]
    assert sim.formulation.compiled_step.steps == sim.stats["steps"] == reference.stats["steps"] > 0
    assert fast.shape == plain.shape
    scale = np.maximum(1.0, np.max(np.abs(plain), axis=0))
    assert np.max(np.abs(fast - plain) / scale) <= 1e-12


@pytest.mark.compiled_path
def test_a_run_compiles_nothing_the_background_warm_up_did_not(kernels):
    """The warm-up passes the argument types a run passes: no constrained kernel compiles on the stepping thread."""
    entry_points = (kernels.constrained_derivative, kernels.dop853_attempt, kernels.dop853_extra_stages)
    compiled = [len(f.signatures) for f in entry_points]
    assert all(compiled)
    for method in METHODS:
        sim = Simulation(four_bar_chain(2), method=method, coordinates="joint", t_end=0.2)
        sim.run()
        assert sim.formulation.compiled_step.steps > 0
    assert [len(f.signatures) for f in entry_points] == compiled


@pytest.mark.parametrize("method", METHODS)
def test_a_singular_mass_matrix_is_handled_as_on_the_numpy_path(method, kernels, monkeypatch):
    """A massless rocker makes M singular: Lagrange's saddle point by LU of the whole matrix, Udwadia–Kalaba's
    M + s AᵀA (Udwadia & Phohomsiri), the reduced formulations' reduced M regular; each as its numpy path to 1e-12."""
    from eomlab.engine.modelfile.reading import model_from_dict

    data = four_bar_chain_data(1)
    data["bodies"][2].update(mass=0.0, inertia=[0.0, 0.0, 0.0])
    fast, slow = _formulations(model_from_dict(data), method, monkeypatch)
    for y in _states(fast):
        held, compiled = _kernel_derivative(kernels, fast, y)
        assert held
        reference = slow.derivative(0.0, y)
        assert np.max(np.abs(compiled - reference)) <= 1e-12 * float(np.max(np.abs(reference)))


def test_the_kernels_codes_are_the_registrys_places():
    """constrained_rhs passes a formulation's place in engine.methods.METHODS; the kernel's constants agree."""
    from eomlab.engine.compiled import constrained_kernels as k
    from eomlab.engine.methods import METHODS

    assert [METHODS[c] for c in (k.LAGRANGE, k.MAGGI, k.UDWADIA_KALABA, k.KANE, k.GIBBS_APPELL)] == \
        ["lagrange", "maggi", "udwadia_kalaba", "kane", "gibbs_appell"]
