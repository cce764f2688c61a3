"""Import details: what cannot be mapped is one warning per kind; meshes become their bounding box;
limits are kept; MJCF defaults, degrees, joint anchors and several joints in one body."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import eomlab
from eomlab.engine.robot_formats import import_model


def binary_stl(path, points):
    facets = [points[k:k + 3] for k in range(0, len(points) - 2, 3)]
    with open(path, "wb") as out:
        out.write(b"\0" * 80 + struct.pack("<I", len(facets)))
        for facet in facets:
            out.write(struct.pack("<3f", 0, 0, 1) + b"".join(struct.pack("<3f", *p) for p in facet) + b"\0\0")


MJCF = """<mujoco model="arm">
  <compiler angle="degree" meshdir="meshes"/>
  <default><joint damping="0.5"/><default class="stiff"><joint stiffness="10" springref="30"/></default></default>
  <asset><mesh name="hand" file="hand.stl" scale="2 2 2"/></asset>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="base" pos="0 0 1" euler="0 0 90">
      <joint name="yaw" type="hinge" axis="0 0 1" range="-90 90" pos="0.1 0 0"/>
      <inertial pos="0.2 0 0" mass="2" diaginertia="0.1 0.2 0.25"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/>
      <geom type="sphere" size="0.1"/>
      <body name="wrist" pos="0.5 0 0">
        <joint name="w1" class="stiff" type="hinge" axis="0 1 0"/>
        <joint name="w2" type="slide" axis="1 0 0" pos="0 0 0.1"/>
        <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
        <geom type="mesh" mesh="hand"/>
        <site name="tip" pos="0.2 0 0"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="m1" joint="yaw"/><motor name="m2" joint="w1"/></actuator>
  <tendon><fixed name="t"><joint joint="w1" coef="1"/></fixed></tendon>
  <contact><exclude body1="base" body2="wrist"/></contact>
  <sensor><jointpos joint="yaw"/></sensor>
  <equality><weld body1="wrist"/></equality>
</mujoco>"""


def test_mjcf_details_and_warnings(tmp_path):
    (tmp_path / "meshes").mkdir()
    binary_stl(tmp_path / "meshes" / "hand.stl", [(0, 0, 0), (0.1, 0.02, 0), (0, 0.05, 0.03)])
    path = tmp_path / "arm.xml"
    path.write_text(MJCF)
    model, warnings = import_model(path)
    kinds = [w.split(" not imported")[0] for w in warnings]
    assert len(kinds) == len(set(kinds))  # one warning per kind
    for expected in ("<actuator> elements", "<tendon> elements", "<contact> elements", "<sensor> elements",
                     "<weld> equality constraints", "extra geoms", "meshes", "<site>", "<geom> in <worldbody>"):
        assert expected in kinds, (expected, warnings)
    assert any("m1, m2" in w for w in warnings)
    base, w1, wrist = model.bodies
    assert [b.name for b in model.bodies] == ["base", "wrist_w1", "wrist"] and w1.mass == 0
    assert base.joint.limits == pytest.approx((-np.pi / 2, np.pi / 2))
    # the hinge anchor (0.1, 0, 0) is the body origin: the joint frame moves there, the mass centre back
    assert np.allclose(base.joint.at, [0.0, 0.1, 1.0]) and np.allclose(base.com, [0.1, 0, 0])
    assert np.allclose(wrist.joint.at, [0, 0, 0.1]) and np.allclose(wrist.com, [0.1, 0, -0.1])
    assert wrist.shape.kind == "box" and np.allclose(wrist.shape.size, [0.2, 0.1, 0.06], atol=1e-6)
    springs = {f.body: f for f in model.forces}
    assert springs["base"].damping == 0.5 and springs["base"].stiffness == 0
    assert springs["wrist_w1"].stiffness == 10 and springs["wrist_w1"].rest == pytest.approx((np.pi / 6,))
    assert eomlab.simulate(model, t_end=0.2).failure is None


URDF = """<robot name="r">
      <link name="base"><inertial><mass value="3"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="arm-1"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
        <inertia ixx="0.01" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
        <visual><geometry><cylinder radius="0.02" length="1"/></geometry></visual></link>
      <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm-1"/>
        <axis xyz="0 0 2"/><limit lower="-1" upper="1.5" effort="10" velocity="2"/><dynamics damping="0.1"/></joint>
      <transmission name="t1"/><gazebo/>
    </robot>"""


def test_urdf_warnings_limits_and_root_link(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(URDF)
    model, warnings = import_model(path)
    base, arm = model.bodies
    assert base.joint.type == "fixed" and base.parent == "ground"  # a root link with mass is welded
    assert arm.name == "arm_1" and arm.joint.names == ("shoulder",) and arm.joint.axis == (0.0, 0.0, 1.0)
    assert arm.joint.limits == (-1.0, 1.5) and arm.shape.kind == "rod"
    assert len(warnings) == 2  # <dynamics damping> is the joint's damping now (a joint spring of no stiffness)
    (damper,) = model.forces
    assert (damper.type, damper.body, damper.stiffness, damper.damping) == ("joint_spring", "arm_1", 0.0, 0.1)
    assert any("<transmission>" in w for w in warnings) and any("<gazebo>" in w for w in warnings)
    saved = tmp_path / "r.eom.json"
    eomlab.save(eomlab.checked(model), saved)
    assert eomlab.load(saved).bodies[1].joint.limits == (-1.0, 1.5)  # limits survive the file
