"""Absolute coordinates: the same motion as joint coordinates, joints as holonomic rows."""
import numpy as np
import pytest

from eomlab.engine.mechanics.absolute import is_planar, to_absolute
from eomlab.engine.constraints import JointRows, PlanarPins, SpatialPins, StateContext
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation
from eomlab.engine.mechanics.system import build_system

TIGHT = dict(rtol=1e-11, atol=1e-11)


def _com_columns(sim, rows):
    cols = [i for i, c in enumerate(sim.columns) if c.endswith((".x", ".y", ".z"))]
    return rows[:, cols]


@pytest.mark.parametrize("name,method", [("double_compound_pendulum", "lagrange"), ("double_compound_pendulum", "kane"),
                                         ("four_bar", "udwadia_kalaba"), ("spatial_chain", "lagrange"),
                                         ("spatial_chain", "maggi"), ("cart_pendulum", "kane")])
def test_absolute_coordinates_reproduce_the_joint_motion(name, method):
    """Mass-centre paths agree to 1e-7 over 1.5 s (rtol = atol = 1e-11)."""
    joint = Simulation(preset(name), method=method, t_end=1.5, **TIGHT)
    absolute = Simulation(preset(name), method=method, coordinates="absolute", t_end=1.5, **TIGHT)
    a, b = joint.run(), absolute.run()
    assert joint.failure is None and absolute.failure is None
    assert np.max(np.abs(_com_columns(joint, a) - _com_columns(absolute, b))) < 1e-7
    assert np.max(np.abs(a[:, joint.column_index("E")] - b[:, absolute.column_index("E")])) < 1e-7


def test_planar_models_get_x_y_theta_per_body():
    system = build_system(preset("double_compound_pendulum"), "absolute")
    assert system.coordinate_names == ["upper.pose_x", "upper.pose_y", "upper.pose_theta",
                                       "lower.pose_x", "lower.pose_y", "lower.pose_theta"]
    assert system.speed_names == [f"{n}_dot" for n in system.coordinate_names]
    assert is_planar(preset("double_compound_pendulum")) and not is_planar(preset("spatial_chain"))
    assert len(system.constraints) == 4


def test_planar_pins_equal_the_general_joint_rows():
    model = preset("planar_chain", n=4)
    absolute, _ = to_absolute(model)
    system = build_system(model, "absolute")
    kin = system.kin
    pins = system.constraints.kinds[0]
    assert isinstance(pins, PlanarPins)
    general = [JointRows(kin, f"{b.name}.joint", b.parent, b.name, b.joint.at, b.joint.rotation,
                         [np.eye(3)[0], np.eye(3)[1]], [], ["x", "y"], True) for b in model.bodies]
    rng = np.random.default_rng(11)
    q, u = rng.uniform(-2, 2, system.n_q), rng.uniform(-2, 2, system.n_u)
    ks = kin.evaluate(q, u)
    ctx = StateContext(t=0.0, q=q, u=u, qd=u, W=None, ks=ks)
    fast = pins.evaluate(ctx)
    slow = [g.evaluate(ctx) for g in general]
    for field in ("A", "b", "position", "velocity"):
        ref = np.concatenate([getattr(s, field) for s in slow]) if field != "A" else np.vstack([s.A for s in slow])
        assert np.allclose(getattr(fast, field), ref, atol=1e-13), field


def test_spatial_pins_equal_the_general_joint_rows():
    """SpatialPins (all spherical joints of a 3-D model at once) = JointRows with world axes,
    every field, to 1e-13 at random states (Euler parameters normalised, body rates random)."""
    model = preset("spatial_chain", n=4)
    system = build_system(model, "absolute")
    kin = system.kin
    pins = system.constraints.kinds[0]
    assert isinstance(pins, SpatialPins) and len(system.constraints.kinds) == 1
    general = [JointRows(kin, f"{b.name}.joint", b.parent, b.name, b.joint.at, b.joint.rotation,
                         list(np.eye(3)), [], ["x", "y", "z"], True) for b in model.bodies]
    rng = np.random.default_rng(12)
    for _ in range(3):
        q = kin.normalised(rng.uniform(-2, 2, system.n_q))
        u = rng.uniform(-2, 2, system.n_u)
        W = kin.rate_matrix(q)
        ctx = StateContext(t=0.0, q=q, u=u, qd=W @ u, W=W, ks=kin.evaluate(q, u))
        fast = pins.evaluate(ctx)
        slow = [g.evaluate(ctx) for g in general]
        for field in ("A", "b", "position", "velocity"):
            ref = np.concatenate([getattr(s, field) for s in slow]) if field != "A" else np.vstack([s.A for s in slow])
            assert np.allclose(getattr(fast, field), ref, atol=1e-13), field
    assert system.constraints.row_names[:3] == ["link1.joint_0", "link1.joint_1", "link1.joint_2"]


def test_massless_frames_in_absolute_coordinates_run_in_every_formulation(method):
    """The Cartesian spherical pendulum's massless sliders become free bodies with no inertia in
    absolute coordinates: M is singular, [M; A] is not. Every formulation runs (Udwadia–Kalaba
    through M + AᵀA, Udwadia–Phohomsiri 2006) and the bob follows the joint-coordinate motion
    to 1e-8 over 2 s; the multipliers at t = 0 equal Lagrange's (the same λ) to 1e-9."""
    model = preset("spherical_pendulum_cartesian")
    joint = Simulation(model, method="kane", t_end=2.0, **TIGHT)
    absolute = Simulation(model, method=method, coordinates="absolute", t_end=2.0, **TIGHT)
    a, b = joint.run(), absolute.run()
    assert absolute.failure is None
    for c in ("bob.x", "bob.y", "bob.z", "E"):
        assert np.max(np.abs(a[:, joint.column_index(c)] - b[:, absolute.column_index(c)])) < 1e-8, c
    lagrange = Simulation(model, method="lagrange", coordinates="absolute", t_end=2.0, **TIGHT)
    lam = [c for c in absolute.columns if c.startswith("lambda_")]
    assert lam and lam == [c for c in lagrange.columns if c.startswith("lambda_")]
    first, ref = absolute.samples()[0], lagrange.samples()[0]
    for c in lam:
        assert abs(first[absolute.column_index(c)] - ref[lagrange.column_index(c)]) < 1e-9, c
