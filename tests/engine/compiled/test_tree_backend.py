"""The compiled tree-dynamics path (engine.compiled.tree_backend, pinocchio) against the numpy reference.

At random states of every preset (joint and absolute coordinates) and of hidden-shape trees (offset
and turned joint frames, every joint type, Euler angles with body-rate and angle-rate speeds, Euler
parameters, fixed joints) every formulation's accelerations, multipliers, constraint rows, M-products
and right-hand side on the compiled path equal the numpy path's to 1e-11 relative. A 40-digit
mpmath reference checks the accelerations of a 50-link chain at cond(M) ≈ 1e7 to 1e-13.
Skipped when pinocchio is not installed; EOMLAB_FAST_PATH=0 switches the path off.
"""
import math
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.formulations import make_formulation
from eomlab.engine.methods import METHODS
from eomlab.engine.model import (
    GROUND, BodyTorque, Coincident, Distance, KnifeEdge, Model, ModelError, PointForce, PointRef, RollingDisk,
    Spring,
)
from eomlab.engine.presets import PRESETS, preset
from eomlab.engine.presets.parts import _body, _joint
from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.mechanics.system import build_system
from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE

pytest.importorskip("pinocchio")

RTOL = 1e-11


def _turn(axis, angle):
    return tuple(tuple(float(x) for x in row) for row in axis_angle_matrix(np.array(axis, float) / np.linalg.norm(axis), angle))


def spatial_tree() -> Model:
    """A tree with every 3-D joint type, offset and turned joint frames and asymmetric bodies."""
    I = ((0.3, 0.02, -0.01), (0.02, 0.25, 0.03), (-0.01, 0.03, 0.2))
    bodies = (
        _body("base", GROUND, _joint("base", "free", sequence="xyz", at=(0.1, -0.2, 0.3), rotation=_turn((1, 1, 0), 0.4),
                                     q0=(0.1, 0.2, -0.1, 0.3, 0.5, -0.2)), 2.0, com=(0.05, 0.0, -0.1), inertia=I),
        _body("arm", "base", _joint("arm", "revolute", axis=tuple(np.array((1, 2, 3)) / math.sqrt(14)),
                                    at=(0.4, 0.1, 0.0), rotation=_turn((0, 1, 1), -0.7)), 1.0, com=(0.3, 0.1, 0.0), inertia=I),
        _body("slider", "base", _joint("slider", "prismatic", axis=tuple(np.array((0.3, -0.5, 0.8)) / math.sqrt(0.98)),
                                       at=(-0.2, 0.3, 0.1)), 0.7, com=(0.0, 0.1, 0.2), inertia=I),
        _body("ball", "arm", _joint("ball", "spherical", orientation="quaternion", at=(0.6, 0.0, 0.1),
                                    q0=(0.9, 0.1, -0.3, 0.2)), 0.5, com=(0.0, 0.0, -0.25), inertia=I),
        _body("gimbal", "slider", _joint("gimbal", "spherical", sequence="zyz", speeds="euler", at=(0.0, 0.2, 0.0),
                                         rotation=_turn((1, 0, 0), 0.3), q0=(0.2, 0.9, -0.4)), 0.6, com=(0.1, 0.0, -0.2),
              inertia=I),
        _body("bracket", "arm", _joint("bracket", "fixed", at=(0.2, -0.1, 0.05), rotation=_turn((0, 0, 1), 0.8)), 0.3,
              com=(0.05, 0.05, 0.0), inertia=I),
        _body("finger", "bracket", _joint("finger", "revolute", axis=(1.0, 0.0, 0.0), at=(0.1, 0.0, 0.0)), 0.2,
              com=(0.0, 0.1, 0.0), inertia=I),
        _body("drone", GROUND, _joint("drone", "free", orientation="quaternion", q0=(0.0, 1.0, 0.0, 0.8, 0.2, 0.1, -0.3)),
              1.5, com=(0.02, -0.03, 0.01), inertia=I),
    )
    return Model(name="hidden spatial tree", gravity=(0.0, 0.0, -9.81), bodies=bodies)


def planar_tree() -> Model:
    """A planar joint carrying a chain and a slider, with a turned joint frame."""
    bodies = (
        _body("sled", GROUND, _joint("sled", "planar", q0=(0.1, -0.2, 0.3)), 1.2, com=(0.1, 0.0, 0.0),
              inertia=(0.0, 0.0, 0.2)),
        _body("link", "sled", _joint("link", "revolute", at=(0.5, 0.1, 0.0), rotation=_turn((0, 0, 1), 0.6), q0=(0.4,)),
              0.8, com=(0.3, 0.0, 0.0), inertia=(0.0, 0.0, 0.06)),
        _body("piston", "sled", _joint("piston", "prismatic", axis=(0.6, 0.8, 0.0), at=(-0.3, 0.0, 0.0)), 0.4,
              com=(0.0, 0.05, 0.0), inertia=(0.0, 0.0, 0.01)),
    )
    return Model(name="hidden planar tree", gravity=(0.0, -9.81, 0.0), bodies=bodies)


def _euler_body_rates_top() -> Model:
    """The heavy top in Euler angles with body-rate speeds (pinocchio's spherical joint per state)."""
    model = preset("heavy_top")
    top = model.bodies[0]
    return replace(model, bodies=(replace(top, joint=replace(top.joint, speeds="body")),))


def closed_spatial_tree() -> Model:
    """The spatial tree (bodies not in depth-first order) closed by every geometric constraint kind,
    with a rolling wheel in Euler angles and body rates, and force elements that read the kinematics."""
    tree = spatial_tree()
    wheel = _body("wheel", GROUND, _joint("wheel", "free", sequence="zxz", q0=(0.3, -0.2, 0.45, 0.4, 1.3, -0.2)), 1.1,
                  inertia=(0.05, 0.05, 0.09))
    constraints = (
        Coincident("loop", PointRef("finger", (0.1, 0.2, 0.0)), PointRef("drone", (0.0, 0.0, 0.1)), dims=("x", "z")),
        Distance("tether", PointRef("ground", (0.5, 0.5, 1.0)), PointRef("ball", (0.0, 0.1, -0.3)), 1.2),
        KnifeEdge("blade", "gimbal", (0.1, 0.0, -0.2), (0.0, 1.0, 0.2)),
        RollingDisk("roll", "wheel", 0.5),
    )
    forces = (
        Spring("strut", PointRef("arm", (0.3, 0.0, 0.1)), PointRef("drone", (0.1, 0.0, 0.0)), 5.0, 0.4, 0.3),
        PointForce("push", "slider", (0.0, 0.1, 0.0), ("1.5", "0", "-0.5")),
        BodyTorque("twist", "ball", ("0.1", "0", "0.2"), frame="body"),
    )
    return replace(tree, name="hidden closed spatial tree", bodies=(*tree.bodies, wheel), constraints=constraints,
                   forces=forces)


def closed_planar_tree() -> Model:
    """The planar tree with a distance between its slider and its link, and a knife edge on the sled."""
    tree = planar_tree()
    constraints = (Distance("rod", PointRef("link", (0.6, 0.0, 0.0)), PointRef("piston", (0.0, 0.2, 0.0)), 0.7),
                   KnifeEdge("runner", "sled", (0.2, 0.0, 0.0), (0.0, 1.0, 0.0)))
    forces = (Spring("coil", PointRef("ground", (1.0, 1.0, 0.0)), PointRef("link", (0.3, 0.0, 0.0)), 4.0, 0.5, 0.2),)
    return replace(tree, name="hidden closed planar tree", constraints=constraints, forces=forces)


HIDDEN = {"spatial_tree": spatial_tree, "planar_tree": planar_tree, "top_body_rates": _euler_body_rates_top,
          "closed_spatial_tree": closed_spatial_tree, "closed_planar_tree": closed_planar_tree}


def _systems(monkeypatch, model, coordinates):
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    fast = build_system(model, coordinates)
    monkeypatch.setenv(FAST_PATH_VARIABLE, "0")
    reference = build_system(model, coordinates)
    monkeypatch.delenv(FAST_PATH_VARIABLE)
    return fast, reference


def _close(actual, expected, what):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, what
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    err = float(np.max(np.abs(actual - expected), initial=0.0))
    assert err <= RTOL * scale, f"{what}: {err:.3g} > {RTOL:g} × {scale:.3g}"


def _random_state(formulation, rng):
    """The start of the run nudged at random (positions a little, speeds more)."""
    system = formulation.system
    y = np.array(formulation.initial_state(system.q0, system.u0), dtype=float)
    n = system.n_q
    y[:n] += 0.05 * rng.standard_normal(n)
    y[n:] += 0.5 * rng.standard_normal(y.size - n)
    return y


def _same_partition(f_fast, f_ref):
    """The reference's dependent and independent speeds on the compiled path too: where two
    choices are equally good, rounding in A (1e-16) may pick either, and the states differ."""
    for name in ("dep", "indep", "partition_rows", "_rest_rows", "partition_cond"):
        if hasattr(f_ref, name):
            setattr(f_fast, name, getattr(f_ref, name))


def _compare_formulations(monkeypatch, model, coordinates):
    try:
        fast, reference = _systems(monkeypatch, model, coordinates)
    except ModelError as error:
        pytest.skip(f"not buildable in {coordinates} coordinates: {error}")
    assert fast.compiled and not reference.compiled
    rng = np.random.default_rng(17)
    for name in METHODS:
        f_fast = make_formulation(name, fast, model.settings)
        f_ref = make_formulation(name, reference, model.settings)
        for _ in range(2):
            y = _random_state(f_ref, rng)
            _same_partition(f_fast, f_ref)
            try:
                ev_ref = f_ref.evaluate(0.0, y)
            except ArithmeticError as error:  # a singular M (point masses in absolute coordinates)
                with pytest.raises(type(error)):
                    f_fast.evaluate(0.0, y)
                continue
            ev_fast = f_fast.evaluate(0.0, y)
            where = f"{model.name} ({coordinates}) {name}"
            # a point mass on a free body makes M singular in exact arithmetic: Udwadia–Kalaba
            # takes M + s AᵀA on both paths (a pivot tolerance decides, not rounding)
            _close(ev_fast.u_dot, ev_ref.u_dot, f"{where}: accelerations")
            _close(ev_fast.multipliers, ev_ref.multipliers, f"{where}: multipliers")
            if ev_ref.rows is not None:
                _close(ev_fast.rows.A, ev_ref.rows.A, f"{where}: constraint rows")
                _close(ev_fast.rows.b, ev_ref.rows.b, f"{where}: constraint right-hand sides")
                _close(ev_fast.rows.position, ev_ref.rows.position, f"{where}: position residuals")
                _close(ev_fast.rows.velocity, ev_ref.rows.velocity, f"{where}: velocity residuals")
            x = rng.standard_normal(f_ref.system.n_u)
            _close(ev_fast.dynamics.M @ x, ev_ref.dynamics.M @ x, f"{where}: M-products")
            _close(ev_fast.dynamics.forcing, ev_ref.dynamics.forcing, f"{where}: forcing")
            _close(f_fast.derivative(0.0, y), f_ref.derivative(0.0, y), f"{where}: right-hand side")


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_agree_with_the_numpy_path(monkeypatch, name, coordinates):
    _compare_formulations(monkeypatch, preset(name), coordinates)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_hidden_trees_agree_with_the_numpy_path(monkeypatch, name, coordinates):
    _compare_formulations(monkeypatch, HIDDEN[name](), coordinates)


@pytest.mark.parametrize("name", sorted(PRESETS) + sorted(HIDDEN))
def test_sample_energies_and_mass_centres_agree_with_the_numpy_path(monkeypatch, name):
    """T, gravity's V and the mass centres a sample row holds, from pinocchio's one forward pass."""
    model = HIDDEN[name]() if name in HIDDEN else preset(name)
    fast, reference = _systems(monkeypatch, model, "joint")
    rng = np.random.default_rng(5)
    for _ in range(2):
        q = fast.q0 + 0.05 * rng.standard_normal(fast.n_q)
        u = fast.u0 + 0.5 * rng.standard_normal(fast.n_u)
        backend = fast.tree_backend
        T, V, com = backend.sample_quantities(backend.configuration(q), u)
        ks = reference.kin.evaluate(q, u)
        V_ref = -float(np.sum(reference.kin.mass * (ks.com @ reference.gravity)))
        _close(T, reference.kinetic_energy(q, u), f"{name}: kinetic energy")
        _close(V, V_ref, f"{name}: potential energy of gravity")
        _close(com, ks.com, f"{name}: mass centres")


def test_the_bound_right_hand_side_counts_and_hands_a_force_element_to_the_general_path(monkeypatch):
    model = preset("planar_chain", n=4)
    fast, reference = _systems(monkeypatch, model, "joint")
    f_fast, f_ref = make_formulation("kane", fast, model.settings), make_formulation("kane", reference, model.settings)
    assert f_fast.derivative != f_fast.checked_derivative  # bound once on the compiled path
    y = _random_state(f_ref, np.random.default_rng(2))
    free = f_fast.derivative(0.0, y)
    _close(free, f_ref.derivative(0.0, y), "right-hand side")
    assert f_fast.rhs_evals == 1
    fast.forces.append(_TorqueOnFirstSpeed())  # as a pull appends one during a run
    reference.forces.append(_TorqueOnFirstSpeed())
    pushed = f_fast.derivative(0.0, y)
    assert abs(pushed[4] - free[4]) > 1.0  # the torque acts
    _close(pushed, f_ref.derivative(0.0, y), "right-hand side with a force element appended")
    assert f_fast.rhs_evals == 2  # each call counted once, on either path


class _TorqueOnFirstSpeed:
    """A force element of constant generalized force on the first speed (as a pull adds one mid-run)."""

    conservative = False

    def generalized(self, ctx):
        Q = np.zeros(len(ctx.u))
        Q[0] = 3.0
        return Q


def test_the_environment_switches_the_path_off(monkeypatch):
    monkeypatch.setenv(FAST_PATH_VARIABLE, "0")
    system = build_system(preset("planar_chain", n=3))
    assert system.tree_backend is None and not system.compiled
    assert system.dynamics_path == f"numpy ({FAST_PATH_VARIABLE}=0)"
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    assert build_system(preset("planar_chain", n=3)).dynamics_path == "pinocchio"


# --- a 40-digit reference: a 50-link chain where cond(M) ≈ 1e7 ---------------------------------


def _chain_reference(model, q, u, digits=40):
    """u_dot of a planar chain (revolute joints about +z, unturned joint frames) in mpmath: complex
    positions, Jacobian columns i (c_k − o_j), bias accelerations −φ̇² e^{iφ} r, M u_dot = Q − C."""
    import mpmath as mp

    mp.mp.dps = digits
    n = len(model.bodies)
    g = mp.mpc(*model.gravity[:2])
    phi, phid = mp.mpf(0), mp.mpf(0)
    origin, a_origin = mp.mpc(0), mp.mpc(0)
    origins, coms, a_bias, phids = [], [], [], []
    prev_turn = mp.mpc(1)
    for k, body in enumerate(model.bodies):
        at = mp.mpc(body.joint.at[0], body.joint.at[1])
        origin = origin + prev_turn * at
        a_origin = a_origin - phid**2 * prev_turn * at
        phi, phid = phi + mp.mpf(q[k]), phid + mp.mpf(u[k])
        turn = mp.expj(phi)
        c = mp.mpc(body.com[0], body.com[1])
        origins.append(origin)
        coms.append(origin + turn * c)
        a_bias.append(a_origin - phid**2 * turn * c)
        phids.append(phid)
        prev_turn = turn
    M = mp.matrix(n, n)
    rhs = mp.matrix(n, 1)
    for k, body in enumerate(model.bodies):
        m, izz = mp.mpf(body.mass), mp.mpf(body.inertia[2][2])
        cols = [1j * (coms[k] - origins[j]) for j in range(k + 1)]
        for i in range(k + 1):
            rhs[i] += m * (cols[i].real * (g - a_bias[k]).real + cols[i].imag * (g - a_bias[k]).imag)
            for j in range(k + 1):
                M[i, j] += m * (cols[i].real * cols[j].real + cols[i].imag * cols[j].imag) + izz
    return np.array([float(x) for x in mp.lu_solve(M, rhs)])


def test_accelerations_of_an_ill_conditioned_chain_match_a_40_digit_reference(monkeypatch):
    model = preset("planar_chain", n=50, angles=[0.5] * 50)
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    system = build_system(model)
    rng = np.random.default_rng(3)
    for _ in range(2):
        q = rng.uniform(-0.5, 0.5, 50)
        u = rng.uniform(-1.0, 1.0, 50)
        cond = np.linalg.cond(system.mass_matrix(q))
        assert 5e6 < cond < 5e7  # the conditioning the issue measured along the trajectory
        expected = _chain_reference(model, q, u)
        actual = system.free_accelerations(system.dynamics(0.0, q, u))
        err = np.max(np.abs(actual - expected)) / np.max(np.abs(expected))
        assert err <= 1e-13, f"relative error {err:.2g} at cond(M) = {cond:.2g}"


# --- the compiled path's constraint rows never run the numpy kinematics ----------------------------


def _numpy_kinematics_refused(system, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("the numpy kinematics ran on the compiled path")

    for stage in ("positions", "with_velocities"):
        monkeypatch.setattr(system.kin.strategy, stage, refuse)


@pytest.mark.parametrize(("name", "coordinates"), [
    ("four_bar", "joint"), ("four_bar", "absolute"), ("rolling_disk_leaning", "joint"), ("rolling_disk_leaning", "absolute"),
    ("spherical_pendulum_cartesian", "joint"), ("spatial_chain", "absolute"), ("double_pendulum_absolute", "absolute"),
    ("closed_spatial_tree", "joint"), ("closed_spatial_tree", "absolute"), ("closed_planar_tree", "joint"),
    ("closed_planar_tree", "absolute")])
def test_constrained_right_hand_sides_read_the_compiled_kinematics(monkeypatch, name, coordinates):
    """Geometric constraints, joint rows of absolute coordinates and force elements read pinocchio's
    kinematics: every formulation's right-hand side and evaluation run with the numpy strategy refused."""
    model = HIDDEN[name]() if name in HIDDEN else preset(name)
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    system = build_system(model, coordinates)
    assert system.constraints is not None and system.compiled
    for method in METHODS:
        formulation = make_formulation(method, system, model.settings)
        y = formulation.initial_state(system.q0, system.u0)
        with monkeypatch.context() as refused:
            _numpy_kinematics_refused(system, refused)
            assert np.all(np.isfinite(formulation.derivative(0.0, y)))
            assert np.all(np.isfinite(formulation.evaluate(0.0, y).multipliers))


@pytest.mark.parametrize("sequence", ["xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz"])
def test_the_closed_form_rate_matrix_is_the_reference(sequence):
    """W(q) of the compiled path (Euler-angle blocks from plain floats, Euler-parameter blocks at once)
    equals kin.rate_matrix to 1e-11 for every sequence, next to an Euler-parameter joint, and names a
    gimbal lock as the reference does."""
    from eomlab.engine.kinematics import GimbalLock, TreeKinematics

    tree = closed_spatial_tree()
    wheel = tree.bodies[-1]
    turned = replace(wheel, joint=replace(wheel.joint, sequence=sequence))
    kin = TreeKinematics(replace(tree, bodies=(*tree.bodies[:-1], turned), constraints=(), forces=()))
    rng = np.random.default_rng(23)
    for _ in range(10):
        q = kin.normalised(rng.uniform(-3.0, 3.0, kin.n_q))
        _close(kin.rate_matrix_closed_form(q), kin.rate_matrix(q), f"W ({sequence})")
    wheel_theta = kin.joints[-1].q_slice.stop - 2
    q[wheel_theta] = 0.0 if sequence[0] == sequence[2] else math.pi / 2
    with pytest.raises(GimbalLock):
        kin.rate_matrix_closed_form(q)
