"""Tree kinematics: the vectorised planar path equals the general 3-D recursion, and the
partial velocities and bias accelerations are the derivatives they claim to be."""
import copy

import numpy as np
import pytest

from eomlab.engine.presets import preset

PLANAR = ["planar_chain", "double_compound_pendulum", "cart_pendulum", "four_bar", "cartesian_pendulum",
          "knife_edge", "driven_crank", "double_pendulum_absolute"]
FIELDS = ["R", "origin", "com", "omega", "v_com", "J_w", "J_v", "alpha_bias", "a_bias", "axis_w", "axis_v"]


def _general(kin):
    """The same tree with the general (3-D) strategy."""
    from eomlab.engine.kinematics import SpatialKinematics

    g = copy.copy(kin)
    g.strategy = SpatialKinematics(kin)
    return g


@pytest.mark.parametrize("name", PLANAR)
def test_planar_path_equals_the_general_recursion(name):
    from eomlab.engine.mechanics.system import build_system

    kin = build_system(preset(name)).kin
    assert kin.planar
    general = _general(kin)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, u = rng.uniform(-2, 2, kin.n_q), rng.uniform(-2, 2, kin.n_u)
        a, b = kin.evaluate(q, u), general.evaluate(q, u)
        for f in FIELDS:
            assert np.allclose(getattr(a, f), getattr(b, f), atol=1e-13, rtol=0), f
        R, origin = kin.poses(q)  # the planar path's poses alone, without its Jacobians
        assert np.allclose(R, b.R, atol=1e-13, rtol=0) and np.allclose(origin, b.origin, atol=1e-13, rtol=0)


@pytest.mark.parametrize("name", ["planar_chain", "spatial_chain", "heavy_top", "rolling_disk_leaning"])
def test_partial_velocities_and_bias_are_derivatives(name):
    """v_com = J_v u, and a_com = J_v u_dot + a_bias checked against a central difference of v_com
    along the motion (test only: the engine never differences)."""
    from eomlab.engine.mechanics.system import build_system

    system = build_system(preset(name))
    kin = system.kin
    rng = np.random.default_rng(5)
    q, u, u_dot = rng.uniform(-1, 1, kin.n_q), rng.uniform(-1, 1, kin.n_u), rng.uniform(-1, 1, kin.n_u)
    if kin.joints[0].euler is not None:
        q[kin.joints[0].q_slice.stop - 2] = 1.0  # away from gimbal lock
    ks = kin.evaluate(q, u)
    assert np.allclose(np.einsum("bij,j->bi", ks.J_v, u), ks.v_com, atol=1e-13)
    assert np.allclose(np.einsum("bij,j->bi", ks.J_w, u), ks.omega, atol=1e-13)
    h = 1e-6
    qd = system.qdot(q, u)
    plus = kin.evaluate(q + h * qd, u + h * u_dot)
    minus = kin.evaluate(q - h * qd, u - h * u_dot)
    a_num = (plus.v_com - minus.v_com) / (2 * h)
    alpha_num = (plus.omega - minus.omega) / (2 * h)
    assert np.allclose(np.einsum("bij,j->bi", ks.J_v, u_dot) + ks.a_bias, a_num, atol=1e-7)
    assert np.allclose(np.einsum("bij,j->bi", ks.J_w, u_dot) + ks.alpha_bias, alpha_num, atol=1e-7)
