"""Euler parameters: spherical/free joints with orientation "quaternion" (4 coordinates, 3 speeds)
and 3-D absolute coordinates (position + Euler parameters + the normalisation constraint)."""
import json
from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from eomlab.engine.methods import METHODS, REGISTRY
from eomlab.engine.model import ModelError, Stabilization
from eomlab.engine.modelfile import dumps_model, loads_model
from eomlab.engine.presets import preset
from eomlab.engine.rotations import (
    quaternion_body_rates, quaternion_from_matrix, quaternion_matrix, quaternion_rate_matrix, skew,
)
from eomlab.engine.simulation import Simulation
from eomlab.engine.mechanics.system import build_system

from engine_helpers import FORMULATIONS, column, run
from representatives import first_row_everywhere

TIGHT = dict(rtol=1e-11, atol=1e-11)
RNG = np.random.default_rng(7)


def _box(orientation="quaternion", q0=None, u0=(1.0, 0.1, 0.5), inertia=(1.0, 2.0, 3.0), **joint):
    """A torque-free body about a fixed point, written as a model file."""
    joint = {"type": "spherical", "orientation": orientation, "u0": list(u0), **joint}
    if q0 is not None:
        joint["q0"] = list(q0)
    data = {"eomlab": 1, "name": "tumbling box", "gravity": [0, 0, 0],
            "bodies": [{"name": "box", "parent": "ground", "mass": 1.0, "inertia": list(inertia), "joint": joint}]}
    return data


def _load(data):
    return loads_model(json.dumps(data))


# --- rotations ------------------------------------------------------------------------------


def test_quaternion_matrix_is_a_rotation_and_ignores_the_scale():
    for _ in range(20):
        p = RNG.normal(size=4)
        R = quaternion_matrix(p)
        assert np.max(np.abs(R @ R.T - np.eye(3))) < 1e-14 and abs(np.linalg.det(R) - 1) < 1e-14
        assert np.max(np.abs(quaternion_matrix(3.7 * p) - R)) < 1e-14
        p_unit = quaternion_from_matrix(R)
        assert np.max(np.abs(quaternion_matrix(p_unit) - R)) < 1e-14 and abs(p_unit @ p_unit - 1) < 1e-14


def test_kinematic_equations_keep_the_norm_and_give_R_dot_equal_R_times_omega():
    """ṗ = ½ p ⊗ ω: pᵀṗ = 0, and dR/dt = R [ω]× (checked by a central difference, 1e-8)."""
    for _ in range(10):
        p = RNG.normal(size=4)
        p /= np.linalg.norm(p)
        w = RNG.normal(size=3)
        p_dot = quaternion_rate_matrix(p) @ w
        assert abs(p @ p_dot) < 1e-15
        assert np.max(np.abs(quaternion_body_rates(p, p_dot) - w)) < 1e-14
        h = 1e-6
        R_dot = (quaternion_matrix(p + h * p_dot) - quaternion_matrix(p - h * p_dot)) / (2 * h)
        assert np.max(np.abs(R_dot - quaternion_matrix(p) @ skew(w))) < 1e-8


# --- joint coordinates in Euler parameters -----------------------------------------------------


def test_euler_parameter_joint_has_four_coordinates_and_three_speeds():
    system = build_system(_load(_box()))
    assert system.coordinate_names == ["box_e0", "box_e1", "box_e2", "box_e3"]
    assert system.speed_names == ["box_wx", "box_wy", "box_wz"]
    assert (system.n_q, system.n_u) == (4, 3)
    assert np.array_equal(system.q0, [1.0, 0.0, 0.0, 0.0])  # the identity by default
    W = system.kin.rate_matrix(system.q0)
    assert W.shape == (4, 3) and np.allclose(W, quaternion_rate_matrix(system.q0))


def _euler_equations(inertia, w0, t_end):
    J = np.array(inertia)
    return solve_ivp(lambda t, w: -np.cross(w, J * w) / J, (0, t_end), w0, method="DOP853",
                     rtol=1e-13, atol=1e-13, dense_output=True)


def test_torque_free_body_in_euler_parameters_follows_eulers_equations(method):
    """I = diag(1, 2, 3) from the identity attitude — gimbal lock for a zxz joint, nothing for
    Euler parameters — over 20 s: T and |H| conserved to 1e-9, body rates = Euler's equations
    to 1e-8, the world angular momentum R J ω fixed to 1e-8, e·e − 1 below 1e-9."""
    inertia, w0 = (1.0, 2.0, 3.0), (1.0, 0.1, 0.5)
    sim, rows = run(_load(_box(u0=w0, inertia=inertia)), method, t_end=20.0, **TIGHT)
    w = np.column_stack([column(sim, rows, f"box_{c}") for c in ("wx", "wy", "wz")])
    p = np.column_stack([column(sim, rows, f"box_e{k}") for k in range(4)])
    J = np.array(inertia)
    energy = 0.5 * np.sum(J * w * w, axis=1)
    assert np.max(np.abs(energy / energy[0] - 1)) < 1e-9
    ref = _euler_equations(inertia, w0, 20.0).sol(rows[:, 0]).T
    assert np.max(np.abs(w - ref)) < 1e-8
    H_world = np.array([quaternion_matrix(pk) @ (J * wk) for pk, wk in zip(p, w)])
    assert np.max(np.abs(H_world - H_world[0])) < 1e-8
    assert np.max(column(sim, rows, "drift_pos")) < 1e-9
    assert np.max(column(sim, rows, "drift_pos")) == pytest.approx(np.max(np.abs(np.sum(p * p, axis=1) - 1)))


def test_body_rates_match_the_jacobi_elliptic_solution(method):
    """Euler's equations in closed form (I1 < I2 < I3, H² > 2T I2, ω2(0) = 0):
    ω1 = a1 cn(λt, k), ω2 = a2 sn(λt, k), ω3 = a3 dn(λt, k) with
    a1² = (2T I3 − H²)/(I1(I3 − I1)), a2² = (2T I3 − H²)/(I2(I3 − I2)), a3² = (H² − 2T I1)/(I3(I3 − I1)),
    λ² = (I3 − I2)(H² − 2T I1)/(I1 I2 I3), k² = (I2 − I1)(2T I3 − H²)/((I3 − I2)(H² − 2T I1)).
    The Euler-parameter body follows it to 1e-9 over 20 s."""
    from scipy.special import ellipj

    I1, I2, I3 = J = np.array([1.0, 2.0, 3.0])
    w0 = np.array([0.3, 0.0, 1.0])
    sim, rows = run(_load(_box(u0=w0, inertia=J)), method, t_end=20.0, **TIGHT)
    H2, T2 = np.sum((J * w0) ** 2), np.sum(J * w0 ** 2)
    lam = np.sqrt((I3 - I2) * (H2 - T2 * I1) / (I1 * I2 * I3))
    k2 = (I2 - I1) * (T2 * I3 - H2) / ((I3 - I2) * (H2 - T2 * I1))
    sn, cn, dn, _ = ellipj(lam * rows[:, 0], k2)
    closed = np.column_stack((np.sqrt((T2 * I3 - H2) / (I1 * (I3 - I1))) * cn,
                              np.sqrt((T2 * I3 - H2) / (I2 * (I3 - I2))) * sn,
                              np.sqrt((H2 - T2 * I1) / (I3 * (I3 - I1))) * dn))
    w = np.column_stack([column(sim, rows, f"box_{c}") for c in ("wx", "wy", "wz")])
    assert np.max(np.abs(w - closed)) < 1e-9


def test_euler_parameters_and_euler_angles_give_the_same_motion(method):
    """The rigid body preset (zxz angles) against the same body in Euler parameters: rates and
    attitude agree to 1e-9 at every sample over 5 s."""
    angles = preset("rigid_body_fixed_point")
    sim_a, rows_a = run(angles, method, t_end=5.0, **TIGHT)
    R0 = build_system(angles).poses(build_system(angles).q0)[0][0]
    body = angles.bodies[0]
    data = _box(q0=quaternion_from_matrix(R0), u0=body.joint.u0, inertia=np.diag(body.inertia).tolist())
    sim_q, rows_q = run(_load(data), method, t_end=5.0, **TIGHT)
    for c in ("wx", "wy", "wz"):
        assert np.max(np.abs(column(sim_a, rows_a, f"body_{c}") - column(sim_q, rows_q, f"box_{c}"))) < 1e-9
    sys_a, sys_q = build_system(angles), build_system(_load(data))
    for ra, rq in zip(rows_a[::50], rows_q[::50]):
        Ra = sys_a.poses(ra[1:4])[0][0]
        Rq = sys_q.poses(rq[1:5])[0][0]
        assert np.max(np.abs(Ra - Rq)) < 1e-9


def test_joint_spring_on_euler_parameters_conserves_energy(method):
    """A spherical pendulum in Euler parameters with a joint spring on them (Q = Wᵀτ over the
    joint's coordinate rows) under gravity: E constant to 5e-9 over 5 s."""
    data = _box(q0=[0.9, 0.3, 0.2, 0.1], u0=(0.5, -1.0, 2.0))
    data["gravity"] = [0, 0, -9.81]
    data["bodies"][0]["com"] = [0.0, 0.0, -1.0]
    data["forces"] = [{"type": "joint_spring", "name": "twist", "body": "box", "stiffness": 3.0, "rest": [1, 0, 0, 0]}]
    sim, rows = run(_load(data), method, t_end=5.0, **TIGHT)
    E = column(sim, rows, "E")
    assert np.max(np.abs(E - E[0])) / abs(E[0]) < 5e-9  # the integrator's error at 1e-11
    assert any("normalised" in n for n in sim.notes)  # |q0| was 0.975


def test_projection_keeps_the_normalisation_exact():
    """With projection, e·e − 1 stays below 1e-12 on a loose tolerance where it drifts without."""
    model = _load(_box(u0=(3.0, 0.3, 1.5)))
    loose = dict(rtol=1e-6, atol=1e-6, t_end=10.0)
    free = Simulation(model, method="kane", **loose)
    rows_free = free.run()
    with_projection = replace(model, settings=replace(model.settings, stabilization=Stabilization(kind="projection")))
    projected = Simulation(with_projection, method="kane", **loose)
    rows_proj = projected.run()
    assert free.failure is None and projected.failure is None
    assert np.max(rows_free[:, free.column_index("drift_pos")]) > 1e-9
    assert np.max(rows_proj[:, projected.column_index("drift_pos")]) < 1e-12


# --- absolute coordinates in 3-D ----------------------------------------------------------------


def test_spatial_absolute_coordinates_are_position_and_euler_parameters():
    system = build_system(preset("spatial_chain"), "absolute")
    names = system.coordinate_names
    assert names[:7] == [f"{system.body_names[0]}.pose_{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
    assert system.speed_names[:6] == [f"{system.body_names[0]}.pose_{c}" for c in ("x_dot", "y_dot", "z_dot", "wx", "wy", "wz")]
    assert system.n_q == 7 * len(system.body_names) and system.n_u == 6 * len(system.body_names)
    assert np.max(np.abs(system.kin.normalisation_residuals(system.q0))) < 1e-15


@pytest.mark.parametrize("name,method", first_row_everywhere(["heavy_top", "spatial_chain"], FORMULATIONS))
def test_spatial_absolute_coordinates_reproduce_the_joint_motion(name, method):
    """Euler-parameter absolute coordinates against joint coordinates (Euler angles): mass
    centres to 1e-8 and E to 1e-8 at every sample over 2 s (rtol = atol = 1e-11). The top in
    every formulation, the chain in one (every formulation: make test-all)."""
    joint = Simulation(preset(name), method=method, t_end=2.0, **TIGHT)
    absolute = Simulation(preset(name), method=method, coordinates="absolute", t_end=2.0, **TIGHT)
    a, b = joint.run(), absolute.run()
    assert joint.failure is None and absolute.failure is None
    com = [c for c in joint.columns if c.endswith((".x", ".y", ".z"))]
    for c in com + ["E"]:
        assert np.max(np.abs(a[:, joint.column_index(c)] - b[:, absolute.column_index(c)])) < 1e-8, c
    assert np.max(b[:, absolute.column_index("drift_pos")]) < 1e-9


def test_absolute_heavy_top_runs_through_the_gimbal_lock_of_its_joint_angles():
    """A top started upright (zxz nutation 0: the Euler angles' singularity) cannot start in
    joint coordinates; in absolute coordinates (Euler parameters) it runs and keeps E to 1e-9."""
    top = preset("heavy_top", nutation=0.0)
    with pytest.raises(ModelError):
        Simulation(top, method="kane", t_end=1.0)
    sim, rows = run(top, "kane", coordinates="absolute", t_end=1.0, **TIGHT)
    E = column(sim, rows, "E")
    assert np.max(np.abs(E - E[0])) / abs(E[0]) < 1e-9


# --- the model file ------------------------------------------------------------------------


def test_model_file_round_trip_keeps_the_orientation():
    model = _load(_box(q0=[0.5, 0.5, 0.5, 0.5]))
    again = loads_model(dumps_model(model))
    assert again == model and again.bodies[0].joint.quaternion
    free = _box(q0=[0, 0, 1, 1, 0, 0, 0], u0=[0, 0, 0, 1, 2, 3], type="free")
    assert loads_model(dumps_model(_load(free))).bodies[0].joint.names[-4:] == ("box_e0", "box_e1", "box_e2", "box_e3")


@pytest.mark.parametrize("change,path,words", [
    ({"type": "revolute"}, "bodies[0].joint.orientation", "spherical and free"),
    ({"speeds": "euler"}, "bodies[0].joint.speeds", "body-rate"),
    ({"q0": [0, 0, 0, 0]}, "bodies[0].joint.q0", "all zero"),
    ({"q0": [1, 0, 0]}, "bodies[0].joint.q0", "4"),
    ({"orientation": "quaternions"}, "bodies[0].joint.orientation", "quaternion"),
])
def test_model_file_errors_name_the_field(change, path, words):
    data = _box()
    data["bodies"][0]["joint"].update(change)
    with pytest.raises(ModelError) as err:
        _load(data)
    assert err.value.path == path and words in err.value.message


def test_prescribing_an_euler_parameter_is_refused_by_name():
    data = _box()
    data["constraints"] = [{"type": "prescribed", "name": "servo", "coordinate": "box_e1", "motion": "0.1*t"}]
    with pytest.raises(ModelError) as err:
        Simulation(_load(data), method="kane")
    assert "box_e1" in str(err.value) and "orientation coordinate" in str(err.value)


def _heavy_body_in_euler_parameters():
    """A box on a spherical joint in Euler parameters, mass centre off the pivot, under gravity,
    with a joint spring on its parameters: partial velocities, gravity and Wᵀτ all count."""
    data = _box(q0=[0.8, 0.4, -0.2, 0.4], u0=(0.5, -1.0, 2.0))
    data["gravity"] = [0, 0, -9.81]
    data["bodies"][0]["com"] = [0.2, -0.1, 0.7]
    data["forces"] = [{"type": "joint_spring", "name": "twist", "body": "box", "stiffness": 3.0, "rest": [1, 0, 0, 0]}]
    return _load(data)


@pytest.mark.parametrize("model", [lambda: preset("tumbling_box"), _heavy_body_in_euler_parameters])
def test_symbolic_kane_equals_the_numeric_engine_with_euler_parameters(model):
    """Kane's symbolic M and forcing at random unit Euler parameters and rates = the numeric
    engine's to 1e-10; the kinematic equations are ṗ = ½ p ⊗ ω."""
    import sympy as sp

    from eomlab.engine.symbolic import derive

    model = model()
    eq = derive(model, "kane")
    system = build_system(model)
    symbols = {s.name: s for s in (eq.mass_matrix.free_symbols | sp.Matrix(eq.forcing).free_symbols)}
    for _ in range(3):
        p = RNG.normal(size=4)
        q = p / np.linalg.norm(p)
        u = RNG.normal(size=3)
        values = dict(zip(system.coordinate_names, q)) | dict(zip(system.speed_names, u))
        subs = {sym: values[name] for name, sym in symbols.items() if name in values}
        M = np.array(eq.mass_matrix.xreplace(subs).evalf(), dtype=float)
        f = np.array(sp.Matrix(eq.forcing).xreplace(subs).evalf(), dtype=float).ravel()
        assert np.max(np.abs(M - system.mass_matrix(q))) < 1e-10
        assert np.max(np.abs(f - system.forcing(0.0, q, u))) < 1e-10


@pytest.mark.parametrize("method", [k for k in METHODS if not REGISTRY[k].symbolic_in_speeds])
def test_symbolic_rate_forms_refuse_euler_parameters_in_one_line(method):
    from eomlab.engine.symbolic import equations_text

    with pytest.raises(ModelError) as err:
        equations_text(_load(_box()), method)
    assert err.value.path == "bodies[0].joint.orientation" and "kane" in err.value.message
    assert "\n" not in str(err.value)


def _mixed_joints_3d():
    """A 3-D tree with a tilted revolute, a prismatic, a planar and a fixed joint: every kind
    of JointRows (translation and rotation rows, joint-frame and world axes)."""
    s = 0.5 ** 0.5
    data = {"eomlab": 1, "name": "mixed joints", "gravity": [0, -9.81, -2.0], "bodies": [
        {"name": "arm", "parent": "ground", "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0.02, 0.1, 0.1],
         "joint": {"type": "revolute", "axis": [0, s, s], "q0": [0.4], "u0": [1.0]}},
        {"name": "slider", "parent": "arm", "mass": 0.5, "inertia": [0.01, 0.02, 0.03],
         "joint": {"type": "prismatic", "axis": [1, 0, 0], "at": [1, 0, 0], "q0": [0.2], "u0": [0.3]}},
        {"name": "puck", "parent": "slider", "mass": 0.3, "com": [0.1, 0.05, 0], "inertia": [0.01, 0.01, 0.02],
         "joint": {"type": "planar", "at": [0, 0.2, 0], "rotation": {"axis": [1, 0, 0], "angle": 0.7},
                   "q0": [0.1, -0.1, 0.5], "u0": [0.2, 0.1, -1.0]}},
        {"name": "tag", "parent": "puck", "mass": 0.2, "com": [0, 0, 0.1], "inertia": [0.01, 0.01, 0.01],
         "joint": {"type": "fixed", "at": [0.3, 0, 0]}}]}
    return _load(data)


def test_spatial_joint_rows_fast_path_equals_the_full_evaluation():
    """Rows at u from the rows at u = 0 (JointRows.bias_at) = a fresh evaluation at u, 1e-12."""
    from eomlab.engine.constraints import StateContext

    system = build_system(_mixed_joints_3d(), "absolute")
    cs = system.constraints
    for _ in range(4):
        q = system.kin.normalised(system.q0 + 0.05 * RNG.normal(size=system.n_q))
        u = RNG.uniform(-1, 1, system.n_u)
        W = system.kin.rate_matrix(q)
        full = cs.evaluate(StateContext(t=0.0, q=q, u=u, qd=W @ u, W=W, ks=system.kin.evaluate(q, u)))
        zero = np.zeros(system.n_u)
        split = cs.evaluate_split(StateContext(t=0.0, q=q, u=zero, qd=zero, W=W, ks=system.kin.positions(q)))
        fast = cs.rows_at(split, StateContext(t=0.0, q=q, u=u, qd=W @ u, W=W, ks=system.kin.evaluate(q, u)))
        for field in ("A", "b", "position", "velocity"):
            a, b = getattr(fast, field), getattr(full, field)
            assert np.max(np.abs(a - b)) <= 1e-12 * max(1.0, np.max(np.abs(b))), field


def test_spatial_absolute_coordinates_with_every_joint_kind_reproduce_the_joint_motion(method):
    """Revolute (tilted), prismatic, planar and fixed joints as rows of free bodies in Euler
    parameters: mass centres and E equal the joint-coordinate run to 1e-8 over 1 s."""
    model = _mixed_joints_3d()
    joint = Simulation(model, method=method, t_end=1.0, **TIGHT)
    absolute = Simulation(model, method=method, coordinates="absolute", t_end=1.0, **TIGHT)
    a, b = joint.run(), absolute.run()
    assert joint.failure is None and absolute.failure is None
    for c in [c for c in joint.columns if c.endswith((".x", ".y", ".z"))] + ["E"]:
        assert np.max(np.abs(a[:, joint.column_index(c)] - b[:, absolute.column_index(c)])) < 1e-8, c


def test_expression_constraints_on_euler_parameters_make_a_pendulum(method):
    """A spherical joint in Euler parameters held to turns about x by the expression constraints
    e2 = 0 and e3 = 0 (rows through q̇ = W u, q̈ = W u̇ + Ẇ u) is a compound pendulum: from
    2.5 rad, period 4·sqrt(I_p/(m g l))·K(sin²(θ0/2)) to 1e-8 relative; the constraints hold
    to 1e-9."""
    import math

    from scipy.special import ellipk

    from engine_helpers import crossing_times

    theta0, inertia = 2.5, 0.1
    data = _box(q0=[math.cos(theta0 / 2), math.sin(theta0 / 2), 0, 0], u0=(0, 0, 0), inertia=[inertia] * 3)
    data["gravity"] = [0, 0, -9.81]
    data["bodies"][0]["com"] = [0.0, 0.0, -1.0]
    data["constraints"] = [{"type": "expression", "name": "about_x_2", "equation": "box_e2", "order": 0},
                           {"type": "expression", "name": "about_x_3", "equation": "box_e3", "order": 0}]
    sim, rows = run(_load(data), method, t_end=7.0, rtol=1e-12, atol=1e-12)
    turns = crossing_times(rows[:, 0], column(sim, rows, "box_wx"))
    exact = 4.0 * math.sqrt((1.0 + inertia) / 9.81) * ellipk(math.sin(theta0 / 2) ** 2)
    assert abs((turns[2] - turns[0]) - exact) / exact < 1e-8
    assert np.max(np.abs(column(sim, rows, "box_e2"))) < 1e-9 and np.max(np.abs(column(sim, rows, "box_e3"))) < 1e-9


def test_expression_in_an_euler_angle_of_a_body_rate_joint_is_refused_by_name():
    model = preset("heavy_top")
    data = json.loads(dumps_model(model))
    data["constraints"] = [{"type": "expression", "name": "fixed_spin", "equation": "top_phi - 0.1*t", "order": 0}]
    with pytest.raises(ModelError) as err:
        Simulation(_load(data), method="kane")
    assert err.value.path == "constraints[0].equation" and "top_phi" in err.value.message


def test_expression_beside_a_body_rate_joint_follows_its_motion(method):
    """A slider driven by the expression s − 0.2 sin t = 0 in a model whose top has body-rate
    Euler angles (rows through W with the angles left alone): s(t) = 0.2 sin t to 1e-9, and the
    top's energy is untouched by it (1e-9)."""
    data = json.loads(dumps_model(preset("heavy_top")))
    data["bodies"].append({"name": "slider", "parent": "ground", "mass": 0.5,
                           "joint": {"type": "prismatic", "axis": [1, 0, 0], "at": [2, 0, 0], "u0": [0.2]}})
    data["constraints"] = [{"type": "expression", "name": "drive", "equation": "slider_s - 0.2*sin(t)", "order": 0}]
    sim, rows = run(_load(data), method, t_end=2.0, **TIGHT)
    t = rows[:, 0]
    assert np.max(np.abs(column(sim, rows, "slider_s") - 0.2 * np.sin(t))) < 1e-9
    T_top = column(sim, rows, "T") - 0.5 * 0.5 * column(sim, rows, "slider_s_dot") ** 2
    V = column(sim, rows, "V")
    assert np.max(np.abs((T_top + V) - (T_top[0] + V[0]))) < 1e-9  # the top alone (V: its gravity only)
