"""URDF and MJCF import: each mechanism imported and simulated for 2 s matches MuJoCo simulating
the same MJCF with RK4 at dt = 1e-4 (mass-centre positions to 1e-5); MJCF's qpos maps one to one."""
from __future__ import annotations

import numpy as np
import pytest

import eomlab
from eomlab.cli import main

from mujoco_helpers import eomlab_positions, mujoco_positions
from robot_files import MECHANISMS, mjcf, urdf

pytest.importorskip("mujoco")
TOLERANCE = 1e-5


def imported(tmp_path, name: str, text: str, suffix: str):
    source, target = tmp_path / f"{name}{suffix}", tmp_path / f"{name}.eom.json"
    source.write_text(text)
    assert main(["import", str(source), "-o", str(target)]) == 0
    return eomlab.load(target)


@pytest.mark.parametrize("name", MECHANISMS)
def test_urdf_matches_mujoco(tmp_path, name):
    links = MECHANISMS[name]()
    model = imported(tmp_path, name, urdf(name, links), ".urdf")
    bodies = [link.name for link in links]
    assert model.gravity == (0.0, 0.0, -9.81)
    reference = mujoco_positions(mjcf(name, links, keyframe=False, ball_as_hinges=True), bodies)
    ours = eomlab_positions(model, bodies)
    assert np.ptp(reference, axis=0).max() > 0.05  # it moves
    assert np.abs(ours - reference).max() < TOLERANCE


@pytest.mark.parametrize("name", MECHANISMS)
def test_mjcf_matches_mujoco(tmp_path, name):
    import mujoco

    links = MECHANISMS[name]()
    xml = mjcf(name, links, keyframe=True)
    model = imported(tmp_path, name, xml, ".xml")
    bodies = [link.name for link in links]
    reference = mujoco_positions(xml, bodies)
    ours = eomlab_positions(model, bodies)
    assert np.abs(ours - reference).max() < TOLERANCE
    # one to one: eomlab's coordinates are MuJoCo's qpos at the start and after 1 s
    mj = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(mj)
    mujoco.mj_resetDataKeyframe(mj, data, 0)
    result = eomlab.simulate(model, t_end=1.0, dt_out=1.0, rtol=1e-11, atol=1e-11)
    names = model.coordinate_names
    assert np.allclose([result[n][0] for n in names], data.qpos, atol=1e-12)
    mj.opt.timestep, mj.opt.integrator = 1e-4, mujoco.mjtIntegrator.mjINT_RK4
    for _ in range(10000):
        mujoco.mj_step(mj, data)
    assert np.abs(np.array([result[n][-1] for n in names]) - data.qpos).max() < TOLERANCE
