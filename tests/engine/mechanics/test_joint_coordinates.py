"""Joint coordinates in absolute coordinates (engine/mechanics/joint_coordinates.py): recovered from the
poses, written under their own names, and acting through joint springs, efforts, expression
forces and constraints written in them — the same motion as the joint-coordinate run."""
import math

import numpy as np
import pytest

from eomlab.engine.mechanics.joint_coordinates import JointCoordinates
from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile import model_from_dict
from eomlab.engine.presets import PRESETS, preset
from eomlab.engine.simulation import Simulation

TIGHT = dict(rtol=1e-10, atol=1e-10)


def _rod(name, parent, joint, length=1.0, mass=1.0):
    return {"name": name, "parent": parent, "joint": joint, "mass": mass, "com": [length / 2, 0, 0],
            "shape": {"kind": "rod", "length": length}}


#: models whose forces and constraints are written in joint coordinates (u0 is projected onto
#: the first-order rows the same way in both coordinates: least kinetic energy, a physical choice)
MODELS = {
    "planar_forces": {  # a damped joint spring, a joint effort, an expression force, a first-order row
        "bodies": [_rod("a", "ground", {"type": "revolute", "q0": [0.4]}),
                   _rod("b", "a", {"type": "revolute", "at": [1, 0, 0], "q0": [0.3]}),
                   _rod("c", "b", {"type": "revolute", "at": [1, 0, 0], "q0": [-0.2],
                                   "rotation": {"axis": [0, 0, 1], "angle": -1.5708}})],
        "constraints": [{"type": "expression", "name": "gear", "order": 1,
                         "equation": "b_theta_dot - c_theta_dot*cos(a_theta) - 0.3*sin(t)"}],
        "forces": [{"type": "joint_spring", "body": "b", "stiffness": 4, "rest": 0.3, "damping": 0.2},
                   {"type": "joint_effort", "body": "a", "value": ["0.5*sin(2*t) - 0.1*a_theta_dot"]},
                   {"type": "point_force", "body": "c", "point": [1, 0, 0], "value": ["0.2*cos(b_theta)", "0", "0"]}]},
    "planar_constrained": {  # a prismatic joint, position- and acceleration-level rows, a body torque
        "bodies": [{"name": "cart", "parent": "ground", "mass": 2.0, "shape": {"kind": "box", "size": [0.4, 0.2, 0.2]},
                    "joint": {"type": "prismatic", "axis": [1, 0, 0], "names": ["x"], "q0": [0.3 * math.sin(0.5)]}},
                   _rod("p", "cart", {"type": "revolute", "q0": [0.5], "axis": [0, 0, -1]}),
                   _rod("r", "p", {"type": "revolute", "at": [1, 0, 0], "q0": [0.2]})],
        "constraints": [{"type": "expression", "name": "follow", "equation": "x - 0.3*sin(p_theta)", "order": 0},
                        {"type": "expression", "name": "servo", "order": 2,
                         "equation": "r_theta_ddot + 0.5*p_theta_ddot + sin(r_theta)*x_dot**2"}],
        "forces": [{"type": "joint_spring", "body": "r", "stiffness": 2, "rest": 0.0},
                   {"type": "body_torque", "body": "p", "value": ["0", "0", "0.2*cos(t)*r_theta"]}]},
    "spatial_euler": {  # Euler angles with rate speeds: a 3-coordinate joint spring, a tilted hinge
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "top", "parent": "ground", "mass": 1.0, "com": [0, 0, -0.5], "inertia": [0.05, 0.05, 0.02],
                    "joint": {"type": "spherical", "sequence": "xyz", "speeds": "euler", "q0": [0.3, 0.2, 0.1],
                              "u0": [0, 0, 2.0]}},
                   {"name": "arm", "parent": "top", "mass": 0.5, "com": [0, 0, -0.4], "inertia": [0.01, 0.01, 0.004],
                    "joint": {"type": "revolute", "axis": [1, 1, 0], "at": [0, 0, -1], "q0": [0.3], "u0": [0.4]}}],
        "constraints": [{"type": "expression", "name": "link", "order": 1,
                         "equation": "arm_theta_dot - 0.5*top_psi_dot - 0.2*sin(t)"}],
        "forces": [{"type": "joint_spring", "body": "top", "stiffness": 3, "rest": [0, 0.5, 0], "damping": 0.1},
                   {"type": "joint_effort", "body": "arm", "value": ["0.3*sin(3*t) - 0.2*top_theta"]}]},
    "spatial_quaternion": {  # Euler parameters: a spring on them, rows in them, a slider's spring and effort
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "ball", "parent": "ground", "mass": 1.0, "com": [0, 0, -0.5], "inertia": [0.05, 0.04, 0.02],
                    "joint": {"type": "spherical", "orientation": "quaternion", "u0": [0.5, 0, 1.0],
                              "q0": [math.cos(0.2), math.sin(0.2), 0, 0]}},
                   {"name": "slider", "parent": "ball", "mass": 0.5, "inertia": [0.01, 0.01, 0.01],
                    "joint": {"type": "prismatic", "axis": [0, 0, -1], "at": [0, 0, -1], "q0": [0.1]}}],
        "constraints": [{"type": "expression", "name": "pull", "order": 2,
                         "equation": "slider_s_ddot + 0.3*ball_e1_ddot + 2*slider_s"},
                        {"type": "expression", "name": "spin", "equation": "ball_e3 - 0.1*ball_e2", "order": 0}],
        "forces": [{"type": "joint_spring", "body": "ball", "stiffness": 2, "rest": [1, 0, 0, 0], "damping": 0.05},
                   {"type": "joint_spring", "body": "slider", "stiffness": 20, "rest": 0.1},
                   {"type": "joint_effort", "body": "slider", "value": ["0.5*ball_e2 - 0.1*slider_s_dot"]}]},
}


def model(name):
    return model_from_dict({"eomlab": 1, "name": name, **MODELS[name]})


def _both(m, method, t_end):
    joint = Simulation(m, method=method, t_end=t_end, **TIGHT)
    absolute = Simulation(m, method=method, coordinates="absolute", t_end=t_end, **TIGHT)
    a, b = joint.run(), absolute.run()
    assert joint.failure is None and absolute.failure is None, (joint.failure, absolute.failure)
    return joint, a, absolute, b


def _largest_difference(joint, a, absolute, b, names) -> float:
    return max(float(np.max(np.abs(a[:, joint.column_index(c)] - b[:, absolute.column_index(c)]))) for c in names)


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*PRESETS, *MODELS])
def test_no_two_columns_share_a_name_and_joint_columns_come_first(name):
    """In both coordinates the columns after t are the joint coordinates and speeds; absolute
    runs add the poses under `<body>.pose_*`, which no joint coordinate can be called."""
    m = preset(name) if name in PRESETS else model(name)
    joint = Simulation(m, coordinates="joint", t_end=0.01)
    absolute = Simulation(m, coordinates="absolute", t_end=0.01)
    for sim in (joint, absolute):
        assert len(set(sim.columns)) == len(sim.columns), sim.columns
    n = 1 + len(joint.coordinate_names) + len(joint.speed_names)
    assert absolute.columns[:n] == joint.columns[:n] == ["t", *joint.coordinate_names, *joint.speed_names]
    poses = absolute.columns[absolute.state_columns[0]] + absolute.columns[absolute.state_columns[1]]
    assert poses and all(".pose_" in c for c in poses)


# --- recovering joint coordinates from poses -------------------------------------------------------


def test_joint_coordinates_from_poses_on_the_branch_nearest_the_reference():
    """Every joint kind (revolute about a tilted axis, prismatic, planar, Euler angles of a
    symmetric and an asymmetric sequence, Euler parameters, free): q_j from the poses equals q_j
    to 1e-12 with a reference off by whole turns plus 0.4 rad (angles follow the reference by
    whole turns; Euler angles take the solution nearest it; Euler parameters its sign)."""
    bodies = [
        {"name": "a", "parent": "ground", "mass": 1, "joint": {"type": "revolute", "axis": [1, 2, 3], "at": [0.1, 0, 0],
                                                               "rotation": {"axis": [1, 0, 0], "angle": 0.4}}},
        {"name": "b", "parent": "a", "mass": 1, "joint": {"type": "prismatic", "axis": [0, 2, 1], "at": [1, 0, 0]}},
        {"name": "c", "parent": "b", "mass": 1, "joint": {"type": "planar", "at": [0, 1, 0]}},
        {"name": "d", "parent": "c", "mass": 1, "joint": {"type": "spherical", "sequence": "zxz", "at": [1, 0, 0],
                                                          "speeds": "euler"}},
        {"name": "e", "parent": "d", "mass": 1, "joint": {"type": "free", "sequence": "yxz"}},
        {"name": "f", "parent": "e", "mass": 1, "joint": {"type": "spherical", "orientation": "quaternion"}},
    ]
    m = model_from_dict({"eomlab": 1, "gravity": [0, 0, -9.81], "bodies": bodies})
    view = JointCoordinates(m)
    rng = np.random.default_rng(5)
    angles = [0, 4, 5, 6, 7, 11, 12, 13]  # a_theta, c_theta, d's three, e's three angles
    e = slice(14, 18)  # f's Euler parameters
    for _ in range(20):
        q = rng.uniform(-2.5, 2.5, view.n_q)
        q[[6, 12]] = rng.uniform(0.3, 2.8), rng.uniform(-1.2, 1.2)  # away from the locks of zxz and yxz
        q[e] = rng.normal(size=4)
        q[e] /= np.linalg.norm(q[e])
        turns = rng.integers(-3, 4, size=len(angles))
        q[angles] += 2 * math.pi * turns
        reference = q.copy()
        reference[angles] += rng.uniform(-0.4, 0.4, size=len(angles))
        reference[e] *= -1 if rng.uniform() < 0.5 else 1
        q[e] *= np.sign(q[e] @ reference[e])
        view.reference = reference
        R, origin = view.kin.poses(q)
        assert np.allclose(view.coordinates(R, origin), q, rtol=0, atol=1e-12)


# --- the same motion ---------------------------------------------------------------------------------

def _preset_cases():
    for name in PRESETS:
        for method in METHODS:
            fast = name == "double_compound_pendulum" or (name == "heavy_top" and method == METHODS[0])
            marks = () if fast else (pytest.mark.slow,)
            yield pytest.param(name, method, marks=marks, id=f"{name}-{method}")


@pytest.mark.parametrize("name, method", list(_preset_cases()))
def test_every_preset_keeps_its_joint_columns_in_absolute_coordinates(name, method):
    """Each joint coordinate's and speed's column of the absolute run equals the joint run's to
    1e-7 at t = 2 s (rtol = atol = 1e-10). Unmarked: a planar preset in every formulation and a
    3-D one (the spinning heavy top: Euler angles from Euler parameters) in one; the rest `slow`."""
    joint, a, absolute, b = _both(preset(name), method, 2.0)
    names = joint.coordinate_names + joint.speed_names
    assert b[-1, 0] == a[-1, 0] == 2.0
    worst = max(abs(a[-1, joint.column_index(c)] - b[-1, absolute.column_index(c)]) for c in names)
    assert worst < 1e-7, worst


def _model_cases():
    for k, name in enumerate(MODELS):
        for i, method in enumerate(METHODS):
            marks = () if i == k % len(METHODS) else (pytest.mark.slow,)
            yield pytest.param(name, method, marks=marks, id=f"{name}-{method}")


@pytest.mark.parametrize("name, method", list(_model_cases()))
def test_forces_and_constraints_in_joint_coordinates_run_in_absolute_coordinates(name, method):
    """Joint springs (damped, on Euler angles and on Euler parameters too), joint efforts,
    expression forces and torques, and position-, velocity- and acceleration-level expression
    constraints in joint coordinates: over 0.5 s every joint coordinate, speed, E and multiplier
    of the absolute run equals the joint run's to 1e-7 (rtol = atol = 1e-10). Unmarked: each
    model with one formulation (a different one each); the rest `slow`."""
    joint, a, absolute, b = _both(model(name), method, 0.5)
    multipliers = [c for c in joint.columns if c.startswith("lambda_")]
    assert multipliers and set(multipliers) <= set(absolute.columns)
    names = joint.coordinate_names + joint.speed_names + ["E", *multipliers]
    assert _largest_difference(joint, a, absolute, b, names) < 1e-7
    assert np.ptp(a[:, joint.column_index("E")]) > 1e-3  # the forces do work: E changes
