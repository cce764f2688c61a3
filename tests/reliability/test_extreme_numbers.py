"""Numbers at the edges of floating point: each class of mutant the fuzzer found (issue 18) has
its exact file under hostile/, refused with exit 2 and one line naming the field (or, for a
gimbal lock at the start, the angle and t = 0), no numpy warning, nothing written. The range
checks themselves (engine/limits.py) are tested on the loader and on models built in code."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import warnings
from dataclasses import replace

import numpy as np
import pytest

from eomlab.cli import main
from eomlab.engine import limits
from eomlab.engine.model import ModelError
from eomlab.engine.modelfile import load_model, loads_model
from eomlab.engine.simulation import Simulation

from reliability_helpers import ROOT, asset_dict, fingerprint

HOSTILE = pathlib.Path(__file__).parent / "hostile"

# file -> (field path, words of the message); every file is a shipped model with one value changed
EXPECTED = {
    # tracebacks (ValueError: array must not contain infs or NaNs)
    "knife_edge_direction_1e308": ("constraints[0].direction[1]", "at most 1e12"),
    "chaplygin_direction_1e308": ("constraints[0].direction[0]", "at most 1e12"),
    "rolling_disk_axis_1e308": ("constraints[0].axis[2]", "at most 1e12"),
    "four_bar_at_1e308": ("bodies[2].joint.at[0]", "at most 1e12 m"),
    "slider_crank_at_minus_1e308": ("bodies[1].joint.at[0]", "at most 1e12 m"),
    "spherical_pendulum_length_1e308": ("constraints[0].length", "at most 1e12 m"),
    # GimbalLock escaping: an Euler angle near (not at) its singularity at the start
    "heavy_top_theta_1e-308_lagrange": ("bodies", "at t = 0: Euler-angle gimbal lock: top_theta = 1e-308"),
    "heavy_top_theta_1e-308_euler_rates": ("bodies", "at t = 0: Euler-angle gimbal lock: top_theta = 1e-308"),
    # the message came after numpy's RuntimeWarning lines
    "pendulum_mass_1e308": ("bodies[0].mass", "at most 1e12 kg"),
    "knife_edge_mass_1e308": ("bodies[0].mass", "at most 1e12 kg"),
    "pendulum_com_1e308": ("bodies[0].com[0]", "at most 1e12 m"),
    "top_inertia_1e308": ("bodies[0].inertia", "at most 1e12 kg·m²"),
    # OverflowError at m·l²/12 (issue 31): the rod's length is named before its inertia is derived
    "compound_rod_length_1e200_inertia_from_shape": ("bodies[0].shape.length", "at most 1e12 m"),
    "pendulum_rotation_entry_1e308": ("bodies[0].joint.rotation", "not orthonormal"),
    "disk_speed_minus_1e308": ("bodies[0].joint.u0[5]", "at most 1e12"),
    "pendulum_q0_2_pow_63": ("bodies[0].joint.q0[0]", "at most 1e12"),
    "box_euler_parameter_1.8e308": ("bodies[0].joint.q0[0]", "at most 1e12"),
    "pendulum_stiffness_1e300": ("forces[0].stiffness", "at most 1e12"),
    # scipy's "rtol is too small" UserWarning
    "sleigh_rtol_5e-324": ("settings.rtol", "at least 2.2e-14"),
    # a 0.05 s run that took minutes in silence: refused by the range check
    "pendulum_gravity_minus_9.81e12": ("gravity[1]", "at most 1e12 m/s²"),
}


def test_every_hostile_file_is_listed():
    assert sorted(p.name[:-len(".eom.json")] for p in HOSTILE.glob("*.eom.json")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file_exits_2_with_one_line_naming_the_field(tmp_path, capsys, name):
    path = HOSTILE / f"{name}.eom.json"
    before = fingerprint(path)
    out = tmp_path / "out.csv"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(["run", str(path), "--t-end", "0.05", "--out", str(out)])
    captured = capsys.readouterr()
    field, words = EXPECTED[name]
    assert code == 2 and captured.out == "" and not out.exists()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"eomlab: {path}: {field}: ") and words in lines[0], captured.err
    assert not caught, [str(w.message) for w in caught]
    assert fingerprint(path) == before


@pytest.mark.parametrize("name", ["four_bar_at_1e308", "pendulum_mass_1e308", "heavy_top_theta_1e-308_lagrange",
                                  "compound_rod_length_1e200_inertia_from_shape"])
def test_the_real_command_prints_no_warning_and_no_traceback(tmp_path, name):
    """The same through a fresh interpreter: numpy's default warning filters, the real stderr."""
    out = tmp_path / "out.csv"
    proc = subprocess.run([sys.executable, "-m", "eomlab", "run", str(HOSTILE / f"{name}.eom.json"),
                           "--t-end", "0.05", "--out", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and not out.exists()
    assert len(proc.stderr.splitlines()) == 1 and EXPECTED[name][0] in proc.stderr, proc.stderr


# --- the limits themselves ---------------------------------------------------------------------------


def _pendulum(change) -> str:
    data = asset_dict("simple_pendulum")
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize("value, ok", [(1e12, True), (-1e12, True), (1.0000001e12, False), (-9.81e12, False),
                                       (1e-300, True), (5e-324, True)])
def test_gravity_limit_is_1e12_inclusive(value, ok):
    text = _pendulum(lambda d: d.update(gravity=[0.0, value, 0.0]))
    if ok:
        assert loads_model(text).gravity[1] == value
    else:
        with pytest.raises(ModelError) as info:
            loads_model(text)
        assert info.value.path == "gravity[1]" and "at most 1e12 m/s²" in info.value.message


def test_body_paths_are_the_file_indices_when_the_loader_reorders_the_bodies():
    data = asset_dict("double_compound_pendulum")
    data["bodies"].reverse()  # the child first: the model holds the parent first
    data["bodies"][0]["mass"] = 2e12
    with pytest.raises(ModelError) as info:
        loads_model(json.dumps(data))
    assert info.value.path == "bodies[0].mass" and data["bodies"][0]["name"] == "lower"


def test_inertia_from_a_huge_shape_says_where_it_comes_from():
    def change(d):
        body = d["bodies"][0]
        body.pop("inertia", None)
        body.update(mass=1e6, shape={"kind": "rod", "length": 1e4})
    with pytest.raises(ModelError) as info:
        loads_model(_pendulum(change))
    assert info.value.path == "bodies[0].inertia" and "from the shape and the mass" in info.value.message


def test_a_tiny_nonzero_direction_is_normalised_exactly():
    data = asset_dict("knife_edge")
    data["constraints"][0]["direction"] = [0.0, 1e-300, 1e-300]  # the naive norm underflows to 0
    direction = loads_model(json.dumps(data)).constraints[0].direction
    assert direction == pytest.approx((0.0, 2**-0.5, 2**-0.5), abs=1e-15)


def test_a_model_built_in_code_is_checked_too():
    model = load_model(ROOT / "assets" / "models" / "simple_pendulum.eom.json")
    bob = model.bodies[0]
    with pytest.raises(ModelError) as info:
        limits.check_limits(replace(model, bodies=(replace(bob, mass=float("nan")),)))
    assert info.value.path == "bodies[0].mass" and "finite" in info.value.message
    with pytest.raises(ModelError) as info:
        limits.check_limits(replace(model, bodies=(replace(bob, joint=replace(bob.joint, axis=(0.0, 0.0, 2.0))),)))
    assert info.value.path == "bodies[0].joint.axis" and "unit vector" in info.value.message
    assert limits.check_limits(model) is model


def test_an_rtol_below_the_integrators_floor_given_on_the_command_line_is_refused(tmp_path, capsys):
    path = ROOT / "assets" / "models" / "simple_pendulum.eom.json"
    assert main(["run", str(path), "--t-end", "0.05", "--rtol", "1e-20", "--out", str(tmp_path / "o.csv")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "settings.rtol" in lines[0] and "at least 2.2e-14" in lines[0]


def test_a_start_that_fails_in_the_equations_is_one_model_error_at_t0(monkeypatch):
    """Whatever raises on the way to the first sample (here a non-finite row as scipy refuses
    it) is bad input: a ModelError naming t = 0, not a traceback."""
    from eomlab.engine import simulation

    def refuse(*args, **kwargs):
        raise ValueError("array must not contain infs or NaNs")

    monkeypatch.setattr(simulation, "build_system", refuse)
    model = load_model(ROOT / "assets" / "models" / "four_bar.eom.json")
    with pytest.raises(ModelError) as info, warnings.catch_warnings():
        warnings.simplefilter("error")
        Simulation(model, t_end=0.05)
    assert "at t = 0" in info.value.message and "infs or NaNs" in info.value.message


def test_values_at_the_limit_run_or_stop_with_a_message():
    """1e12 is allowed: a pendulum of 1e12 kg on a 1e12 m rod at 1e12 rad/s stays finite."""
    data = asset_dict("simple_pendulum")
    data["bodies"][0].update(mass=1e12, com=[1e12, 0.0, 0.0])
    data["bodies"][0]["joint"]["u0"] = [1e12]
    sim = Simulation(loads_model(json.dumps(data)), t_end=1e-12, dt_out=1e-13)
    rows = sim.run()
    assert np.all(np.isfinite(rows))
    assert sim.failure is None or sim.failure.startswith("run stopped at t = ")
