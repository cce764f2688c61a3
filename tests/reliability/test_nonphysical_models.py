"""Non-physical models: each refused with the field (or the speed) that makes it so; a motion that
reaches a gimbal lock stops at that time, names the angle and says what to use instead."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.model import ModelError
from eomlab.engine.modelfile import loads_model
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from reliability_helpers import asset_dict

SOURCE = "model.eom.json"


def stop_time(failure: str) -> float:
    return float(re.match(r"run stopped at t = ([0-9.e+-]+) s", failure).group(1))


def _refused(data: dict) -> ModelError:
    with pytest.raises(ModelError) as info:
        loads_model(json.dumps(data), SOURCE)
    return info.value


def _pendulum(**body_fields) -> dict:
    data = asset_dict("simple_pendulum")
    data["bodies"][0].update(body_fields)
    return data


@pytest.mark.parametrize("fields, path, problem", [
    ({"mass": -1.0}, "bodies[0].mass", "must be >= 0"),
    ({"inertia": [-0.1, 1.0, 1.0]}, "bodies[0].inertia[0]", "must be >= 0"),
    ({"inertia": [[1, 0, 0], [0, 1, 0], [0, 0, -0.5]]}, "bodies[0].inertia", "positive semidefinite"),
    ({"inertia": [1.0, 1.0, 3.0]}, "bodies[0].inertia", "triangle inequality"),
    ({"inertia": [[1, 0, 0], [0, 2, 0], [0, 0, 4]]}, "bodies[0].inertia", "triangle inequality"),
    ({"inertia": [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}, "bodies[0].inertia", "not symmetric"),
    ({"shape": {"kind": "rod", "length": -1.0}}, "bodies[0].shape.length", "must be > 0"),
])
def test_non_physical_body_is_refused_at_its_field(fields, path, problem):
    error = _refused(_pendulum(**fields))
    assert error.path == path and problem in error.message and error.source == SOURCE


def test_zero_joint_axis_is_refused():
    data = asset_dict("simple_pendulum")
    data["bodies"][0]["joint"]["axis"] = [0.0, 0.0, 0.0]
    error = _refused(data)
    assert error.path == "bodies[0].joint.axis" and "nonzero" in error.message


def test_zero_knife_edge_direction_is_refused():
    data = asset_dict("knife_edge")
    data["constraints"][0]["direction"] = [0, 0, 0]
    error = _refused(data)
    assert error.path == "constraints[0].direction" and "nonzero" in error.message


def test_reflection_as_joint_rotation_is_refused():
    data = asset_dict("simple_pendulum")
    data["bodies"][0]["joint"]["rotation"] = [[1, 0, 0], [0, 1, 0], [0, 0, -1]]
    error = _refused(data)
    assert error.path == "bodies[0].joint.rotation" and "reflection" in error.message


def test_negative_spring_stiffness_is_refused():
    data = asset_dict("simple_pendulum")
    data["forces"] = [{"type": "joint_spring", "body": "bob", "stiffness": -5.0}]
    error = _refused(data)
    assert error.path == "forces[0].stiffness" and "must be >= 0" in error.message


def _with_massless_leaf() -> dict:
    data = asset_dict("simple_pendulum")
    leaf = json.loads(json.dumps(data["bodies"][0]))
    leaf.update(name="tip", parent="bob", mass=0.0, inertia=[0.0, 0.0, 0.0])
    leaf["joint"].update(names=["tip_theta"], at=[1.0, 0.0, 0.0])
    data["bodies"].append(leaf)
    return data


@pytest.mark.parametrize("method", METHODS)
def test_massless_leaf_body_is_refused_at_t0_naming_its_speed(method):
    model = loads_model(json.dumps(_with_massless_leaf()), SOURCE)  # valid as a file: a frame may be massless
    with pytest.raises(ModelError) as info:
        Simulation(model, method=method)
    message = str(info.value)
    assert "at t = 0" in message and "mass matrix is singular" in message and "tip_theta_dot" in message
    assert "bob_theta_dot" not in message  # the pendulum itself has mass: only the leaf is named


def test_singular_mass_matrix_at_the_start_names_the_speed():
    model = preset("simple_pendulum", mass=0.0)
    with pytest.raises(ModelError) as info:
        Simulation(model)
    assert info.value.path == "bodies" and "bob_theta_dot moves no mass or inertia" in info.value.message


def test_massless_intermediate_frame_is_allowed_while_m_stays_positive_definite():
    sim = Simulation(preset("cartesian_pendulum"), t_end=0.2)
    sim.run()
    assert sim.failure is None


def _tumbling_body(speeds: str):
    model = preset("rigid_body_fixed_point")
    body = model.bodies[0]
    joint = replace(body.joint, speeds=speeds, q0=(0.0, 0.2, 0.0), u0=(0.0, -1.0, 0.0))
    return replace(model, bodies=(replace(body, joint=joint),))


@pytest.mark.parametrize("method", ["lagrange", "kane"])
def test_gimbal_lock_stops_the_run_at_its_time_naming_the_angle(method):
    sim = Simulation(_tumbling_body("euler"), method=method, t_end=2.0, dt_out=0.01)
    rows = sim.run()
    # θ falls from 0.2 at 1 rad/s (a torque-free body): the lock θ = 0 comes at t = 0.2 s
    assert sim.failure is not None and abs(stop_time(sim.failure) - 0.2) < 1e-4
    assert "gimbal lock" in sim.failure and "body_theta" in sim.failure and '"speeds": "body"' in sim.failure
    assert 10 <= len(rows) <= 21 and np.all(np.isfinite(rows))  # the samples before the lock are kept
    assert rows[-1, 0] <= 0.2


def test_body_rate_speeds_pass_the_same_attitude():
    sim = Simulation(_tumbling_body("body"), method="kane", t_end=0.5)
    rows = sim.run()
    assert sim.failure is None and abs(rows[-1, 0] - 0.5) < 1e-12


def test_spinning_body_without_axial_inertia_is_refused_at_t0():
    """A spherical joint may spin the body about its axis: zero inertia there moves nothing."""
    data = asset_dict("heavy_top")
    data["bodies"][0]["inertia"] = [0.0625, 0.0625, 0.0]
    model = loads_model(json.dumps(data), SOURCE)
    with pytest.raises(ModelError) as info:
        Simulation(model)
    assert "at t = 0" in info.value.message and "top_wz moves no mass or inertia" in info.value.message


def test_absurd_initial_speed_stops_at_once_with_a_message():
    data = asset_dict("rolling_disk_leaning")
    data["bodies"][0]["joint"]["u0"][0] = 1e300
    assert _refused(data).path == "bodies[0].joint.u0[0]"  # a file's is beyond the range check
    model = loads_model(json.dumps(asset_dict("rolling_disk_leaning")), SOURCE)
    disk = model.bodies[0]
    built = replace(model, bodies=(replace(disk, joint=replace(disk.joint, u0=(1e300,) + disk.joint.u0[1:])),))
    with pytest.raises(ModelError) as info:  # a model built in code: the first sample overflows, nothing kept
        Simulation(built, t_end=0.05)
    assert info.value.path == "bodies" and "non-finite" in info.value.message and "t = 0" in info.value.message
