"""The cylindrical joint (engine/joints/cylindrical.py): a slide s along its axis and a turn θ about
it. Against MuJoCo (a slide and a hinge on one axis in one body) in every formulation and both
coordinate choices, and through the model file and the symbolic kinematics."""
from __future__ import annotations


import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile import model_from_dict, model_to_dict
from eomlab.engine.robot_formats import export_mjcf

from mujoco_helpers import eomlab_positions, mujoco_positions  # noqa: E402

SLANT = [1.0, 0.0, 1.0]  # the sleeve's axis, 45° from the vertical: it slides down and turns about it


def sleeve_model(method: str = "kane", coordinates: str = "joint"):
    """A sleeve on a slanted cylindrical joint (off-axis mass centre, so it turns under gravity)
    carrying a pendulum on a revolute joint across the axis."""
    return model_from_dict({
        "eomlab": 1, "name": "sleeve", "gravity": [0, 0, -9.81],
        "bodies": [
            {"name": "sleeve", "parent": "ground",
             "joint": {"type": "cylindrical", "axis": SLANT, "q0": [0.1, 0.3], "u0": [0.5, 2.0]},
             "mass": 1.0, "com": [0.1, 0.2, 0.0], "inertia": [0.02, 0.03, 0.04]},
            {"name": "bob", "parent": "sleeve",
             "joint": {"type": "revolute", "axis": [0, 1, 0], "at": [0.2, 0, 0], "q0": [0.4], "u0": [0.0]},
             "mass": 0.5, "com": [0.4, 0, 0], "inertia": [0.001, 0.01, 0.01]},
        ],
        "settings": {"method": method, "coordinates": coordinates},
    })


def test_its_coordinates_speeds_and_file_round_trip():
    model = sleeve_model()
    joint = model.bodies[0].joint
    assert joint.dof == joint.n_coordinates == 2
    assert joint.names == ("sleeve_s", "sleeve_theta")
    assert np.allclose(joint.axis, np.array(SLANT) / np.sqrt(2.0))
    assert model_from_dict(model_to_dict(model)) == model


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("method", METHODS)
def test_it_moves_as_a_slide_and_a_hinge_on_one_axis_in_mujoco(method, coordinates):
    pytest.importorskip("mujoco")
    model = sleeve_model(method, coordinates)
    text, notes = export_mjcf(sleeve_model())
    assert text.count('type="slide"') == 1 and text.count('type="hinge"') == 2, text
    bodies = ["sleeve", "bob"]
    reference = mujoco_positions(text, bodies)
    ours = eomlab_positions(model, bodies)
    assert np.abs(ours - reference).max() < 1e-6


def test_the_symbolic_kinematics_agree_with_the_numeric_ones():
    import sympy as sp

    from eomlab.engine.kinematics import TreeKinematics
    from eomlab.engine.symbolic.tree_kinematics import SymbolicTree

    model = sleeve_model()
    tree = SymbolicTree(model)
    q, u = np.array([0.1, 0.3, 0.4]), np.array([0.5, 2.0, -1.0])
    values = dict(zip(tree.q, q)) | dict(zip(tree.u, u))
    kin = TreeKinematics(model)
    ks = kin.with_velocities(kin.positions(q), u)
    for i, body in enumerate(model.bodies):
        R = np.array(sp.N(tree.rotation(body.name).subs(values)), dtype=float)
        assert np.allclose(R, ks.R[i], atol=1e-12)
        frame = tree.frame(body.name)
        origin = np.array(sp.N(frame.origin.subs(values)), dtype=float).ravel()
        assert np.allclose(origin, ks.origin[i], atol=1e-12)
        motion = frame.speeds
        omega = ks.R[i] @ np.array(sp.N(motion.omega.subs(values)), dtype=float).ravel()
        v_origin = ks.R[i] @ np.array(sp.N(motion.v_origin.subs(values)), dtype=float).ravel()
        assert np.allclose(omega, ks.omega[i], atol=1e-12)
        assert np.allclose(v_origin, kin.point_velocity(ks, i, ks.origin[i]), atol=1e-12)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_the_compiled_path_agrees_with_the_numpy_path(monkeypatch, coordinates):
    pytest.importorskip("pinocchio")
    from test_tree_backend import _compare_formulations

    _compare_formulations(monkeypatch, sleeve_model(), coordinates)
