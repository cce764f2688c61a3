"""Issue #29 item 6: the API at one state (eomlab.mechanics_api) against pinocchio's crba, rnea, aba,
computeJointJacobians and frame placements, to 1e-10 of each quantity's size, on the shipped tree models
(exported to MJCF and read by pinocchio's own MJCF parser) and on imported URDFs (read by pinocchio's URDF
parser); the initial state of `simulate` by name and by vector; `model.joint`, `coordinates_used`."""
from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import eomlab
from eomlab.engine.robot_formats import export_mjcf, import_model

pin = pytest.importorskip("pinocchio")

PRESET_TREES = ["double_compound_pendulum", "planar_chain", "simple_pendulum", "cart_pendulum", "spatial_chain",
                "rigid_body_fixed_point", "heavy_top", "tumbling_box"]
TOLERANCE = 1e-10


def robot_data_urdf(relative: str) -> str:
    from robot_formats.shipped_files import robot_data_root

    return os.path.join(robot_data_root(), relative)


class Reference:
    """A pinocchio model of the same mechanism and the map between its q, v and eomlab's."""

    def __init__(self, model: eomlab.Model, pinocchio_model):
        self.model, self.pm = model, pinocchio_model
        self.pm.gravity.linear = np.array(model.gravity, dtype=float)  # its MJCF parser reads no <option gravity>
        self.data = self.pm.createData()
        self.speeds = {}  # eomlab speed index → pinocchio v index
        self.joints = []  # (eomlab body, pinocchio joint)
        names = list(self.pm.names)
        iu = 0
        for body in model.bodies:
            joint = body.joint
            key = joint.names[0] if joint.dof == 1 else f"{body.name}_ball"
            if joint.dof:
                pj = self.pm.joints[names.index(key)]
                self.joints.append((body, pj))
                for k in range(joint.dof):
                    self.speeds[iu + k] = pj.idx_v + k
            iu += joint.dof
        self.order = np.array([self.speeds[k] for k in range(iu)])

    def q(self, q: np.ndarray) -> np.ndarray:
        out = pin.neutral(self.pm)
        iq = 0
        starts = {}
        for body in self.model.bodies:
            starts[body.name] = iq
            iq += body.joint.n_coordinates
        for body, pj in self.joints:
            joint, k = body.joint, starts[body.name]
            if joint.dof == 1 and pj.nq == 2:  # continuous: (cos, sin)
                out[pj.idx_q:pj.idx_q + 2] = np.cos(q[k]), np.sin(q[k])
            elif joint.dof == 1:
                out[pj.idx_q] = q[k]
            elif joint.quaternion:
                e = q[k:k + 4] / np.linalg.norm(q[k:k + 4])
                out[pj.idx_q:pj.idx_q + 4] = e[1], e[2], e[3], e[0]
            else:
                out[pj.idx_q:pj.idx_q + 4] = Rotation.from_euler(joint.sequence.upper(), q[k:k + 3]).as_quat()
        return out

    def v(self, u: np.ndarray) -> np.ndarray:
        out = np.zeros(self.pm.nv)
        out[self.order] = u
        return out

    def ours(self, v: np.ndarray) -> np.ndarray:
        return np.asarray(v)[self.order]


def random_state(model, seed: int):
    rng = np.random.default_rng(seed)
    q = []
    for body in model.bodies:
        joint = body.joint
        if joint.quaternion:
            q += list(rng.normal(size=4))
        elif joint.dof == 3 and not joint.names[0].endswith("_x"):  # Euler angles away from their lock
            q += [rng.uniform(-2, 2), rng.uniform(0.3, 2.8) if joint.sequence[0] == joint.sequence[2] else
                  rng.uniform(-1.2, 1.2), rng.uniform(-2, 2)]
        else:
            q += list(rng.uniform(-1.5, 1.5, joint.n_coordinates))
    n = len(model.speed_names)
    return np.array(q), rng.uniform(-2, 2, n), rng.uniform(-3, 3, n)


def compare(model: eomlab.Model, reference: Reference, seed: int, bodies, damping=None):
    q, u, u_dot = random_state(model, seed)
    qp, vp, ap = reference.q(q), reference.v(u), reference.v(u_dot)
    pm, data = reference.pm, reference.data
    damping_torque = np.zeros(pm.nv) if damping is None else damping * vp  # URDF <dynamics damping>: τ = −d q̇
    M_ref = pin.crba(pm, data, qp)
    M_ref = np.triu(M_ref) + np.triu(M_ref, 1).T
    M = eomlab.mass_matrix(model, q)
    assert np.abs(M - M_ref[np.ix_(reference.order, reference.order)]).max() <= TOLERANCE * np.abs(M_ref).max()
    tau_ref = reference.ours(pin.rnea(pm, data, qp, vp, ap) + damping_torque)
    tau = eomlab.inverse_dynamics(model, q, u, u_dot)
    assert np.abs(tau - tau_ref).max() <= TOLERANCE * max(np.abs(tau_ref).max(), 1.0)
    a_ref = reference.ours(pin.aba(pm, data, qp, vp, -damping_torque))
    a = eomlab.forward_dynamics(model, q, u)
    assert np.abs(a - a_ref).max() <= TOLERANCE * max(np.abs(a_ref).max(), 1.0)
    tau_extra = np.linspace(-1, 1, len(u))
    a_ref = reference.ours(pin.aba(pm, data, qp, vp, reference.v(tau_extra) - damping_torque))
    assert np.abs(eomlab.forward_dynamics(model, q, u, tau=tau_extra) - a_ref).max() <= TOLERANCE * max(np.abs(a_ref).max(), 1.0)
    pin.computeJointJacobians(pm, data, qp)
    pin.updateFramePlacements(pm, data)
    poses = eomlab.kinematics(model, q)
    for body in bodies:
        fid = pm.getFrameId(body)
        assert np.abs(poses[body].rotation - data.oMf[fid].rotation).max() <= TOLERANCE
        assert np.abs(poses[body].position - data.oMf[fid].translation).max() <= TOLERANCE
        point = np.array([0.1, -0.2, 0.3])
        frame = pm.frames[fid]
        with_point = pin.Model(pm)  # a copy: a frame added to pm would outgrow the Data made for it
        pid = with_point.addFrame(pin.Frame(f"{body}_point", frame.parentJoint, fid,
                                            frame.placement * pin.SE3(np.eye(3), point), pin.FrameType.OP_FRAME))
        point_data = with_point.createData()
        pin.computeJointJacobians(with_point, point_data, qp)
        pin.updateFramePlacements(with_point, point_data)
        J_ref = np.reshape(pin.getFrameJacobian(with_point, point_data, pid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED),
                           (6, pm.nv))[:, reference.order]  # (one speed comes back 1-D)
        J = eomlab.jacobian(model, q, body, point)
        assert np.abs(J - J_ref).max() <= TOLERANCE * max(np.abs(J_ref).max(), 1.0), body
        assert np.abs(poses.point(body, point) - point_data.oMf[pid].translation).max() <= TOLERANCE


@pytest.mark.parametrize("name", PRESET_TREES)
def test_shipped_trees_against_pinocchio(tmp_path, name):
    """The shipped tree models, exported to MJCF and read by pinocchio's MJCF parser (independent of eomlab's
    own pinocchio mapping): M, inverse and forward dynamics, poses, point Jacobians at three random states.
    Each body's inertia gets 1e-3 kg m² about every axis, so that the export need not raise a rod's zero moment
    (MuJoCo needs positive moments) and pinocchio reads exactly the model eomlab runs."""
    model = eomlab.preset(name)
    model = eomlab.checked(dataclasses.replace(model, bodies=tuple(
        dataclasses.replace(b, inertia=tuple(tuple(v + 1e-3 * (i == k) for k, v in enumerate(row))
                                             for i, row in enumerate(b.inertia))) for b in model.bodies)))
    text, _ = export_mjcf(model)
    (tmp_path / "m.xml").write_text(text)
    reference = Reference(model, pin.buildModelFromMJCF(str(tmp_path / "m.xml")))
    for seed in range(3):
        compare(model, reference, seed, [b.name for b in model.bodies])


URDFS = ["ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf", "solo_description/robots/solo12.urdf",
         "double_pendulum_description/urdf/double_pendulum_continuous.urdf", "kinova_description/robots/kinova.urdf"]


@pytest.mark.parametrize("fast", ["1", "0"], ids=["compiled", "numpy"])
@pytest.mark.parametrize("relative", URDFS, ids=lambda p: os.path.basename(p))
def test_imported_urdfs_against_pinocchio(monkeypatch, relative, fast):
    """example-robot-data's URDFs as eomlab imports them and as pinocchio loads them (its model.damping applied as
    τ = −d q̇, which eomlab imports as joint damping; the panda's finger mimic left out of forward dynamics, as
    pinocchio's tree has it free), on the compiled and the numpy path."""
    monkeypatch.setenv("EOMLAB_FAST_PATH", fast)
    path = robot_data_urdf(relative)
    model, _ = import_model(path)
    model = eomlab.checked(dataclasses.replace(model, constraints=()))
    pm = pin.buildModelFromUrdf(path)
    reference = Reference(model, pm)
    bodies = [b.name for b in model.bodies if b.joint.dof and pm.existFrame(b.name)][:4]
    for seed in range(2):
        compare(model, reference, seed, bodies, damping=np.array(pm.damping))


def test_simulate_initial_state_by_name_and_vector():
    model = eomlab.preset("double_compound_pendulum")
    by_name = eomlab.simulate(model, q0={"lower_theta": 0.1}, u0={"upper_theta_dot": 2.0}, t_end=0.2)
    assert by_name["upper_theta"][0] == model.bodies[0].joint.q0[0] and by_name["lower_theta"][0] == 0.1
    assert by_name["upper_theta_dot"][0] == 2.0 and by_name["lower_theta_dot"][0] == 0.0
    by_vector = eomlab.simulate(model, q0=[model.bodies[0].joint.q0[0], 0.1], u0=[2.0, 0.0], t_end=0.2)
    assert np.array_equal(by_name.data, by_vector.data)
    with pytest.raises(eomlab.ModelError, match="q0: unknown name 'elbow'"):
        eomlab.simulate(model, q0={"elbow": 1.0})
    with pytest.raises(eomlab.ModelError, match="u0: expected 2 numbers"):
        eomlab.simulate(model, u0=[1.0])
    assert by_name.coordinates_used == by_name.coordinates == "joint"
    assert by_name.coordinate_names == ["upper_theta", "lower_theta"]
    absolute = eomlab.simulate(model, coordinates="absolute", t_end=0.1)
    assert absolute.coordinates_used == "absolute" and absolute.coordinate_names == ["upper_theta", "lower_theta"]


def test_model_joint_and_names():
    model = eomlab.checked(eomlab.preset("cart_pendulum"))
    assert model.joint("theta") is model.bodies[1].joint and model.joint(model.bodies[0].name) is model.bodies[0].joint
    assert model.speed_names == ("x_dot", "theta_dot")
    with pytest.raises(KeyError, match="no joint coordinate or body 'elbow'"):
        model.joint("elbow")
