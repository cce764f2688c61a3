"""What an edit carries (engine/modelfile/edit_rules.py): a rod's length moves its mass centre and
its children's joints when they sit where the rod puts them, else keeps them (issue 25, item 4);
a new body's joint frame makes it hang straight down at angle 0."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eomlab.engine.model import Model
from eomlab.engine.modelfile.edit_rules import angle_zero_words, hanging_rotation, zero_coordinate_rotation
from eomlab.engine.presets import preset
from eomlab.engine.simulation import initial_frame, model_with_parameter
from eomlab.gui.editing import edits


def _lengthened(model, length):
    return edits.set_field(model, ("bodies", 0, "shape", "length"), length)


def test_a_rods_length_carries_its_mass_centre_its_childs_joint_and_its_inertia():
    model = preset("double_compound_pendulum")  # upper: rod 1 m, mass centre (0.5, 0, 0); lower at (1, 0, 0)
    after = _lengthened(model, 1.2)
    upper, lower = after.bodies
    assert upper.com == (0.6, 0.0, 0.0) and lower.joint.at == (1.2, 0.0, 0.0)
    assert upper.inertia[1][1] == pytest.approx(1.0 * 1.2 ** 2 / 12, rel=1e-15) and upper.inertia_from_shape
    frame = initial_frame(after)  # the rod no longer sticks out behind its pivot: it spans hinge to child
    rod = frame.rotations[0][:, 0]
    assert np.allclose(frame.mass_centres[0] - 0.6 * rod, frame.origins[0], atol=1e-12)
    assert np.allclose(frame.mass_centres[0] + 0.6 * rod, frame.origins[1], atol=1e-12)
    assert lower.com == model.bodies[1].com  # the child's own body is not the rod's


def test_values_set_by_hand_are_kept():
    model = edits.set_field(preset("double_compound_pendulum"), ("bodies", 0, "com"), [0.3, 0.0, 0.0])
    model = edits.set_field(model, ("bodies", 1, "joint", "at"), [0.8, 0.0, 0.0])
    model = edits.set_field(model, ("bodies", 0, "inertia"), [0.0, 0.2, 0.2])
    after = _lengthened(model, 2.0)
    assert after.bodies[0].com == (0.3, 0.0, 0.0) and after.bodies[1].joint.at == (0.8, 0.0, 0.0)
    assert after.bodies[0].inertia[1][1] == 0.2 and after.bodies[0].shape.length == 2.0


def test_the_rule_holds_to_1e9_of_the_length_and_not_beyond():
    model = preset("double_compound_pendulum")
    near = edits.set_field(model, ("bodies", 1, "joint", "at"), [1.0 + 5e-10, 0.0, 0.0])
    far = edits.set_field(model, ("bodies", 1, "joint", "at"), [1.0 + 5e-9, 0.0, 0.0])
    assert _lengthened(near, 3.0).bodies[1].joint.at == (3.0, 0.0, 0.0)
    assert _lengthened(far, 3.0).bodies[1].joint.at == (1.0 + 5e-9, 0.0, 0.0)


def test_set_parameter_follows_the_same_rule():
    model = preset("double_compound_pendulum")
    assert model_with_parameter(model, "bodies[0].shape.length", 1.2) == _lengthened(model, 1.2)


def test_a_refused_length_moves_nothing():
    model = preset("double_compound_pendulum")
    for bad in (-1.0, 0.0, "long", 1e308):
        with pytest.raises(ValueError) as info:
            _lengthened(model, bad)
        assert "bodies[0].shape.length" in str(info.value)
    with pytest.raises(ValueError) as info:  # Simulation.set_parameter's path: named, not an OverflowError
        model_with_parameter(model, "bodies[0].shape.length", 1e308)
    assert "bodies[0].shape.length: |value| must be at most 1e12 m" in str(info.value)


def test_new_bodies_of_the_tree_editor_hang_straight_down_at_angle_0():
    model = Model()
    for _ in range(3):
        parent = model.bodies[-1].name if model.bodies else "ground"
        model = edits.add_body(model, edits.child_body(model, parent))
    frame = initial_frame(model)  # every angle 0
    down = np.array([0.0, -1.0, 0.0])
    for i in range(3):
        assert np.allclose(frame.rotations[i][:, 0], down, atol=1e-15)
    assert np.allclose(frame.origins[:, 1], [0.0, -1.0, -2.0], atol=1e-15)  # each hinge at its parent's rod end
    assert "straight down" in angle_zero_words(model, model.bodies[2].name)
    assert model.bodies[0].joint.rotation == ((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 1.0))  # exact zeros


def test_hanging_rotation_follows_gravity_and_leaves_what_already_hangs():
    model = preset("simple_pendulum")  # hangs at 0 already (its file turns the joint frame)
    assert hanging_rotation(model, "bob") is None
    sideways = Model(gravity=(9.81, 0.0, 0.0))
    assert hanging_rotation(sideways, "ground") is None  # +x is along gravity already
    up = hanging_rotation(Model(gravity=(0.0, 9.81, 0.0)), "ground")
    assert np.allclose(np.array(up) @ [1, 0, 0], [0, 1, 0])
    assert hanging_rotation(Model(gravity=(0.0, 0.0, -9.81)), "ground") is None  # along the hinge axis
    assert np.allclose(zero_coordinate_rotation(model, "bob")[:, 0], [0, -1, 0], atol=1e-15)


def test_presets_and_files_keep_their_angles():
    """The angle convention of existing files is unchanged: 0 along the joint frame's x axis."""
    model = preset("double_compound_pendulum")
    assert "along +x (world)" in angle_zero_words(model, "upper")
    assert math.isclose(initial_frame(model).rotations[0][1, 0], math.sin(2.0))  # q0 = 2 from +x, as always
