"""The universal (Hooke) joint (engine/joints/universal.py): R = R(axis, θ₁) R(axis2, θ₂). Against
MuJoCo (two hinges in one body) in every formulation and both coordinate choices, through the model
file, its coordinates read back from a pose, the symbolic kinematics and the compiled path."""
from __future__ import annotations


import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.model import ModelError
from eomlab.engine.modelfile import model_from_dict, model_to_dict
from eomlab.engine.robot_formats import export_mjcf

from mujoco_helpers import eomlab_positions, mujoco_positions  # noqa: E402


def hooke_model(method: str = "kane", coordinates: str = "joint", axis2=(0, 1, 0)):
    """A body hung from a universal joint with horizontal axes, carrying a pendulum."""
    return model_from_dict({
        "eomlab": 1, "name": "hooke", "gravity": [0, 0, -9.81],
        "bodies": [
            {"name": "cross", "parent": "ground",
             "joint": {"type": "universal", "axis": [1, 0, 0], "axis2": list(axis2), "q0": [0.4, 0.3],
                       "u0": [1.0, -0.5]},
             "mass": 1.0, "com": [0.05, 0.1, -0.5], "inertia": [0.03, 0.02, 0.01]},
            {"name": "bob", "parent": "cross",
             "joint": {"type": "revolute", "axis": [0, 0, 1], "at": [0, 0, -1.0], "u0": [2.0]},
             "mass": 0.5, "com": [0.3, 0, 0], "inertia": [0.001, 0.01, 0.01]},
        ],
        "settings": {"method": method, "coordinates": coordinates},
    })


def test_its_coordinates_the_file_and_perpendicular_axes():
    model = hooke_model()
    joint = model.bodies[0].joint
    assert joint.dof == joint.n_coordinates == 2
    assert joint.names == ("cross_theta1", "cross_theta2")
    assert model_from_dict(model_to_dict(model)) == model
    with pytest.raises(ModelError, match="axis2"):
        hooke_model(axis2=(1, 1, 0))


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("method", METHODS)
def test_it_moves_as_two_hinges_in_one_mujoco_body(method, coordinates):
    pytest.importorskip("mujoco")
    text, notes = export_mjcf(hooke_model())
    assert text.count('type="hinge"') == 3, text
    bodies = ["cross", "bob"]
    reference = mujoco_positions(text, bodies)
    ours = eomlab_positions(hooke_model(method, coordinates), bodies)
    assert np.abs(ours - reference).max() < 1e-6


def test_its_coordinates_come_back_from_its_pose():
    from eomlab.engine.mechanics.joint_coordinates import JointCoordinates
    from eomlab.engine.kinematics import TreeKinematics

    model = hooke_model()
    kin, coordinates = TreeKinematics(model), JointCoordinates(model)
    for q in ([0.4, 0.3, 0.2], [2.5, -1.2, 0.0], [-0.3, 1.4, 3.0]):
        R, origin = kin.poses(np.array(q))
        coordinates.reference = np.array(q) + 0.1
        assert np.allclose(coordinates.coordinates(R, origin), q, atol=1e-12)


def test_the_symbolic_kinematics_agree_with_the_numeric_ones():
    import sympy as sp

    from eomlab.engine.kinematics import TreeKinematics
    from eomlab.engine.symbolic.tree_kinematics import SymbolicTree

    model = hooke_model()
    tree = SymbolicTree(model)
    q, u = np.array([0.4, 0.3, 0.2]), np.array([1.0, -0.5, 2.0])
    values = dict(zip(tree.q, q)) | dict(zip(tree.u, u))
    kin = TreeKinematics(model)
    ks = kin.with_velocities(kin.positions(q), u)
    for i, body in enumerate(model.bodies):
        frame = tree.frame(body.name)
        R = np.array(sp.N(frame.rotation.subs(values)), dtype=float)
        assert np.allclose(R, ks.R[i], atol=1e-12)
        omega = ks.R[i] @ np.array(sp.N(frame.speeds.omega.subs(values)), dtype=float).ravel()
        assert np.allclose(omega, ks.omega[i], atol=1e-12)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_the_compiled_path_agrees_with_the_numpy_path(monkeypatch, coordinates):
    pytest.importorskip("pinocchio")
    from test_tree_backend import _compare_formulations

    _compare_formulations(monkeypatch, hooke_model(), coordinates)


@pytest.mark.parametrize("name", ["universal", "cylindrical"])
def test_every_formulation_derives_its_equations_as_the_engine_computes_them(name):
    from test_cylindrical_joint import sleeve_model
    from test_symbolic import FORMULATIONS, compare_with_engine

    from eomlab.engine.symbolic import SymbolicTree, derive

    model = hooke_model() if name == "universal" else sleeve_model()
    compare_with_engine(model, {m: derive(model, m) for m in FORMULATIONS}, SymbolicTree(model), seeds=(0,))
