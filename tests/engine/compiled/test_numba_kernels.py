"""engine.compiled.numba_kernels: the compiled articulated-body algorithm equals pinocchio's `aba` to 1e-11
relative (of the largest acceleration) at random states and joint forces, and the sampled energies
and mass centres pinocchio's to 1e-11 relative, on every preset tree and hidden-shape tree the kernel takes (revolute and prismatic joints on any axis, offset and turned
joint frames, branches, fixed bodies riding on their parent); trees it cannot take are refused.
Skipped without numba or pinocchio. The first use in a fresh checkout compiles (a few seconds, once:
numba caches the machine code on disk)."""
import math

import numpy as np
import pytest

from eomlab.engine.model import GROUND, Model
from eomlab.engine.presets import PRESETS, preset
from eomlab.engine.presets.parts import _body, _joint
from eomlab.engine.mechanics.system import build_system
from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE

from test_tree_backend import planar_tree  # the same hidden tree the pinocchio path is checked on

pytest.importorskip("pinocchio")
pytest.importorskip("numba")

RTOL = 1e-11
STATES = 4


def _turn(axis, angle):
    from eomlab.engine.rotations import axis_angle_matrix

    matrix = axis_angle_matrix(np.array(axis, float) / np.linalg.norm(axis), angle)
    return tuple(tuple(float(x) for x in row) for row in matrix)


def revolute_prismatic_tree() -> Model:
    """A branching spatial tree of revolute and prismatic joints on tilted axes, offset and turned
    joint frames, asymmetric bodies and a fixed bracket carrying a joint (listed depth-first)."""
    I = ((0.3, 0.02, -0.01), (0.02, 0.25, 0.03), (-0.01, 0.03, 0.2))
    tilted = tuple(np.array((1.0, 2.0, 3.0)) / math.sqrt(14))
    slide = tuple(np.array((0.3, -0.5, 0.8)) / math.sqrt(0.98))
    bodies = (
        _body("base", GROUND, _joint("base", "revolute", axis=(0.0, 0.0, 1.0), at=(0.1, -0.2, 0.3),
                                     rotation=_turn((1, 1, 0), 0.4)), 2.0, com=(0.05, 0.0, -0.1), inertia=I),
        _body("arm", "base", _joint("arm", "revolute", axis=tilted, at=(0.4, 0.1, 0.0), rotation=_turn((0, 1, 1), -0.7)),
              1.0, com=(0.3, 0.1, 0.0), inertia=I),
        _body("bracket", "arm", _joint("bracket", "fixed", at=(0.2, -0.1, 0.05), rotation=_turn((0, 0, 1), 0.8)), 0.3,
              com=(0.05, 0.05, 0.0), inertia=I),
        _body("finger", "bracket", _joint("finger", "revolute", axis=(1.0, 0.0, 0.0), at=(0.1, 0.0, 0.0)), 0.2,
              com=(0.0, 0.1, 0.0), inertia=I),
        _body("slider", "base", _joint("slider", "prismatic", axis=slide, at=(-0.2, 0.3, 0.1)), 0.7,
              com=(0.0, 0.1, 0.2), inertia=I),
        _body("tip", "slider", _joint("tip", "prismatic", axis=(0.0, 1.0, 0.0), at=(0.0, 0.2, 0.0),
                                      rotation=_turn((1, 0, 0), 0.3)), 0.6, com=(0.1, 0.0, -0.2), inertia=I),
    )
    return Model(name="hidden revolute-prismatic tree", gravity=(0.3, -9.81, 0.5), bodies=bodies)


HIDDEN = {"revolute-prismatic tree": revolute_prismatic_tree, "planar tree": planar_tree,
          "50-link chain": lambda: preset("planar_chain", n=50, angles=[0.5] * 50)}


def _flat_models():
    models = {name: (lambda name=name: preset(name)) for name in PRESETS}
    models.update(HIDDEN)
    return models


@pytest.fixture(autouse=True)
def fast_path(monkeypatch):
    """The pinocchio tree is built whatever the environment says (EOMLAB_FAST_PATH=0 has none)."""
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")


@pytest.fixture(scope="module")
def kernels():
    from eomlab.engine.compiled import numba_kernels

    return numba_kernels


@pytest.mark.parametrize("name", sorted(_flat_models()))
def test_aba_equals_pinocchio_at_random_states(kernels, name):
    import pinocchio as pin

    backend = build_system(_flat_models()[name]()).tree_backend
    tree = backend.flat_tree()
    if tree is None:  # spherical, free, Euler-parameter joints: the kernel does not take them
        assert name not in HIDDEN
        assert {j.shortname() for j in backend.model.joints[1:]} - {
            "JointModelRX", "JointModelRY", "JointModelRZ", "JointModelRevoluteUnaligned",
            "JointModelPX", "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"}
        return
    n = backend.n_u
    rng = np.random.default_rng(7)
    work, qdd = kernels.workspace(n), np.empty(n)
    for _ in range(STATES):
        q, v, tau = rng.uniform(-2.0, 2.0, n), rng.uniform(-3.0, 3.0, n), rng.uniform(-1.0, 1.0, n)
        expected = pin.aba(backend.model, backend.data, q, v, tau)
        kernels.aba(tuple(tree), q, v, tau, qdd, work)
        np.testing.assert_allclose(qdd, expected, rtol=0, atol=RTOL * np.max(np.abs(expected)), err_msg=name)


@pytest.mark.parametrize("name", sorted(HIDDEN) + ["double_compound_pendulum", "cart_pendulum", "four_bar"])
def test_energies_and_mass_centres_equal_pinocchios(kernels, name):
    backend = build_system(_flat_models()[name]()).tree_backend
    tree, body_joint, body_lever = backend._flat_sampling
    n, rng = backend.n_u, np.random.default_rng(3)
    centres = np.empty((len(body_joint), 3))
    for _ in range(STATES):
        q, v = rng.uniform(-2.0, 2.0, n), rng.uniform(-3.0, 3.0, n)
        T_ref, V_ref, centres_ref = backend.sampled_by_pinocchio(q, v)
        T, V = kernels.energies_and_centres(tree, q, v, body_joint, body_lever, centres)
        scale = abs(T_ref) + abs(V_ref)
        assert abs(T - T_ref) <= RTOL * scale and abs(V - V_ref) <= RTOL * scale, name
        np.testing.assert_allclose(centres, centres_ref, rtol=0, atol=RTOL * max(1.0, np.max(np.abs(centres_ref))))


def test_trees_the_kernel_cannot_take_are_refused():
    assert build_system(preset("heavy_top")).tree_backend.flat_tree() is None  # a spherical joint
    assert build_system(preset("spatial_chain")).tree_backend.flat_tree() is None
    # bodies listed out of depth-first order: pinocchio's speeds are a permutation of eomlab's
    bodies = (
        _body("a", GROUND, _joint("a", "revolute"), 1.0, com=(0.5, 0.0, 0.0), inertia=(0.0, 0.0, 0.1)),
        _body("b", GROUND, _joint("b", "revolute", at=(1.0, 0.0, 0.0)), 1.0, com=(0.5, 0.0, 0.0), inertia=(0.0, 0.0, 0.1)),
        _body("c", "a", _joint("c", "revolute", at=(1.0, 0.0, 0.0)), 1.0, com=(0.5, 0.0, 0.0), inertia=(0.0, 0.0, 0.1)),
    )
    permuted = Model(name="permuted", gravity=(0.0, -9.81, 0.0), bodies=bodies)
    assert build_system(permuted).tree_backend.flat_tree() is None


def test_a_singular_tree_gives_nan_rather_than_raising(kernels):
    """error_model="numpy": a joint that moves no mass divides by zero into NaN or inf, which the
    compiled step reports (the Python step then names it)."""
    tree = build_system(preset("planar_chain", n=3)).tree_backend.flat_tree()
    tree.mass[:] = 0.0
    tree.rot_inertia[:] = 0.0
    qdd = np.empty(3)
    kernels.aba(tuple(tree), np.full(3, 0.3), np.zeros(3), np.zeros(3), qdd, kernels.workspace(3))
    assert not np.all(np.isfinite(qdd))
