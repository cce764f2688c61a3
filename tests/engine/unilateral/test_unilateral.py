"""Unilateral constraints (engine.unilateral), issue 28's "done when" checks in every formulation and
both coordinate choices: a pendulum onto a stop (e = 1, 0.5, 0), a bouncing ball, Newton's cradle."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ellipk

from eomlab.engine.methods import METHODS
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

COORDINATES = ("joint", "absolute")
G = 9.81
BOTH = [pytest.param(m, c, id=f"{m}-{c}") for m in METHODS for c in COORDINATES]


def _column(sim, rows, name):
    return rows[:, sim.column_index(name)]


@pytest.mark.parametrize("method,coordinates", BOTH)
def test_pendulum_onto_a_stop_with_e_1_is_back_at_the_horizontal_at_rest(method, coordinates):
    """Released at rest from the horizontal onto a limit at the vertical (1 kg, 1 m): back at the
    horizontal at t = 2 √(l/g) K(1/2) to 1e-8 rad, E constant to 1e-9 of m g l."""
    t_back = 2.0 * math.sqrt(1.0 / G) * ellipk(0.5)
    sim = Simulation(preset("pendulum_stop", restitution=1.0), method=method, coordinates=coordinates,
                     t_end=t_back, rtol=1e-11, atol=1e-11)
    rows = sim.run()
    assert sim.failure is None
    assert len(sim._unilateral.reports) == 1
    assert abs(rows[-1, 0] - t_back) < 1e-12
    assert abs(_column(sim, rows, "bob_theta")[-1] - math.pi / 2) < 1e-8
    assert abs(_column(sim, rows, "bob_theta_dot")[-1]) < 1e-8
    E = _column(sim, rows, "E")
    assert np.max(np.abs(E - E[0])) < 1e-9 * G  # E0 = 0 (V = 0 at the pivot's height): relative to m g l
    assert np.min(_column(sim, rows, "bob_theta")) > -1e-9  # never through the stop


@pytest.mark.parametrize("method,coordinates", BOTH)
def test_pendulum_onto_a_stop_with_e_half_loses_1_minus_e2_of_its_kinetic_energy(method, coordinates):
    """E after the first impact = E₀ − (1 − e²) T⁻ to 1e-9 relative (T⁻ = m g l at the vertical)."""
    e = 0.5
    sim = Simulation(preset("pendulum_stop", restitution=e), method=method, coordinates=coordinates,
                     t_end=0.9, rtol=1e-11, atol=1e-11)
    rows = sim.run()
    report = sim._unilateral.reports[0]
    assert abs(report.t - math.sqrt(1.0 / G) * ellipk(0.5)) < 1e-9
    E = _column(sim, rows, "E")
    after = rows[:, 0] > report.t
    expected = E[0] - (1.0 - e * e) * G
    assert np.max(np.abs(E[after] - expected)) < 1e-9 * abs(expected)


@pytest.mark.parametrize("method,coordinates", BOTH)
def test_pendulum_onto_a_stop_with_e_0_stays_at_the_limit(method, coordinates):
    sim = Simulation(preset("pendulum_stop", restitution=0.0), method=method, coordinates=coordinates, t_end=2.0)
    rows = sim.run()
    after = rows[:, 0] > 0.6
    assert sim.failure is None
    assert np.max(np.abs(_column(sim, rows, "bob_theta")[after])) < 1e-8
    assert np.max(np.abs(_column(sim, rows, "bob_theta_dot")[after])) < 1e-8


@pytest.mark.parametrize("method,coordinates", BOTH)
def test_bouncing_ball_rebounds_to_e2_h_and_comes_to_rest(method, coordinates):
    """Radius 0.1 m, lowest point from 1 m, e = 0.8: the first rebound reaches 0.64 m (to 1e-6 m;
    the height of each sample between the first two impacts is y + v²/2g, its flight's peak), and
    the bounces end, in finitely many impacts, at rest on the ground before t = 4.1 s."""
    sim = Simulation(preset("bouncing_ball", speed=0.0), method=method, coordinates=coordinates, t_end=4.5,
                     dt_out=0.01)
    rows = sim.run()
    assert sim.failure is None
    reports = sim._unilateral.reports
    between = (rows[:, 0] > reports[0].t) & (rows[:, 0] < reports[1].t)
    y, v = _column(sim, rows, "ball_y")[between], _column(sim, rows, "ball_y_dot")[between]
    peak = y + v * v / (2 * G) - 0.1
    assert np.max(np.abs(peak - 0.64)) < 1e-6
    assert reports[-1].t < 4.1 and len(reports) < 100
    assert list(sim._unilateral.resting) == [0]
    rest = rows[:, 0] > 4.1
    assert np.max(np.abs(_column(sim, rows, "ball_y")[rest] - 0.1)) < 1e-8
    assert np.max(np.abs(_column(sim, rows, "ball_y_dot")[rest])) < 1e-8


@pytest.mark.parametrize("n", [2, 5])
@pytest.mark.parametrize("method,coordinates", BOTH)
def test_newtons_cradle_sends_the_far_ball_to_the_release_height(n, method, coordinates):
    """e = 1: when the far ball turns (a quarter of its period after the impact, the period of the
    compound pendulum with the ball's own inertia, I = m l² + 2/5 m r²) it is at the release angle
    and every other ball is at rest at the bottom, to 1e-8."""
    theta0, length, radius = 0.6, 1.0, 0.1
    quarter = math.sqrt((length**2 + 0.4 * radius**2) / (G * length)) * ellipk(math.sin(theta0 / 2) ** 2)
    sim = Simulation(preset("newtons_cradle", n=n, theta0=theta0, radius=radius), method=method, coordinates=coordinates,
                     t_end=2 * quarter, rtol=1e-11, atol=1e-11)
    rows = sim.run()
    assert sim.failure is None
    last = rows[-1]
    angles = np.array([last[sim.column_index(f"ball{i + 1}_theta")] for i in range(n)])
    speeds = np.array([last[sim.column_index(f"ball{i + 1}_theta_dot")] for i in range(n)])
    assert abs(angles[-1] - theta0) < 1e-8 and abs(speeds[-1]) < 1e-8
    assert np.max(np.abs(angles[:-1])) < 1e-8 and np.max(np.abs(speeds[:-1])) < 1e-8
    (report,) = sim._unilateral.reports
    assert report.rounds == n - 1  # the momentum passed on ball by ball, all at one instant


def test_all_five_formulations_give_the_same_jumps():
    """The impulses of every impact of the double pendulum with joint limits, per formulation and
    coordinate choice, agree to 1e-8 N·m·s (the same instants to 1e-9 s)."""
    model = preset("double_pendulum_limits")
    seen = {}
    for method in METHODS:
        for coordinates in COORDINATES:
            sim = Simulation(model, method=method, coordinates=coordinates, t_end=3.0, rtol=1e-11, atol=1e-11)
            sim.run()
            assert sim.failure is None
            seen[method, coordinates] = [(r.t, r.impulses) for r in sim._unilateral.reports]
    reference = seen["lagrange", "joint"]
    assert len(reference) >= 2
    for key, reports in seen.items():
        assert len(reports) == len(reference), key
        for (t, impulses), (t_ref, ref) in zip(reports, reference):
            assert abs(t - t_ref) < 1e-9, key
            assert np.max(np.abs(impulses - ref)) < 1e-8, key


def test_a_start_outside_the_limits_is_brought_to_the_limit_and_said_once():
    model = preset("double_pendulum_limits")
    elbow = model.bodies[1]
    from dataclasses import replace

    model = replace(model, bodies=(model.bodies[0], replace(elbow, joint=replace(elbow.joint, q0=(1.7,)))))
    sim = Simulation(model, t_end=0.2)
    rows = sim.run()
    notes = [n for n in sim.notes if "outside its limits" in n]
    assert len(notes) == 1 and "lower_theta" in notes[0]
    theta = _column(sim, rows, "lower_theta")
    assert theta[0] == 1.0 and np.max(theta) <= 1.0 + 1e-9


def test_joint_without_a_finite_limit_runs_bit_for_bit_as_without_limits():
    """The hooks change nothing while no row acts: a joint whose limits are (−inf, inf) runs
    exactly as the model without limits."""
    from dataclasses import replace

    plain = preset("double_compound_pendulum")
    upper = plain.bodies[0]
    unlimited = replace(plain, bodies=(replace(upper, joint=replace(upper.joint, limits=(-math.inf, math.inf))),
                                       plain.bodies[1]))
    a = Simulation(plain, t_end=1.0).run()
    b_sim = Simulation(unlimited, t_end=1.0)
    assert b_sim._unilateral is not None
    assert np.array_equal(a, b_sim.run())
    assert Simulation(plain)._unilateral is None


def test_export_writes_joint_ranges_and_notes_contacts():
    pytest.importorskip("mujoco")
    import mujoco

    from eomlab.engine.robot_formats import export_mjcf

    text, notes = export_mjcf(preset("double_pendulum_limits"))
    mj = mujoco.MjModel.from_xml_string(text)
    assert list(mj.jnt_limited) == [0, 1] and list(mj.jnt_range[1]) == [-1.0, 1.0]
    _, notes = export_mjcf(preset("newtons_cradle", n=3))
    assert sum("contact touch" in n and "not exported" in n for n in notes) == 2


@pytest.mark.parametrize("attributes,limits", [('range="-30 45"', (-math.pi / 6, math.pi / 4)),
                                               ('range="-30 45" limited="false"', ()), ("", ())])
def test_mjcf_import_maps_a_range_and_nothing_else(tmp_path, attributes, limits):
    from eomlab.engine.robot_formats import import_model

    path = tmp_path / "arm.xml"
    path.write_text(f'<mujoco><worldbody><body name="arm"><joint name="j" type="hinge" {attributes}/>'
                    '<geom type="sphere" size="0.1" mass="1"/></body></worldbody></mujoco>')
    model, warnings = import_model(path)
    assert model.bodies[0].joint.limits == pytest.approx(limits)
    assert not any("limit" in w for w in warnings)


def _pendulum_file(change):
    import json

    from eomlab.engine.modelfile import dumps_model

    data = json.loads(dumps_model(preset("bouncing_ball")))
    data["bodies"].append(json.loads(dumps_model(preset("pendulum_stop")))["bodies"][0])
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize("change,field,words", [
    (lambda d: d["bodies"][1]["joint"].update(limits=[1.0, 0.5]), "bodies[1].joint.limits", "above the upper"),
    (lambda d: d["bodies"][1]["joint"].update(restitution=1.5), "bodies[1].joint.restitution", "[0, 1]"),
    (lambda d: d["constraints"][0].update(restitution=-0.1), "constraints[0].restitution", "[0, 1]"),
    (lambda d: d["constraints"][0]["a"].update(radius=0.0), "constraints[0].a.radius", "> 0"),
    (lambda d: d["constraints"][0]["a"].update(body="wheel"), "constraints[0].a.body", "unknown body"),
    (lambda d: d["constraints"][0].update(b={"body": "nobody", "radius": 0.1}), "constraints[0].b.body", "unknown body"),
], ids=["lower-above-upper", "joint-e", "contact-e", "radius", "missing-body", "missing-body-b"])
def test_bad_unilateral_input_exits_2_with_one_line_naming_the_field(tmp_path, capsys, change, field, words):
    from eomlab.cli import main

    bad = tmp_path / "bad.eom.json"
    bad.write_text(_pendulum_file(change))
    assert main(["run", str(bad), "--t-end", "0.01"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and field in lines[0] and words in lines[0], captured.err


def test_file_round_trip_of_limits_restitution_and_contacts(tmp_path):
    import json

    from eomlab.engine.modelfile import dumps_model, loads_model

    for name in ("pendulum_stop", "bouncing_ball", "newtons_cradle", "double_pendulum_limits"):
        model = preset(name)
        assert loads_model(dumps_model(model)) == model
    data = json.loads(dumps_model(preset("double_pendulum_limits")))
    data["bodies"][0]["joint"]["limits"] = [None]
    data["bodies"][1]["joint"]["limits"] = [[-0.5, 0.5]]
    model = loads_model(json.dumps(data))
    assert model.bodies[0].joint.limits == (-math.inf, math.inf) and model.bodies[1].joint.limits == (-0.5, 0.5)
    assert loads_model(dumps_model(model)) == model
