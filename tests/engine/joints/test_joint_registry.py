"""The joint-type registry (engine.joints): every consumer asks the table, so a type it holds is
handled or refused by its name, and a type it does not hold is refused by its name; and no module
outside engine/joints switches on a joint type's name."""
from __future__ import annotations

import re
import sys
import types

import numpy as np
import pytest

from eomlab.engine.joints import REGISTRY, UnknownJointType, joint_type
from eomlab.engine.joints.type_definition import JointType
from eomlab.engine.model import GROUND, Body, Joint, Model, default_coordinate_names, is_planar, speed_names

from project_paths import ROOT
NAME = "wobbly"


class Wobbly(JointType):
    """A throw-away type: the facts, none of the hooks."""

    name = NAME
    dof = 1
    suffixes = ("w",)

    def in_plane(self, joint, tolerance):
        return False  # past the planarity test, so the spatial kinematics are asked too


@pytest.fixture
def wobbly(monkeypatch):
    module = types.ModuleType("eomlab_throw_away_joint")
    module.Wobbly = Wobbly
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(REGISTRY, NAME, (f"{module.__name__}:Wobbly",
                                         "eomlab.engine.symbolic.joint_types:SymbolicJoint"))
    joint = Joint(NAME, names=("bob_w",), q0=(0.1,), u0=(0.0,))
    return Model(bodies=(Body("bob", GROUND, joint, mass=1.0, com=(1.0, 0.0, 0.0),
                              inertia=((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1))),))


def _system(model):
    from eomlab.engine.mechanics.system import build_system
    return build_system(model)


def _absolute(model):
    from eomlab.engine.mechanics.system import build_system
    return build_system(model, "absolute")


def _joint_coordinates(model):
    from eomlab.engine.mechanics.joint_coordinates import JointCoordinates
    return JointCoordinates(model)


def _symbolic(model):
    from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
    return SymbolicTree(model)


def _file(model):
    from eomlab.engine.modelfile import model_from_dict, model_to_dict
    return model_from_dict(model_to_dict(model))


def _mjcf(model):
    from eomlab.engine.robot_formats import export_mjcf
    return export_mjcf(model)


def _pinocchio(model):
    pin = pytest.importorskip("pinocchio")
    from eomlab.engine.kinematics import JointLayout
    from eomlab.engine.compiled.tree_backend import PinocchioTree
    jl = JointLayout(body=0, type=NAME, q_slice=slice(0, 1), u_slice=slice(0, 1), axis=np.array([0.0, 0, 1]),
                     at=np.zeros(3), rotation=np.eye(3), fixed_rotation_is_identity=True, euler=None,
                     body_rates=False)
    return PinocchioTree._joint_chain(pin, jl)


CONSUMERS = [_system, _absolute, _joint_coordinates, _symbolic, _file, _mjcf, _pinocchio]


def test_the_table_holds_the_model_facts_of_a_registered_type(wobbly):
    joint = wobbly.bodies[0].joint
    assert joint.dof == joint.n_coordinates == 1
    assert default_coordinate_names("bob", joint) == ("bob_w",)
    assert speed_names("bob", joint) == ("bob_w_dot",)
    assert not is_planar(wobbly)


@pytest.mark.parametrize("consumer", CONSUMERS, ids=lambda f: f.__name__.strip("_"))
def test_every_consumer_handles_a_registered_type_or_refuses_it_by_name(wobbly, consumer):
    try:
        consumer(wobbly)
    except Exception as error:  # noqa: BLE001  (any refusal will do, as long as it names the type)
        assert NAME in str(error), f"{consumer.__name__} refused {NAME!r} without naming it: {error!r}"


def test_the_planar_kinematics_refuse_a_registered_type_by_name(wobbly, monkeypatch):
    from eomlab.engine.kinematics import TreeKinematics
    monkeypatch.setattr(Wobbly, "in_plane", lambda self, joint, tolerance: True)
    with pytest.raises(NotImplementedError, match=NAME):
        TreeKinematics(wobbly)


def test_an_unknown_type_is_refused_by_name_everywhere():
    with pytest.raises(UnknownJointType, match="'nope'"):
        joint_type("nope")
    with pytest.raises(UnknownJointType, match="'nope'"):
        _ = Joint("nope").dof
    model = Model(bodies=(Body("bob", GROUND, Joint("nope"), mass=1.0),))
    for consumer in (_system, _joint_coordinates, _symbolic, _mjcf, lambda m: default_coordinate_names("b", Joint("nope"))):
        with pytest.raises(Exception, match="nope"):
            consumer(model)
    from eomlab.engine.model import ModelError
    from eomlab.engine.modelfile import model_from_dict
    with pytest.raises(ModelError, match="nope"):
        model_from_dict({"bodies": [{"name": "b", "parent": "ground", "joint": {"type": "nope"}, "mass": 1}]})


SWITCH = re.compile(r"""(type|kind)\s*(==|!=|in|not in)\s*[\(\[\{]?\s*["'](revolute|prismatic|spherical|planar|free|fixed)["']""")


def test_no_module_outside_the_joints_package_switches_on_a_joint_type():
    found = []
    for folder in ("engine", "gui", "eomlab"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.parent.name == "joints" and path.parent.parent.name == "engine":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if SWITCH.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
