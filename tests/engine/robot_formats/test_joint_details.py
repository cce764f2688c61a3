"""Issue #29 item 2: what MuJoCo and ROS files rely on beyond the kinematics, each against MuJoCo or pinocchio.

Armature (every formulation, both coordinate choices, the compiled and the numpy path), MJCF `ref`/`springref`,
`springdamper`, `<equality joint>`, the gravity flag; URDF `<dynamics damping>` and `<mimic>`; a joint named like
its body keeps its name."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import eomlab
from eomlab.engine.methods import METHODS
from eomlab.engine.robot_formats import import_model

mujoco = pytest.importorskip("mujoco")

ARMATURE = """<mujoco model="armature"><compiler angle="radian"/><option><flag contact="disable"/></option>
<worldbody>
<body name="a" pos="0 0 1"><joint name="j1" type="hinge" axis="0 1 0" armature="0.3"/>
 <inertial pos="0 0 -0.5" mass="1" diaginertia="0.1 0.1 0.01"/>
 <body name="b" pos="0 0 -1"><joint name="j2" type="slide" axis="1 0 0" armature="0.7"/>
  <inertial pos="0.1 0 -0.3" mass="2" diaginertia="0.1 0.12 0.05"/>
  <body name="c" pos="0 0 -0.5"><joint name="j3" type="ball" armature="0.05"/>
   <inertial pos="0.2 0.1 -0.3" mass="1.5" fullinertia="0.1 0.12 0.08 0.01 0.0 0.02"/></body></body></body>
<body name="f" pos="2 0 1"><freejoint name="fj"/><inertial pos="0.1 0 0" mass="1" diaginertia="0.1 0.2 0.3"/></body>
</worldbody>
<keyframe><key qpos="0.5 0.1 0.9 0.3 0.2 0.1 2 0 1 1 0 0 0" qvel="1 -0.5 1 -2 0.5 0.3 0.2 0.1 1 2 3"/></keyframe>
</mujoco>"""
BODIES = ("a", "b", "c", "f")


def write(tmp_path, text: str, name: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def mujoco_centres(xml: str, bodies, t_end: float, setup=None) -> np.ndarray:
    """MuJoCo's mass centres of `bodies` at t_end (RK4, dt 1e-4, from the first keyframe)."""
    m = mujoco.MjModel.from_xml_string(xml)
    m.opt.timestep, m.opt.integrator = 1e-4, mujoco.mjtIntegrator.mjINT_RK4
    if setup is not None:
        setup(m)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(int(round(t_end / 1e-4))):
        mujoco.mj_step(m, d)
    return np.array([d.xipos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, b)] for b in bodies])


def eomlab_centres(model, bodies, t_end: float, **options) -> np.ndarray:
    result = eomlab.simulate(model, t_end=t_end, dt_out=t_end, rtol=1e-11, atol=1e-11, **options)
    assert result.failure is None, result.failure
    return np.array([[result[f"{b}.{axis}"][-1] for axis in "xyz"] for b in bodies]), result


@pytest.fixture(scope="module")
def armature_reference():
    return mujoco_centres(ARMATURE, BODIES, 0.5)


@pytest.mark.parametrize("fast", ["1", "0"], ids=["compiled", "numpy"])
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("method", METHODS)
def test_armature_moves_as_mujoco(tmp_path, monkeypatch, armature_reference, method, coordinates, fast):
    """A hinge, a slide, a ball and a free joint with armature: mass centres after 0.5 s equal MuJoCo's
    (RK4, dt 1e-4) to 1e-8 m (measured ≤ 2e-11), and the energy with the rotors' ½ a u² is conserved to 1e-8."""
    monkeypatch.setenv("EOMLAB_FAST_PATH", fast)
    model, warnings = import_model(write(tmp_path, ARMATURE, "a.xml"))
    assert warnings == [] and [b.joint.armature for b in model.bodies] == [0.3, 0.7, 0.05, 0.0]
    ours, result = eomlab_centres(model, BODIES, 0.5, method=method, coordinates=coordinates)
    assert np.abs(ours - armature_reference).max() < 1e-8
    assert np.ptp(result["E"]) < 1e-8 * abs(result["E"][0])


def test_armature_changes_the_motion(tmp_path, armature_reference):
    """The check above can fail: without the armature the same file moves visibly differently."""
    model, _ = import_model(write(tmp_path, ARMATURE, "a.xml"))
    bare = dataclasses.replace(model, bodies=tuple(dataclasses.replace(b, joint=dataclasses.replace(b.joint, armature=0.0))
                                                   for b in model.bodies))
    ours, _ = eomlab_centres(bare, BODIES, 0.5)
    assert np.abs(ours - armature_reference).max() > 1e-3


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_armature_on_euler_angles_every_formulation(tmp_path, coordinates):
    """The ball joint in Euler angles with body rates (Lagrange integrates the angle rates, where the
    armature's rows are the body rates R_iᵀ(ω_i − ω_p)): every formulation moves as Kane's in joint
    coordinates, which equals MuJoCo's (above), to 1e-9 m over 0.5 s; E conserved to 1e-8."""
    model, _ = import_model(write(tmp_path, ARMATURE, "a.xml"))
    bodies = list(model.bodies)
    bodies[2] = dataclasses.replace(bodies[2], joint=dataclasses.replace(
        bodies[2].joint, orientation="angles", sequence="zxz", q0=(0.3, 0.8, -0.2), u0=(1.0, 0.5, -0.7),
        names=("c_psi", "c_theta", "c_phi")))
    model = dataclasses.replace(model, bodies=tuple(bodies))
    reference, _ = eomlab_centres(model, BODIES, 0.5, method="kane")
    for method in METHODS:
        ours, result = eomlab_centres(model, BODIES, 0.5, method=method, coordinates=coordinates)
        assert np.abs(ours - reference).max() < 1e-9, method
        assert np.ptp(result["E"]) < 1e-8 * abs(result["E"][0]), method


def test_armature_in_the_file(tmp_path):
    """`armature` is a joint field: saved, loaded, refused when negative (one line naming it)."""
    model, _ = import_model(write(tmp_path, ARMATURE, "a.xml"))
    eomlab.save(eomlab.checked(model), tmp_path / "a.eom.json")
    assert [b.joint.armature for b in eomlab.load(tmp_path / "a.eom.json").bodies] == [0.3, 0.7, 0.05, 0.0]
    text = (tmp_path / "a.eom.json").read_text().replace('"armature": 0.3', '"armature": -0.3')
    (tmp_path / "bad.eom.json").write_text(text)
    with pytest.raises(eomlab.ModelError, match=r"bodies\[0\]\.joint\.armature: must be >= 0"):
        eomlab.load(tmp_path / "bad.eom.json")


SPRINGS = """<mujoco model="springs"><option><flag contact="disable"/></option>
<default><joint damping="0.05"/></default>
<worldbody>
<body name="ball" pos="3 0 0"><freejoint/><geom type="sphere" size="0.1"/></body>
<body name="a" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0" ref="30" springref="50" stiffness="3"/>
 <geom type="capsule" fromto="0 0 0 0 0 -0.6" size="0.05"/>
 <body name="b" pos="0 0 -0.6"><joint name="slide" type="slide" axis="1 0 0.5" ref="0.2" springref="0.1" springdamper="0.3 0.4"/>
  <geom type="box" size="0.1 0.05 0.05" pos="0.1 0 0"/>
  <body name="c" pos="0.2 0 0"><joint name="twist" type="hinge" axis="1 0 0" armature="0.01" springdamper="0.2 1"/>
   <geom type="sphere" size="0.08" pos="0 0.1 -0.1"/></body></body></body>
</worldbody>
<keyframe><key qpos="3 0 0 1 0 0 0 0.9 0.5 0.3" qvel="0 0 0 0 0 0 0.5 -1 2"/></keyframe>
</mujoco>"""


def test_ref_springref_and_springdamper_as_mujoco(tmp_path):
    """ref is MuJoCo's qpos0 (eomlab's columns are MuJoCo's qpos), springref the spring's rest, springdamper
    MuJoCo's stiffness 1/(w τ² ζ²) and damping 2/(w τ) (w = (M⁻¹)_jj at qpos0): equal to MuJoCo's
    jnt_stiffness and dof_damping to 1e-9 relative (a free body before them: its 7 coordinates and 6 speeds);
    mass centres and joint values after 0.5 s to 1e-8."""
    model, warnings = import_model(write(tmp_path, SPRINGS, "s.xml"))
    assert warnings == []
    m = mujoco.MjModel.from_xml_string(SPRINGS)
    springs = {f.body: f for f in model.forces}
    for k, body in zip((1, 2, 3), "abc"):
        assert springs[body].stiffness == pytest.approx(m.jnt_stiffness[k], rel=1e-9, abs=1e-12)
        assert springs[body].damping == pytest.approx(m.dof_damping[m.jnt_dofadr[k]], rel=1e-9)
        assert springs[body].rest[0] == pytest.approx(m.qpos_spring[m.jnt_qposadr[k]], rel=1e-12)
    at_ref = dataclasses.replace(model, bodies=tuple(
        b if b.name == "ball" else dataclasses.replace(b, joint=dataclasses.replace(b.joint, q0=(v,)))
        for b, v in zip(model.bodies, (None, *m.qpos0[7:]))))
    start = eomlab.simulate(at_ref, t_end=0.01, dt_out=0.01)  # at q = ref every body is where the file draws it
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert np.abs([[start[f"{b}.{a}"][0] for a in "xyz"] for b in "abc"] - d.xipos[2:]).max() < 1e-12
    ours, result = eomlab_centres(model, "abc", 0.5)
    assert np.abs(ours - mujoco_centres(SPRINGS, "abc", 0.5)).max() < 1e-8
    mj = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, mj, 0)
    m.opt.timestep, m.opt.integrator = 1e-4, mujoco.mjtIntegrator.mjINT_RK4
    for _ in range(5000):
        mujoco.mj_step(m, mj)
    assert np.abs([result[c][-1] for c in ("hinge", "slide", "twist")] - mj.qpos[7:]).max() < 1e-8


EQUALITY = """<mujoco model="coupled"><option><flag contact="disable"/></option>
<worldbody>
<body name="a" pos="0 0 1"><joint name="j1" type="hinge" axis="0 1 0" ref="10"/>
 <inertial pos="0 0 -0.5" mass="1" diaginertia="0.1 0.1 0.01"/>
 <body name="b" pos="0 0 -1"><joint name="j2" type="hinge" axis="0 1 0" ref="-5"/>
  <inertial pos="0 0 -0.4" mass="0.5" diaginertia="0.05 0.05 0.01"/></body></body>
</worldbody>
<equality><joint name="couple" joint1="j2" joint2="j1" polycoef="0.1 -0.5 0.3 0 0.02" solref="0.0004 1"/></equality>
<keyframe><key qpos="0.4 -0.087266" qvel="1 0"/></keyframe>
</mujoco>"""


def test_equality_joint_as_an_expression_constraint(tmp_path):
    """<equality joint>: y − y0 = a0 + a1 (x − x0) + … + a4 (x − x0)⁴ about the refs; it holds to 1e-9 in
    every formulation, and the motion follows MuJoCo's (a soft constraint there: solref 4e-4, dt 1e-4) to 1e-4 m."""
    model, warnings = import_model(write(tmp_path, EQUALITY, "e.xml"))
    assert warnings == []
    (couple,) = model.constraints
    assert couple.type == "expression" and couple.order == 0
    reference = mujoco_centres(EQUALITY, "ab", 0.3)
    for method in METHODS:
        ours, result = eomlab_centres(model, "ab", 0.3, method=method)
        x, y = result["j1"] - np.radians(10), result["j2"] + np.radians(5)
        assert np.abs(y - (0.1 - 0.5 * x + 0.3 * x**2 + 0.02 * x**4)).max() < 1e-9
        assert np.abs(ours - reference).max() < 1e-4, method


GRAVITY_OFF = """<mujoco model="float"><option gravity="0 0 -9.81"><flag gravity="disable" contact="disable"/></option>
<worldbody><body name="fish" pos="0 0 1"><freejoint/><geom type="ellipsoid" size="0.2 0.05 0.1"/></body>
<body name="arm" pos="1 0 1"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/></body>
</worldbody><keyframe><key qpos="0 0 1 1 0 0 0 0.3" qvel="0.1 0 0.2 0.5 1 0 0.7"/></keyframe></mujoco>"""


def test_gravity_flag_as_mujoco(tmp_path):
    """<flag gravity="disable"/>: the fish floats and the arm turns steadily, as in MuJoCo (1e-9 m over 1 s);
    with gravity it would fall 4.9 m."""
    model, _ = import_model(write(tmp_path, GRAVITY_OFF, "g.xml"))
    assert model.gravity == (0.0, 0.0, 0.0)
    ours, _ = eomlab_centres(model, ("fish", "arm"), 1.0)
    assert np.abs(ours - mujoco_centres(GRAVITY_OFF, ("fish", "arm"), 1.0)).max() < 1e-9


def test_joint_named_like_its_body_keeps_its_name(tmp_path):
    """A joint and a body may share a name (MJCF and URDF): the columns keep the file's joint names, the
    mass-centre columns the body's; the model file keeps both."""
    mjcf = ('<mujoco><worldbody><body name="proximal"><joint name="proximal" axis="0 1 0"/>'
            '<geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/></body></worldbody></mujoco>')
    model, _ = import_model(write(tmp_path, mjcf, "p.xml"))
    assert model.bodies[0].name == "proximal" and model.coordinate_names == ("proximal",)
    result = eomlab.simulate(model, t_end=0.1)
    assert "proximal" in result.columns and "proximal_dot" in result.columns and "proximal.x" in result.columns
    eomlab.save(eomlab.checked(model), tmp_path / "p.eom.json")
    assert eomlab.load(tmp_path / "p.eom.json").coordinate_names == ("proximal",)
    urdf = ('<robot name="r"><link name="world"/><link name="elbow"><inertial><mass value="1"/><inertia ixx="0.1" '
            'iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="elbow" type="continuous">'
            '<parent link="world"/><child link="elbow"/><axis xyz="0 1 0"/></joint></robot>')
    model, _ = import_model(write(tmp_path, urdf, "e.urdf"))
    assert model.bodies[0].name == "elbow" and model.coordinate_names == ("elbow",)


MIMIC = """<robot name="mimic">
<link name="world"/>
<link name="l1"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.02"/></inertial></link>
<link name="l2"><inertial><origin xyz="0.1 0 -0.4"/><mass value="0.7"/><inertia ixx="0.05" ixy="0.01" ixz="0" iyy="0.06" iyz="0" izz="0.04"/></inertial></link>
<link name="l3"><inertial><origin xyz="0 0.1 -0.3"/><mass value="0.5"/><inertia ixx="0.03" ixy="0" ixz="0" iyy="0.04" iyz="0" izz="0.02"/></inertial></link>
<joint name="j1" type="revolute"><parent link="world"/><child link="l1"/><origin xyz="0 0 1"/><axis xyz="0 1 0"/>
 <limit lower="-3" upper="3" effort="1" velocity="1"/><dynamics damping="0.3" friction="0.1"/></joint>
<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0 0 -1" rpy="0.2 0 0"/><axis xyz="0 1 0"/>
 <limit lower="-3" upper="3" effort="1" velocity="1"/><mimic joint="j1" multiplier="0.5" offset="0.2"/></joint>
<joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/><origin xyz="0 0 -0.8"/><axis xyz="1 0 0"/>
 <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def pinocchio_mimic_run(path, q0, v0, t_end: float, dt: float = 1e-3) -> np.ndarray:
    """pinocchio's model with mimic joints (its reduced coordinates), j1's damping as τ = −d q̇, moved by
    RK4: u̇ = M⁻¹(τ − nle) from CRBA and RNEA (its ABA takes no mimic joints). The final q."""
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path), mimic=True)
    damping = np.array(model.damping)

    def f(y):
        q, v = y[:model.nq], y[model.nq:]
        data = model.createData()  # pinocchio 4.1's CRBA with mimic joints goes wrong on a reused Data
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        return np.concatenate((v, np.linalg.solve(M, -damping * v - pin.nonLinearEffects(model, data, q, v))))

    y = np.concatenate((q0, v0))
    for _ in range(int(round(t_end / dt))):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[:model.nq]


@pytest.mark.parametrize("method", METHODS)
def test_mimic_and_damping_as_pinocchio(tmp_path, method):
    """<mimic> is q2 = 0.5 q1 + 0.2 (an expression constraint) and <dynamics damping> j1's damping; friction is
    listed unmapped. Over 0.5 s the joint values equal pinocchio's mimic model (RK4 at 1e-3 s) to 1e-9 rad."""
    path = write(tmp_path, MIMIC, "m.urdf")
    model, warnings = import_model(path)
    assert any("friction" in w and "j1" in w for w in warnings) and not any("mimic" in w for w in warnings)
    (mimic,) = model.constraints
    assert mimic.type == "expression" and mimic.equation == "j2 - (0.5*j1 + 0.2)"
    bodies = [dataclasses.replace(b, joint=dataclasses.replace(b.joint, q0=(q,), u0=(u,)))
              for b, q, u in zip(model.bodies, (0.4, 0.4, -0.3), (1.0, 0.5, 2.0))]
    result = eomlab.simulate(dataclasses.replace(model, bodies=tuple(bodies)), method=method, t_end=0.5, dt_out=0.5,
                             rtol=1e-12, atol=1e-12)
    assert result.failure is None, result.failure
    q = pinocchio_mimic_run(path, np.array([0.4, -0.3]), np.array([1.0, 2.0]), 0.5)
    assert abs(result["j1"][-1] - q[0]) < 1e-9 and abs(result["j3"][-1] - q[1]) < 1e-9
    assert abs(result["j2"][-1] - (0.5 * q[0] + 0.2)) < 1e-9
