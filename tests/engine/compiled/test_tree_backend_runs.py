"""Whole runs on the compiled path (engine.compiled.tree_backend, pinocchio) against the numpy reference.

Every preset, every hidden-shape tree of test_tree_backend and test_numba_kernels (the 50-link
chain among them), the hidden models of the joint tests (the arm of test_joint_forces, the sleeve
of test_cylindrical_joint, the Hooke joint of test_universal_joint, the box in Euler parameters of
test_quaternions) and the degenerate shapes below (point masses with zero inertia, rods with no
inertia across them listed out of depth-first order, turned joint frames, a tilted axis, a massless
spin) run in every
formulation, in joint and in absolute coordinates, for 0.1 s at rtol = atol = 1e-12 (0.6 s for
the point-mass pendulums) on both paths: both must finish — or be refused at the start with the
same words — and their samples agree to 1e-8 relative (the two paths differ by rounding only).
A right-hand side called more than 20,000 times counts as a stall (issue #30: Udwadia–Kalaba in
absolute coordinates on a point-mass pendulum shrank its steps to 1e-10 s on the compiled path).
"""
from project_paths import MODELS
import math

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.model import GROUND, Model, ModelError
from eomlab.engine.presets import PRESETS, preset
from eomlab.engine.presets.parts import HANG_DOWN, _body, _joint, _point
from eomlab.engine.simulation import Simulation
from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE
from representatives import without_same_path
from test_tree_backend import HIDDEN, _turn

pytest.importorskip("pinocchio")

AGREE = 1e-8  # samples of the two paths, relative to max(1, |value|) per column
STALL = 20_000  # right-hand sides in one run: far above the ~1,000 these short runs take
SIMPLE_PENDULUM = MODELS / "simple_pendulum.eom.json"


def point_mass_pendulum_file() -> Model:
    """The shipped simple pendulum: a point mass, inertia 0, the joint frame turned by −90°."""
    from eomlab.engine.modelfile import load_model

    return load_model(SIMPLE_PENDULUM)


def tilted_point_mass_pendulum() -> Model:
    """A point mass on a revolute joint about a tilted axis in a turned joint frame (spatial
    absolute coordinates: seven coordinates, and M singular about the rod)."""
    axis = tuple(np.array((0.2, 0.3, 1.0)) / math.sqrt(1.13))
    joint = _joint("bob", "revolute", q0=(0.7,), u0=(1.5,), axis=axis, at=(0.1, 0.2, 0.0), rotation=_turn((1, 1, 0), 0.5))
    bob = _body("bob", GROUND, joint, 1.3, com=(0.8, -0.1, 0.05), shape=_point())
    return Model(name="tilted point-mass pendulum", gravity=(0.0, -9.81, -1.0), bodies=(bob,))


def point_mass_double_pendulum() -> Model:
    """Two point masses on massless links, each joint frame turned (planar)."""
    upper = _body("upper", GROUND, _joint("upper", "revolute", q0=(2.5,), rotation=HANG_DOWN), 1.0,
                  com=(1.0, 0.0, 0.0), shape=_point())
    lower = _body("lower", "upper", _joint("lower", "revolute", q0=(-0.4,), u0=(1.0,), at=(1.0, 0.0, 0.0),
                                            rotation=_turn((0, 0, 1), 0.3)), 0.5, com=(0.7, 0.0, 0.0), shape=_point())
    return Model(name="point-mass double pendulum", gravity=(0.0, -9.81, 0.0), bodies=(upper, lower))


def spinning_point_mass() -> Model:
    """A point mass on a spherical joint: its spin about the rod moves nothing (M singular with no
    row to hold it), refused at the start on both paths alike."""
    joint = _joint("bob", "spherical", orientation="quaternion", q0=(0.9, 0.3, 0.1, 0.0))
    return Model(name="spinning point mass", gravity=(0.0, 0.0, -9.81),
                 bodies=(_body("bob", GROUND, joint, 1.0, com=(0.0, 0.0, -1.0), shape=_point()),))


def revolute_prismatic_tree() -> Model:
    """test_numba_kernels' hidden tree (tilted axes, turned frames, a fixed bracket carrying a joint)."""
    from test_numba_kernels import revolute_prismatic_tree as tree  # skipped there without numba

    return tree()


def hinged_arm() -> Model:
    """test_joint_forces' 3-D arm: revolute joints about x then y, and a slider."""
    from test_joint_forces import hinged_arm as arm

    return arm()


def slanted_sleeve() -> Model:
    """test_cylindrical_joint's sleeve on a slanted cylindrical joint carrying a pendulum."""
    from test_cylindrical_joint import sleeve_model  # imports mujoco's helpers: skipped there without

    return sleeve_model()


def hooke_joint() -> Model:
    """test_universal_joint's body on a universal joint carrying a pendulum."""
    from test_universal_joint import hooke_model

    return hooke_model()


def box_in_euler_parameters() -> Model:
    """test_quaternions' box on a spherical joint in Euler parameters with a joint spring."""
    from test_quaternions import _heavy_body_in_euler_parameters

    return _heavy_body_in_euler_parameters()


def permuted_rods() -> Model:
    """Rods with no inertia across them (I = diag(0, 0, 0.1)), listed out of depth-first order (the
    tree test_numba_kernels' kernel refuses)."""
    rod = dict(com=(0.5, 0.0, 0.0), inertia=(0.0, 0.0, 0.1))
    bodies = (_body("a", GROUND, _joint("a", "revolute", q0=(0.3,)), 1.0, **rod),
              _body("b", GROUND, _joint("b", "revolute", at=(1.0, 0.0, 0.0), u0=(1.0,)), 1.0, **rod),
              _body("c", "a", _joint("c", "revolute", at=(1.0, 0.0, 0.0), q0=(-0.5,)), 1.0, **rod))
    return Model(name="permuted rods", gravity=(0.0, -9.81, 0.0), bodies=bodies)


def fifty_link_chain() -> Model:
    """test_numba_kernels' 50-link chain (cond(M) about 1e7 along the way)."""
    return preset("planar_chain", n=50, angles=[0.5] * 50)


DEGENERATE = {"point_mass_pendulum_file": point_mass_pendulum_file, "tilted_point_mass_pendulum": tilted_point_mass_pendulum,
              "point_mass_double_pendulum": point_mass_double_pendulum, "spinning_point_mass": spinning_point_mass,
              "permuted_rods": permuted_rods}


def chain_of_three_four_bars() -> Model:
    """Three four-bars in series (tests/engine/compiled/four_bar_chain.py): six loop-closure rows."""
    from four_bar_chain import four_bar_chain

    return four_bar_chain(3)


OTHER_HIDDEN = {"revolute_prismatic_tree": revolute_prismatic_tree, "fifty_link_chain": fifty_link_chain,
                "hinged_arm": hinged_arm, "slanted_sleeve": slanted_sleeve, "hooke_joint": hooke_joint,
                "box_in_euler_parameters": box_in_euler_parameters, "chain_of_three_four_bars": chain_of_three_four_bars}
LONGER = {"point_mass_pendulum_file", "tilted_point_mass_pendulum", "point_mass_double_pendulum", "simple_pendulum"}


class Stalled(Exception):
    pass


def _run(monkeypatch, model, method, coordinates, fast: bool, t_end: float):
    """(samples and column names, or the refusal's words) of one run on one path."""
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1" if fast else "0")
    try:
        sim = Simulation(model, method=method, coordinates=coordinates, rtol=1e-12, atol=1e-12, t_end=t_end)
    except ModelError as error:
        return None, str(error)
    finally:
        monkeypatch.delenv(FAST_PATH_VARIABLE)
    assert sim.system.compiled == fast
    formulation = sim.formulation
    inner = formulation.derivative

    def capped(t, y):
        if formulation.rhs_evals > STALL:
            raise Stalled(f"{model.name} ({coordinates}) {method} on the {'compiled' if fast else 'numpy'} path: "
                          f"more than {STALL} right-hand sides by t = {t:.6g} s of {t_end} s")
        return inner(t, y)

    formulation.derivative = capped
    rows = sim.run()
    assert sim.failure is None, f"{model.name} ({coordinates}) {method}, fast path {fast}: {sim.failure}"
    return (rows, sim.columns), None


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("name", without_same_path(sorted(PRESETS)) + sorted(HIDDEN) + sorted(OTHER_HIDDEN) + sorted(DEGENERATE))
def test_every_formulation_runs_alike_on_both_paths(monkeypatch, name, coordinates):
    shapes = {**HIDDEN, **OTHER_HIDDEN, **DEGENERATE}
    model = shapes[name]() if name in shapes else preset(name)
    t_end = 0.6 if name in LONGER else 0.1
    for method in METHODS:
        fast, fast_refusal = _run(monkeypatch, model, method, coordinates, True, t_end)
        reference, refusal = _run(monkeypatch, model, method, coordinates, False, t_end)
        where = f"{name} ({coordinates}) {method}"
        assert fast_refusal == refusal, where
        if refusal is not None:
            continue
        (a, columns), (b, reference_columns) = fast, reference
        assert columns == reference_columns and a.shape == b.shape, where
        scale = np.maximum(1.0, np.max(np.abs(b), axis=0))
        err = np.max(np.abs(a - b) / scale, axis=0)
        worst = int(np.argmax(err))
        assert err[worst] <= AGREE, f"{where}: {columns[worst]} differs by {err[worst]:.3g} (relative)"


def test_the_spinning_point_mass_is_refused_on_both_paths(monkeypatch):
    """The degenerate case that must not run: the same one-line refusal on either path."""
    for fast in (True, False):
        _, refusal = _run(monkeypatch, spinning_point_mass(), "udwadia_kalaba", "joint", fast, 0.1)
        assert refusal is not None and "mass matrix is singular" in refusal
