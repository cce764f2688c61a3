"""Built-in models: they build, their files load back equal, their initial states are consistent."""
import math

import numpy as np
import pytest

from eomlab.engine import presets
from eomlab.engine.model import GROUND, Coincident, Distance, KnifeEdge, Model, Prescribed, RollingDisk
from eomlab.engine.modelfile import load_model, model_from_dict, model_to_dict
from eomlab.engine.presets import DEFAULT_PRESET, PRESETS, euler_matrix, preset
from test_modelfile import example

from project_paths import MODELS as ASSETS


# --- a small forward kinematics, independent of the engine, to check initial states ---------


def elementary(letter, angle):
    return euler_matrix(letter * 3, (angle, 0.0, 0.0))


def rotation_about(axis, angle):
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def joint_motion(joint, q, u):
    """Joint-frame rotation, translation, angular velocity (joint axes) and velocity of the body
    origin (joint axes) for joint coordinates q and speeds u."""
    axis = np.array(joint.axis)
    if joint.type == "revolute":
        return rotation_about(axis, q[0]), np.zeros(3), axis * u[0], np.zeros(3)
    if joint.type == "prismatic":
        return np.eye(3), axis * q[0], np.zeros(3), axis * u[0]
    if joint.type == "planar":
        return elementary("z", q[2]), np.array([q[0], q[1], 0.0]), np.array([0, 0, u[2]]), np.array([u[0], u[1], 0.0])
    if joint.type == "universal":  # R = R(axis, θ₁) R(axis2, θ₂); the second axis turned by the first
        first, second = rotation_about(axis, q[0]), rotation_about(np.array(joint.axis2), q[1])
        return first @ second, np.zeros(3), axis * u[0] + first @ np.array(joint.axis2) * u[1], np.zeros(3)
    if joint.type == "spherical" and joint.speeds == "body":
        rotation = euler_matrix(joint.sequence, q)
        return rotation, np.zeros(3), rotation @ np.array(u), np.zeros(3)
    if joint.type == "free" and joint.speeds == "body":
        rotation = euler_matrix(joint.sequence, q[3:])
        return rotation, np.array(q[:3]), rotation @ np.array(u[3:]), np.array(u[:3])
    raise NotImplementedError(joint.type)


def world_state(model: Model, q_all=None, u_all=None):
    """Per body: (R, origin, omega, velocity of origin) in world axes."""
    q_all = list(q_all) if q_all is not None else [v for b in model.bodies for v in b.joint.q0]
    u_all = list(u_all) if u_all is not None else [v for b in model.bodies for v in b.joint.u0]
    state = {GROUND: (np.eye(3), np.zeros(3), np.zeros(3), np.zeros(3))}
    for body in model.bodies:
        j = body.joint
        q, u = q_all[: j.dof], u_all[: j.dof]
        q_all, u_all = q_all[j.dof:], u_all[j.dof:]
        r_p, o_p, w_p, v_p = state[body.parent]
        r_joint = r_p @ np.array(j.rotation)
        o_joint = o_p + r_p @ np.array(j.at)
        v_joint = v_p + np.cross(w_p, o_joint - o_p)
        rot, shift, w_rel, v_rel = joint_motion(j, q, u)
        origin = o_joint + r_joint @ shift
        omega = w_p + r_joint @ w_rel
        velocity = v_joint + np.cross(w_p, r_joint @ shift) + r_joint @ v_rel
        state[body.name] = (r_joint @ rot, origin, omega, velocity)
    return state


def point_state(state, body, point):
    rotation, origin, omega, velocity = state[body]
    offset = rotation @ np.array(point)
    return origin + offset, velocity + np.cross(omega, offset)


def constraint_residuals(model: Model):
    """Position- and velocity-level residuals of the presets' constraints at q0, u0."""
    state = world_state(model)
    position, speed = [], []
    for c in model.constraints:
        if isinstance(c, (Coincident, Distance)):
            pa, va = point_state(state, c.a.body, c.a.point)
            pb, vb = point_state(state, c.b.body, c.b.point)
            if isinstance(c, Coincident):
                rows = ["xyz".index(d) for d in c.dims]
                position += list((pa - pb)[rows])
                speed += list((va - vb)[rows])
            else:
                position.append(np.linalg.norm(pa - pb) - c.length)
                speed.append(np.dot(pa - pb, va - vb))
        elif isinstance(c, KnifeEdge):
            rotation = state[c.body][0]
            _, v = point_state(state, c.body, c.point)
            speed.append(np.dot(v, rotation @ np.array(c.direction)))
        elif isinstance(c, RollingDisk):
            rotation, centre, omega, velocity = state[c.body]
            axis = rotation @ np.array(c.axis)
            up = np.array([0, 0, 1.0]) - axis[2] * axis
            contact = centre - c.radius * up / np.linalg.norm(up)
            position.append(contact[2])
            speed += list(velocity + np.cross(omega, contact - centre))
        elif isinstance(c, Prescribed):
            names = model.coordinate_names
            q = [v for b in model.bodies for v in b.joint.q0]
            position.append(q[names.index(c.coordinate)] - 0.0)  # every preset motion starts at 0
    return np.array(position), np.array(speed)


# --- tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_builds_and_validates(name):
    model = preset(name)
    assert isinstance(model, Model)
    assert model.bodies
    assert model_from_dict(model_to_dict(model)) == model


@pytest.mark.parametrize("name", list(PRESETS))
def test_asset_file_loads_and_equals_preset(name):
    assert load_model(ASSETS / f"{name}.eom.json") == PRESETS[name]()


def test_assets_are_exactly_the_presets_and_up_to_date(tmp_path):
    assert sorted(p.name for p in ASSETS.glob("*.eom.json")) == sorted(f"{n}.eom.json" for n in PRESETS)
    presets.write_presets(str(tmp_path))
    for name in PRESETS:
        assert (tmp_path / f"{name}.eom.json").read_bytes() == (ASSETS / f"{name}.eom.json").read_bytes(), name


def test_default_preset_is_the_contract_example():
    assert DEFAULT_PRESET in PRESETS
    assert preset(DEFAULT_PRESET) == model_from_dict(example())  # MODEL_FORMAT.md's example (test_modelfile)
    assert preset("double_pendulum_absolute").settings.coordinates == "absolute"


def test_unknown_preset():
    with pytest.raises(KeyError, match="unknown preset"):
        preset("perpetuum_mobile")


@pytest.mark.parametrize("n", [1, 2, 200])
@pytest.mark.parametrize("kind", ["rod", "point"])
def test_planar_chain_sizes(n, kind):
    model = preset("planar_chain", n=n, kind=kind)
    assert len(model.bodies) == n and len(model.coordinate_names) == n
    assert model.bodies[0].joint.q0 == (0.5,)
    assert all(b.joint.q0 == (0.0,) for b in model.bodies[1:])
    last = model.bodies[-1]
    if kind == "rod":
        assert last.com == (0.5, 0.0, 0.0) and last.inertia[2][2] == pytest.approx(1 / 12)
    else:
        assert last.com == (1.0, 0.0, 0.0) and not any(map(any, last.inertia))
    assert model_from_dict(model_to_dict(model)) == model


def test_planar_chain_angles_and_limits():
    model = preset("planar_chain", n=3, angles=[0.1, 0.2, 0.3], length=2.0, mass=3.0)
    assert [b.joint.q0[0] for b in model.bodies] == [0.1, 0.2, 0.3]
    assert model.bodies[2].joint.at == (2.0, 0.0, 0.0) and model.bodies[2].mass == 3.0
    with pytest.raises(ValueError):
        preset("planar_chain", n=0)
    with pytest.raises(ValueError):
        preset("planar_chain", n=2, angles=[0.1])
    with pytest.raises(ValueError):
        preset("planar_chain", kind="blob")


def test_chain_angle_zero_points_along_x_and_pendulum_zero_hangs_down():
    chain = world_state(preset("planar_chain", n=2, angles=[0.0, 0.0]))
    np.testing.assert_allclose(chain["link2"][1], [1.0, 0.0, 0.0], atol=1e-15)
    pendulum = preset("simple_pendulum", theta0=0.0)
    bob, _ = point_state(world_state(pendulum), "bob", pendulum.body("bob").com)
    np.testing.assert_allclose(bob, [0.0, -1.0, 0.0], atol=1e-15)
    cart = preset("cart_pendulum", theta0=0.0)
    assert cart.coordinate_names == ("x", "theta")
    bob, _ = point_state(world_state(cart), "bob", cart.body("bob").com)
    np.testing.assert_allclose(bob, [0.0, -1.0, 0.0], atol=1e-15)


def test_spatial_chain_hangs_down_at_zero_angles():
    model = preset("spatial_chain", n=2)
    straight = world_state(model, q_all=[0.0] * 6, u_all=[0.0] * 6)
    np.testing.assert_allclose(straight["link2"][1], [0.0, 0.0, -1.0], atol=1e-15)
    assert model.gravity == (0.0, 0.0, -9.81)
    assert any(any(b.joint.u0) for b in model.bodies)


def test_fixed_point_body_momentum_along_joint_z():
    model = preset("rigid_body_fixed_point")
    body = model.body("body")
    rotation = euler_matrix("zxz", body.joint.q0)
    momentum_world = rotation @ (np.array(body.inertia) @ np.array(body.joint.u0))
    np.testing.assert_allclose(momentum_world[:2], [0.0, 0.0], atol=1e-12)
    assert model.gravity == (0.0, 0.0, 0.0)
    assert math.sin(body.joint.q0[1]) > 0.3  # away from the zxz singularity


def test_heavy_top():
    top = preset("heavy_top").body("top")
    assert top.joint.type == "spherical" and top.joint.sequence == "zxz"
    assert top.joint.q0[1] == 0.3 and top.joint.u0[2] > 20
    assert top.com == (0.0, 0.0, 0.5)


CONSTRAINED = ["four_bar", "cartesian_pendulum", "spherical_pendulum_cartesian", "knife_edge", "chaplygin_sleigh",
               "rolling_disk_vertical", "rolling_disk_leaning", "driven_crank", "cardan_shaft"]


@pytest.mark.parametrize("name", CONSTRAINED)
def test_initial_state_satisfies_constraints(name):
    position, speed = constraint_residuals(preset(name))
    np.testing.assert_allclose(position, 0.0, atol=1e-12)
    np.testing.assert_allclose(speed, 0.0, atol=1e-12)


def test_four_bar_is_grashof_crank_rocker():
    model = preset("four_bar")
    lengths = sorted([4.0] + [b.shape.length for b in model.bodies])
    assert lengths[0] + lengths[-1] <= lengths[1] + lengths[2]
    assert model.bodies[0].shape.length == lengths[0]  # the crank is the shortest link


def test_rolling_disks_move():
    vertical = world_state(preset("rolling_disk_vertical"))["disk"]
    np.testing.assert_allclose(vertical[3], [1.0, 0.0, 0.0], atol=1e-12)
    leaning = preset("rolling_disk_leaning")
    assert leaning.body("disk").joint.q0[4] == pytest.approx(math.pi / 2 - 0.3)


def test_chaplygin_offset_and_acceleration_constraint():
    assert preset("chaplygin_sleigh").body("sled").com == (0.5, 0.0, 0.0)
    assert preset("knife_edge").body("sled").com == (0.0, 0.0, 0.0)
    particle = preset("acceleration_constraint_particle")
    assert particle.constraints[0].order == 2
    assert set(particle.coordinate_names) == {"x", "y"}
