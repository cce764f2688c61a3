"""engine.compiled.floating_kernels: the free tree's compiled right-hand side with spherical and free joints in
Euler parameters and armature equals the pinocchio path's (Python, `aba` per call) and the numpy path's
(EOMLAB_FAST_PATH=0) to 1e-12 relative (of the derivative's largest magnitude) at random states — Euler
parameters off the unit sphere included — for every formulation whose free-tree equations are the tree's, on a
free body, a free-floating chain of ball joints with armature and dm_control's humanoid; a run's compiled steps
are scipy's steps. Skipped without pinocchio or numba (the humanoid without dm_control)."""
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.compiled import compiled_step
from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853
from eomlab.engine.formulations import make_formulation
from eomlab.engine.model import GROUND, Model
from eomlab.engine.presets.parts import _body, _joint
from eomlab.engine.mechanics.system import build_system
from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE

pytest.importorskip("pinocchio")

RTOL = 1e-12  # of the derivative's largest magnitude
STATES = 4  # random states per model and formulation
AGREE = 1e-12  # a run's columns, of max(1, the column's largest magnitude), after 0.3 s at rtol = atol = 1e-10
I = ((0.3, 0.02, -0.01), (0.02, 0.25, 0.03), (-0.01, 0.03, 0.2))


@pytest.fixture
def floating(monkeypatch):
    """engine.compiled.floating_kernels once compiled (the fast path on whatever the environment says)."""
    pytest.importorskip("numba")
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    loaded = compiled_step.wait_until_compiled(timeout=600, floating=True)  # the disk cache after the first run
    assert loaded is not None, compiled_step._loading["error"]
    return loaded


def free_body() -> Model:
    return Model(name="tumbling brick", gravity=(0.0, 0.0, -9.81), bodies=(
        _body("brick", GROUND, _joint("brick", "free", orientation="quaternion", at=(0.1, -0.2, 0.3),
                                      q0=(0.0, 1.0, 0.0, 0.8, 0.2, 0.1, -0.3)), 1.5, com=(0.02, -0.03, 0.01), inertia=I),))


def ball_chain() -> Model:
    """A free root carrying two ball joints in a row and a hinge, armature on all but the root."""
    ball = lambda name, at, q0: _joint(name, "spherical", orientation="quaternion", at=at, q0=q0,  # noqa: E731
                                       u0=(0.5, -1.0, 0.8), armature=0.02)
    return Model(name="floating ball chain", gravity=(0.0, 0.0, -9.81), bodies=(
        _body("root", GROUND, _joint("root", "free", orientation="quaternion",
                                             q0=(0.0, 0.0, 1.0, 0.9, 0.1, -0.2, 0.3), u0=(0.1, 0.0, 0.5, 1.0, -0.5, 0.3)), 2.0, com=(0.0, 0.05, 0.0), inertia=I),
        _body("upper", "root", ball("shoulder", (0.2, 0.0, 0.1), (0.8, 0.3, 0.1, -0.2)), 0.8, com=(0.0, 0.0, -0.2), inertia=I),
        _body("lower", "upper", ball("elbow", (0.0, 0.05, -0.4), (0.9, -0.1, 0.3, 0.2)), 0.5, com=(0.1, 0.0, -0.15), inertia=I),
        _body("hand", "lower", _joint("wrist", "revolute", axis=(0.0, 0.6, 0.8), at=(0.0, 0.0, -0.3), armature=0.01),
              0.2, com=(0.05, 0.0, 0.0), inertia=I),
    ))


def humanoid() -> Model:
    """dm_control's humanoid as `eomlab import` reads it, limits and force elements off (bench_freefloating)."""
    from shipped_files import dm_control_suite

    from eomlab.engine.robot_formats import import_model

    path = [p for p in dm_control_suite() if p.endswith("humanoid.xml")]
    if not path:
        pytest.skip("dm_control's suite has no humanoid.xml")
    model = import_model(path[0])[0]
    return replace(model, forces=(), bodies=tuple(replace(b, joint=replace(b.joint, limits=())) for b in model.bodies))


MODELS = {"free body": free_body, "ball chain": ball_chain, "humanoid": humanoid}


def _random_state(formulation, rng):
    """A state of the formulation's own: coordinates drawn around q0 (Euler parameters scaled off the unit
    sphere), speeds in ±2."""
    system = formulation.system
    q = system.q0 + rng.uniform(-0.5, 0.5, system.n_q)
    for jl in system.kin.quaternion_joints:
        q[jl.q_slice.stop - 4 : jl.q_slice.stop] *= rng.uniform(0.7, 1.3)
    return np.ascontiguousarray(formulation.qu_to_state(q, rng.uniform(-2.0, 2.0, system.n_u)))


@pytest.mark.parametrize("name", MODELS)
def test_kernel_equals_pinocchio_and_numpy_paths(floating, monkeypatch, method, name):
    model = MODELS[name]()
    fast = make_formulation(method, build_system(model), model.settings)
    if not fast.tree_equations_when_free:  # Gibbs–Appell keeps its own equations: no tree kernel
        assert fast.compiled_step is None
        return
    step = fast.compiled_step
    assert step is not None and step.key == "floating" and step.kernels() is floating
    monkeypatch.setenv(FAST_PATH_VARIABLE, "0")
    reference = make_formulation(method, build_system(model), model.settings)
    assert reference.system.tree_backend is None
    work, out = floating.floating_workspace(step.arrays), np.empty(fast.system.n_q + fast.system.n_u)
    rng = np.random.default_rng(7)
    for _ in range(STATES):
        y = _random_state(fast, rng)
        assert floating.state_derivative(step.arrays, y, out, work)
        numpy_path, pinocchio_path = reference.derivative(0.0, y), fast.derivative(0.0, y)
        scale = np.max(np.abs(numpy_path))
        assert np.max(np.abs(out - numpy_path)) <= RTOL * scale
        assert np.max(np.abs(out - pinocchio_path)) <= RTOL * scale
        assert np.max(np.abs(pinocchio_path - numpy_path)) <= RTOL * scale


def test_compiled_steps_are_scipys_steps(floating):
    """The ball chain over 0.3 s: every step compiled, the samples those of scipy's Python step on the same
    right-hand side, the same step and evaluation counts."""
    from eomlab.engine.simulation import Simulation

    model = ball_chain().with_settings(t_end=0.3, dt_out=0.01)
    runs = [Simulation(model, method="kane", rtol=1e-10, atol=1e-10) for _ in range(2)]
    runs[1].formulation.compiled_step = None
    rows, reference = runs[0].run(), runs[1].run()
    assert isinstance(runs[0].stepper.solver, CompiledDOP853)
    assert runs[0].formulation.compiled_step.steps == runs[0].stats["steps"] > 0
    scale = np.maximum(1.0, np.max(np.abs(reference), axis=0))
    assert np.max(np.abs(rows - reference) / scale) < AGREE
    for key in ("steps", "rhs_evals"):
        assert runs[0].stats[key] == runs[1].stats[key], key


def test_sampled_energy_holds_the_armature(monkeypatch):
    """The pinocchio path's sampled kinetic energy with armature equals the numpy path's (pinocchio's own
    energy holds the rotors' only in part), to 1e-12 relative."""
    model = ball_chain()
    rng = np.random.default_rng(3)
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    fast = build_system(model)
    monkeypatch.setenv(FAST_PATH_VARIABLE, "0")
    reference = build_system(model)
    for _ in range(STATES):
        q, u = fast.kin.normalised(fast.q0 + rng.uniform(-0.5, 0.5, fast.n_q)), rng.uniform(-2.0, 2.0, fast.n_u)
        T, V, _ = fast.tree_backend.sampled_by_pinocchio(fast.tree_backend.configuration(q), u)
        T_ref, V_ref = reference.energy(0.0, q, u)
        assert abs(T - T_ref) <= 1e-12 * abs(T_ref) and abs(V - V_ref) <= 1e-12 * max(1.0, abs(V_ref))


@pytest.mark.parametrize("name", MODELS)
def test_compiled_samples_equal_the_numpy_paths(floating, monkeypatch, name):
    """T, V and the mass centres a run samples (floating_kernels.energies_and_centres) equal the numpy path's,
    to 1e-12 relative (centres: of max(1, |c|))."""
    model = MODELS[name]()
    fast = build_system(model)
    assert fast.tree_backend._floating_sampling is not None
    monkeypatch.setenv(FAST_PATH_VARIABLE, "0")
    reference = build_system(model)
    rng = np.random.default_rng(5)
    for _ in range(STATES):
        q, u = fast.q0 + rng.uniform(-0.5, 0.5, fast.n_q), rng.uniform(-2.0, 2.0, fast.n_u)
        T, V, centres = fast.energy_and_centres(q, u)
        T_ref, V_ref, centres_ref = reference.energy_and_centres(q, u)
        assert abs(T - T_ref) <= 1e-12 * abs(T_ref) and abs(V - V_ref) <= 1e-12 * max(1.0, abs(V_ref))
        assert np.max(np.abs(centres - centres_ref)) <= 1e-12 * max(1.0, np.max(np.abs(centres_ref)))
