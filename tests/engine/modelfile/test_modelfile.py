"""Model files: validation with field paths, round trips, atomic saving."""
import copy
import json
import math
import os
import pathlib
import stat

import numpy as np
import pytest

from eomlab.engine import modelfile
from eomlab.engine.model import (
    Body,
    Distance,
    ExpressionConstraint,
    Joint,
    JointEffort,
    JointSpring,
    KnifeEdge,
    Model,
    ModelError,
    PointForce,
    PointRef,
    Prescribed,
    Settings,
    Shape,
    Spring,
    Stabilization,
)
from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.modelfile import dumps_model, load_model, loads_model, model_from_dict, model_to_dict, save_model

from project_paths import MODELS as ASSETS

EXAMPLE = {
    "eomlab": 1,
    "name": "double compound pendulum",
    "gravity": [0, -9.81, 0],
    "bodies": [
        {"name": "upper", "parent": "ground",
         "joint": {"type": "revolute", "axis": [0, 0, 1], "at": [0, 0, 0], "q0": [2.0], "u0": [0.0]},
         "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0, 0.08333333333333333, 0.08333333333333333],
         "shape": {"kind": "rod", "length": 1.0}},
        {"name": "lower", "parent": "upper",
         "joint": {"type": "revolute", "axis": [0, 0, 1], "at": [1.0, 0, 0], "q0": [0.5], "u0": [0.0]},
         "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0, 0.08333333333333333, 0.08333333333333333]},
    ],
    "constraints": [],
    "forces": [],
    "settings": {"method": "kane", "coordinates": "joint", "t_end": 10, "dt_out": 0.01},
}


def example():
    return copy.deepcopy(EXAMPLE)


def rich_model_dict():
    """A model using every constraint and force type."""
    data = example()
    data["bodies"].append({
        "name": "top", "parent": "ground",
        "joint": {"type": "spherical", "at": [3, 0, 0], "sequence": "zxz", "speeds": "body",
                  "rotation": {"axis": [1, 1, 0], "angle": 0.3}, "q0": [0.1, 0.2, 0.3], "u0": [0, 0, 5]},
        "mass": 2.0, "com": [0, 0, 0.5], "inertia": [[0.5, 0.01, 0], [0.01, 0.5, 0], [0, 0, 0.2]],
    })
    data["bodies"].append({
        "name": "cart", "parent": "ground", "joint": {"type": "planar", "names": ["cx", "cy", "cphi"]},
        "mass": 1.0, "shape": {"kind": "box", "size": [1, 0.5, 0.2]},
    })
    data["bodies"].append({
        "name": "wheel", "parent": "cart", "joint": {"type": "free", "speeds": "euler", "sequence": "zyx"},
        "mass": 1.0, "shape": {"kind": "disk", "radius": 0.3},
    })
    data["constraints"] = [
        {"type": "coincident", "a": {"body": "lower", "point": [1, 0, 0]}, "b": {"body": "ground", "point": [1, 1, 0]},
         "dims": ["x", "y"]},
        {"type": "distance", "name": "rope", "a": {"body": "upper"}, "b": {"body": "top"}, "length": 2.0},
        {"type": "prescribed", "coordinate": "cphi", "motion": "sin(2*t)"},
        {"type": "knife_edge", "body": "cart", "point": [0.2, 0, 0], "direction": [0, 2, 0]},
        {"type": "rolling_disk", "body": "wheel", "radius": 0.3},
        {"type": "expression", "equation": "cx_ddot + cos(cx)*cy_ddot - cx_dot**2", "order": 2},
        {"type": "expression", "equation": "cx_dot - cy_dot*sin(cx)", "order": 1},
        {"type": "expression", "equation": "cx**2 + cy**2 - 1", "order": 0},
    ]
    data["forces"] = [
        {"type": "spring", "a": {"body": "upper", "point": [1, 0, 0]}, "b": {"body": "ground"},
         "stiffness": 10, "rest_length": 0.5, "damping": 0.1},
        {"type": "joint_spring", "body": "lower", "stiffness": 3, "rest": 0.2},
        {"type": "joint_spring", "body": "top", "stiffness": 3, "rest": [0, 0.1, 0], "damping": 1},
        {"type": "joint_effort", "body": "cart", "value": ["-cx_dot", "0", 1.5]},
        {"type": "point_force", "body": "wheel", "point": [0, 0.3, 0], "value": ["0", "0", "-9.81*t"]},
        {"type": "body_torque", "body": "top", "value": ["0", "0", "0.1*top_psi_dot"], "frame": "body"},
    ]
    data["settings"] = {"method": "maggi", "coordinates": "absolute", "integrator": "RK4", "rtol": 1e-8,
                        "atol": 1e-10, "t_end": 2, "dt_out": 0.05, "dt": 0.0005,
                        "stabilization": {"kind": "baumgarte", "alpha": 5, "beta": 5}}
    return data


# --- loading valid files -----------------------------------------------------------------------


def test_contract_example_loads_with_defaults_filled():
    model = model_from_dict(example())
    assert model.coordinate_names == ("upper_theta", "lower_theta")
    upper = model.body("upper")
    assert upper.inertia == ((0.0, 0.0, 0.0), (0.0, 1 / 12, 0.0), (0.0, 0.0, 1 / 12))
    assert upper.shape == Shape(kind="rod", length=1.0)
    assert model.settings == Settings(method="kane", t_end=10.0, dt_out=0.01)


def test_rich_model_fills_names_and_converts():
    model = model_from_dict(rich_model_dict())
    assert [c.name for c in model.constraints][:3] == ["coincident0", "rope", "prescribed2"]
    assert [f.name for f in model.forces][1] == "joint_spring1"
    knife = model.constraints[3]
    assert isinstance(knife, KnifeEdge) and knife.direction == (0.0, 1.0, 0.0)
    top = model.body("top")
    r = np.array(top.joint.rotation)
    np.testing.assert_allclose(r.T @ r, np.eye(3), atol=1e-14)
    assert model.forces[1].rest == (0.2,)
    assert model.forces[3].value == ("-cx_dot", "0", "1.5")
    assert model.body("wheel").inertia[2][2] == pytest.approx(0.5 * 0.09)
    assert model.settings.stabilization == Stabilization("baumgarte", 5.0, 5.0)


def test_missing_version_and_sections_get_defaults():
    model = model_from_dict({"bodies": [{"name": "p", "parent": "ground", "joint": {"type": "prismatic", "axis": [2, 0, 0]}}]})
    assert model.eomlab == 1 and model.gravity == (0.0, -9.81, 0.0)
    assert model.bodies[0].joint.axis == (1.0, 0.0, 0.0)
    assert model.bodies[0].joint.q0 == (0.0,) and model.bodies[0].mass == 0.0


def test_children_listed_before_parents_are_reordered_stably():
    data = {"bodies": [
        {"name": "c", "parent": "b", "joint": {"type": "revolute"}},
        {"name": "a", "parent": "ground", "joint": {"type": "revolute"}},
        {"name": "b", "parent": "a", "joint": {"type": "revolute"}},
        {"name": "d", "parent": "ground", "joint": {"type": "revolute"}},
    ]}
    assert [b.name for b in model_from_dict(data).bodies] == ["a", "b", "c", "d"]


def test_long_chain_in_reverse_order():
    n = 1000
    bodies = [{"name": f"b{i}", "parent": f"b{i - 1}" if i else "ground", "joint": {"type": "revolute"}}
              for i in range(n)]
    model = model_from_dict({"bodies": bodies[::-1]})
    assert [b.name for b in model.bodies] == [f"b{i}" for i in range(n)]


# --- round trips -------------------------------------------------------------------------------


def roundtrip_models():
    yield model_from_dict(example())
    yield model_from_dict(rich_model_dict())
    yield Model()
    yield Model(name="ünïcode ✓", gravity=(0.0, 0.0, -1.0), bodies=(
        Body("a", "ground", Joint("revolute", axis=(0.6, 0.8, 0.0), q0=(0.1,), u0=(-3.0,), names=("qa",)),
             mass=2.0, com=(0.1, 0.2, 0.3), inertia=((1.0, 0.1, 0.0), (0.1, 2.0, 0.0), (0.0, 0.0, 2.5))),
    ), forces=(JointEffort("push", "a", ("sin(t)*qa_dot",)),))


@pytest.mark.parametrize("model", list(roundtrip_models()), ids=lambda m: m.name)
def test_save_load_round_trip(model, tmp_path):
    target = tmp_path / "m.eom.json"
    save_model(model, target)
    assert load_model(target) == model
    assert model_from_dict(model_to_dict(model)) == model
    assert loads_model(dumps_model(model)) == model


@pytest.mark.parametrize("path", sorted(ASSETS.glob("*.eom.json")), ids=lambda p: p.name)
def test_asset_files_round_trip(path, tmp_path):
    model = load_model(path)
    target = tmp_path / path.name
    save_model(model, target)
    assert load_model(target) == model


def test_saved_file_is_json_with_version():
    text = dumps_model(model_from_dict(example()))
    data = json.loads(text)
    assert data["eomlab"] == 1 and data["bodies"][0]["joint"]["names"] == ["upper_theta"]


# --- malformed files ---------------------------------------------------------------------------


def with_change(change):
    data = rich_model_dict()
    change(data)
    return data


def set_path(path, value):
    """A change function setting data[...] = value along `path` (a list of keys/indices)."""
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def delete_path(path):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


HOSTILE_TEXT = "__import__('os').system('touch /tmp/x')"

MALFORMED_DICTS = [
    ("negative mass", set_path(["bodies", 1, "mass"], -1), "bodies[1].mass", "must be >= 0"),
    ("triangle", set_path(["bodies", 0, "inertia"], [1, 1, 3]), "bodies[0].inertia", "triangle inequality"),
    ("not psd", set_path(["bodies", 2, "inertia"], [[1, 0, 0], [0, -1, 0], [0, 0, 1]]), "bodies[2].inertia",
     "positive semidefinite"),
    ("negative moment", set_path(["bodies", 0, "inertia"], [1, -1, 1]), "bodies[0].inertia[1]", "must be >= 0"),
    ("asymmetric", set_path(["bodies", 2, "inertia"], [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "bodies[2].inertia",
     "not symmetric"),
    ("unknown parent", set_path(["bodies", 1, "parent"], "nobody"), "bodies[1].parent", "unknown parent 'nobody'"),
    ("self parent", set_path(["bodies", 1, "parent"], "lower"), "bodies[1].parent", "its own parent"),
    ("duplicate body", set_path(["bodies", 1, "name"], "upper"), "bodies[1].name", "duplicate name 'upper'"),
    ("ground name", set_path(["bodies", 0, "name"], "ground"), "bodies[0].name", "reserved"),
    ("duplicate coord", set_path(["bodies", 3, "joint", "names"], ["cx", "upper_theta", "c"]),
     "bodies[3].joint.names[1]", "duplicate name 'upper_theta'"),
    ("constraint name clash", set_path(["constraints", 1, "name"], "upper"), "constraints[1].name", "duplicate name"),
    ("reserved coordinate", set_path(["bodies", 3, "joint", "names"], ["t", "cy", "cphi"]),
     "bodies[3].joint.names[0]", "reserved"),
    ("bad name", set_path(["bodies", 0, "name"], "2fast"), "bodies[0].name", "not a valid name"),
    ("unknown top field", set_path(["colour"], "red"), "colour", "unknown field 'colour'"),
    ("unknown joint field", set_path(["bodies", 0, "joint", "stiffness"], 1), "bodies[0].joint.stiffness",
     "unknown field 'stiffness'"),
    ("unknown settings field", set_path(["settings", "stabilization", "gamma"], 1),
     "settings.stabilization.gamma", "unknown field"),
    ("unknown constraint field", set_path(["constraints", 0, "width"], 1), "constraints[0].width", "unknown field"),
    ("wrong type mass", set_path(["bodies", 0, "mass"], "heavy"), "bodies[0].mass", "expected a number, got string"),
    ("bool as number", set_path(["bodies", 0, "mass"], True), "bodies[0].mass", "expected a number, got boolean"),
    ("bool in vector", set_path(["gravity"], [0, False, 0]), "gravity[1]", "got boolean"),
    ("short vector", set_path(["bodies", 0, "com"], [1, 2]), "bodies[0].com", "expected 3 numbers"),
    ("bodies not list", set_path(["bodies"], {"a": 1}), "bodies", "expected an array, got object"),
    ("zero axis", set_path(["bodies", 0, "joint", "axis"], [0, 0, 0]), "bodies[0].joint.axis", "nonzero"),
    ("bad rotation", set_path(["bodies", 0, "joint", "rotation"], [[1, 0, 0], [0, 1, 0.1], [0, 0, 1]]),
     "bodies[0].joint.rotation", "not orthonormal"),
    ("reflection", set_path(["bodies", 0, "joint", "rotation"], [[1, 0, 0], [0, 1, 0], [0, 0, -1]]),
     "bodies[0].joint.rotation", "determinant -1"),
    ("rotation axis zero", set_path(["bodies", 2, "joint", "rotation"], {"axis": [0, 0, 0], "angle": 1}),
     "bodies[2].joint.rotation.axis", "nonzero"),
    ("q0 length", set_path(["bodies", 0, "joint", "q0"], [1, 2]), "bodies[0].joint.q0", "expected 1 number"),
    ("u0 length", set_path(["bodies", 2, "joint", "u0"], [1]), "bodies[2].joint.u0", "expected 3 numbers"),
    ("names length", set_path(["bodies", 3, "joint", "names"], ["a"]), "bodies[3].joint.names", "expected 3 names"),
    ("joint type", set_path(["bodies", 0, "joint", "type"], "hinge"), "bodies[0].joint.type", "must be one of revolute"),
    ("missing joint", delete_path(["bodies", 0, "joint"]), "bodies[0].joint", "required field is missing"),
    ("sequence zzx", set_path(["bodies", 2, "joint", "sequence"], "zzx"), "bodies[2].joint.sequence", "Euler sequence"),
    ("sequence letters", set_path(["bodies", 2, "joint", "sequence"], "abc"), "bodies[2].joint.sequence", "from x, y, z"),
    ("speeds", set_path(["bodies", 2, "joint", "speeds"], "fast"), "bodies[2].joint.speeds", "body, euler"),
    ("shape kind", set_path(["bodies", 0, "shape"], {"kind": "cone"}), "bodies[0].shape.kind", "must be one of"),
    ("shape missing dim", set_path(["bodies", 0, "shape"], {"kind": "disk"}), "bodies[0].shape.radius", "required"),
    ("shape zero", set_path(["bodies", 0, "shape"], {"kind": "rod", "length": 0}), "bodies[0].shape.length", "> 0"),
    ("hostile equation", set_path(["constraints", 7, "equation"], HOSTILE_TEXT), "constraints[7].equation",
     "attribute access"),
    ("class in force", set_path(["forces", 4, "value", 1], "().__class__"), "forces[4].value[1]", "attribute access"),
    ("accel in force", set_path(["forces", 4, "value", 1], "cx_ddot"), "forces[4].value[1]", "unknown name 'cx_ddot'"),
    ("nonlinear order 2", set_path(["constraints", 5, "equation"], "cx_ddot**2 + cy_ddot"), "constraints[5].equation",
     "linear in the accelerations"),
    ("product order 2", set_path(["constraints", 5, "equation"], "cx_ddot*cy_ddot"), "constraints[5].equation",
     "linear in the accelerations"),
    ("order 0 with rate", set_path(["constraints", 7, "equation"], "cx - cy_dot"), "constraints[7].equation",
     "order-0"),
    ("order 1 with accel", set_path(["constraints", 6, "equation"], "cx_dot - cy_ddot"), "constraints[6].equation",
     "order-1"),
    ("order 3", set_path(["constraints", 6, "order"], 3), "constraints[6].order", "must be 0, 1 or 2"),
    ("order bool", set_path(["constraints", 6, "order"], True), "constraints[6].order", "expected an integer"),
    ("prescribed unknown", set_path(["constraints", 2, "coordinate"], "phi"), "constraints[2].coordinate",
     "unknown coordinate 'phi'"),
    ("prescribed uses state", set_path(["constraints", 2, "motion"], "cx*t"), "constraints[2].motion",
     "unknown name 'cx'"),
    ("constraint type", set_path(["constraints", 0, "type"], "glue"), "constraints[0].type", "must be one of"),
    ("unknown body in ref", set_path(["constraints", 1, "a", "body"], "moon"), "constraints[1].a.body",
     "unknown body 'moon'"),
    ("knife on ground", set_path(["constraints", 3, "body"], "ground"), "constraints[3].body", "unknown body"),
    ("distance zero", set_path(["constraints", 1, "length"], 0), "constraints[1].length", "> 0"),
    ("radius negative", set_path(["constraints", 4, "radius"], -0.3), "constraints[4].radius", "> 0"),
    ("dims", set_path(["constraints", 0, "dims"], ["x", "w"]), "constraints[0].dims[1]", "must be one of x, y, z"),
    ("knife zero direction", set_path(["constraints", 3, "direction"], [0, 0, 0]), "constraints[3].direction",
     "nonzero"),
    ("spring stiffness", set_path(["forces", 0, "stiffness"], -1), "forces[0].stiffness", "must be >= 0"),
    ("damping", set_path(["forces", 2, "damping"], -0.5), "forces[2].damping", "must be >= 0"),
    ("rest length", set_path(["forces", 2, "rest"], [1, 2]), "forces[2].rest", "expected 3 numbers"),
    ("effort count", set_path(["forces", 3, "value"], ["1", "2"]), "forces[3].value", "expected 3 expressions"),
    ("frame", set_path(["forces", 5, "frame"], "local"), "forces[5].frame", "must be one of world, body"),
    ("force on unknown body", set_path(["forces", 1, "body"], "ghost"), "forces[1].body", "unknown body 'ghost'"),
    ("method", set_path(["settings", "method"], "newton"), "settings.method", "must be one of lagrange"),
    ("integrator", set_path(["settings", "integrator"], "Euler"), "settings.integrator", "must be one of"),
    ("rtol", set_path(["settings", "rtol"], 0), "settings.rtol", "must be > 0"),
    ("t_end", set_path(["settings", "t_end"], -1), "settings.t_end", "must be > 0"),
    ("baumgarte needs beta", set_path(["settings", "stabilization"], {"kind": "baumgarte", "alpha": 1}),
     "settings.stabilization.beta", "required"),
    ("version", set_path(["eomlab"], 2), "eomlab", "unsupported format version 2"),
    ("name type", set_path(["name"], 5), "name", "expected a string, got number"),
]


@pytest.mark.parametrize("label, change, path, problem", MALFORMED_DICTS, ids=[m[0] for m in MALFORMED_DICTS])
def test_malformed_model_is_refused_with_path(label, change, path, problem):
    with pytest.raises(ModelError) as info:
        model_from_dict(with_change(change))
    assert info.value.path == path, str(info.value)
    assert problem in info.value.message, str(info.value)
    assert "\n" not in str(info.value)


def test_cycle_is_reported():
    data = {"bodies": [
        {"name": "a", "parent": "b", "joint": {"type": "revolute"}},
        {"name": "b", "parent": "a", "joint": {"type": "revolute"}},
        {"name": "c", "parent": "ground", "joint": {"type": "revolute"}},
    ]}
    with pytest.raises(ModelError) as info:
        model_from_dict(data)
    assert info.value.path == "bodies[0].parent"
    assert "cycle a -> b -> a" in info.value.message


EXAMPLE_TEXT = json.dumps(EXAMPLE)

MALFORMED_TEXTS = [
    ("NaN", EXAMPLE_TEXT.replace('"mass": 1.0', '"mass": NaN', 1), "bodies[0].mass", "NaN is not allowed"),
    ("Infinity", EXAMPLE_TEXT.replace('"t_end": 10', '"t_end": Infinity'), "settings.t_end", "Infinity"),
    ("-Infinity", EXAMPLE_TEXT.replace("-9.81", "-Infinity"), "gravity[1]", "-Infinity is not allowed"),
    ("1e400", EXAMPLE_TEXT.replace('"mass": 1.0', '"mass": 1e400', 1), "bodies[0].mass", "must be finite"),
    ("huge int", EXAMPLE_TEXT.replace('"mass": 1.0', '"mass": 1' + "0" * 400, 1), "bodies[0].mass", "too large"),
    ("NaN as name", EXAMPLE_TEXT.replace('"double compound pendulum"', "NaN"), "name", "expected a string, got NaN"),
    ("duplicate key", EXAMPLE_TEXT.replace('"mass": 1.0', '"mass": 1.0, "mass": 2.0', 1), "bodies[0].mass",
     "duplicate field"),
    ("bad json", EXAMPLE_TEXT[:-5], "", "invalid JSON at line 1"),
    ("not an object", "[1, 2]", "", "expected an object, got array"),
    ("deep json", "[" * 100000 + "]" * 100000, "", "invalid JSON"),
]


@pytest.mark.parametrize("label, text, path, problem", MALFORMED_TEXTS, ids=[m[0] for m in MALFORMED_TEXTS])
def test_malformed_text_is_refused_with_path(label, text, path, problem):
    with pytest.raises(ModelError) as info:
        loads_model(text, source="bad.eom.json")
    assert info.value.path == path, str(info.value)
    assert problem in info.value.message, str(info.value)
    assert info.value.source == "bad.eom.json"
    assert str(info.value).startswith("bad.eom.json: ")
    assert "\n" not in str(info.value)


def test_hostile_expression_in_file_has_no_effect(tmp_path):
    marker = pathlib.Path("/tmp/x")
    existed = marker.exists()
    data = example()
    data["forces"] = [{"type": "joint_effort", "body": "upper", "value": [HOSTILE_TEXT]}]
    path = tmp_path / "hostile.eom.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert info.value.path == "forces[0].value[0]"
    assert info.value.source == str(path)
    assert marker.exists() == existed


def test_load_errors_name_the_file(tmp_path):
    path = tmp_path / "m.eom.json"
    data = example()
    data["bodies"][1]["mass"] = -2
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f"{path}: bodies[1].mass: must be >= 0, got -2"
    with pytest.raises(ModelError, match="cannot read the file"):
        load_model(tmp_path / "missing.eom.json")
    (tmp_path / "latin1.eom.json").write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(ModelError, match="not UTF-8"):
        load_model(tmp_path / "latin1.eom.json")


def test_size_limits(tmp_path, monkeypatch):
    bodies = [{"name": f"b{i}", "parent": "ground", "joint": {"type": "fixed"}} for i in range(1001)]
    with pytest.raises(ModelError) as info:
        model_from_dict({"bodies": bodies})
    assert info.value.path == "bodies" and "at most 1000" in info.value.message
    constraints = [{"type": "expression", "equation": "b0_theta"}] * 1001
    with pytest.raises(ModelError, match="too many constraints"):
        model_from_dict({"constraints": constraints})
    monkeypatch.setattr(modelfile.reading, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.eom.json"
    path.write_text(EXAMPLE_TEXT)
    with pytest.raises(ModelError, match="file is too large"):
        load_model(path)


# --- atomic saving -----------------------------------------------------------------------------


def directory_listing(directory):
    return sorted(p.name for p in directory.iterdir())


def test_save_refuses_invalid_model_and_keeps_old_file(tmp_path):
    target = tmp_path / "m.eom.json"
    save_model(model_from_dict(example()), target)
    before = target.read_bytes()
    bad = Model(bodies=(Body("a", "ground", Joint("revolute", names=("a_theta",), q0=(0.0,), u0=(0.0,)),
                             mass=math.nan),))
    with pytest.raises(ModelError) as info:
        save_model(bad, target)
    assert info.value.path == "bodies[0].mass"
    assert target.read_bytes() == before
    assert directory_listing(tmp_path) == ["m.eom.json"]


def test_save_failure_while_writing_removes_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "m.eom.json"
    target.write_text("old contents")

    def broken_replace(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk on fire"):
        save_model(model_from_dict(example()), target)
    assert target.read_text() == "old contents"
    assert directory_listing(tmp_path) == ["m.eom.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_save_into_read_only_directory_keeps_old_file(tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    target = directory / "m.eom.json"
    target.write_text("old contents")
    directory.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(OSError):
            save_model(model_from_dict(example()), target)
        assert target.read_text() == "old contents"
        assert directory_listing(directory) == ["m.eom.json"]
    finally:
        directory.chmod(stat.S_IRWXU)


def test_save_keeps_permissions(tmp_path):
    target = tmp_path / "m.eom.json"
    target.write_text("{}")
    target.chmod(0o640)
    save_model(model_from_dict(example()), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_programmatic_constraints_and_forces_round_trip(tmp_path):
    base = model_from_dict(example())
    model = Model(
        name="built", bodies=base.bodies,
        constraints=(Distance("d", PointRef("ground", (0.0, 1.0, 0.0)), PointRef("lower", (1.0, 0.0, 0.0)), 1.5),
                     Prescribed("drive", "upper_theta", "2*t"),
                     ExpressionConstraint("acc", "upper_theta_ddot - lower_theta_ddot", 2)),
        forces=(Spring("s", PointRef("ground"), PointRef("upper"), 2.0),
                JointSpring("js", "lower", 1.0, (0.5,)),
                PointForce("pf", "lower", (1.0, 0.0, 0.0), ("0", "-1", "0"))),
    )
    target = tmp_path / "built.eom.json"
    save_model(model, target)
    assert load_model(target) == model


def test_save_failure_when_temp_file_cannot_be_created(tmp_path, monkeypatch):
    """As a read-only directory would (also when the tests run as root)."""
    target = tmp_path / "m.eom.json"
    target.write_text("old contents")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(modelfile.writing.tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError):
        save_model(model_from_dict(example()), target)
    assert target.read_text() == "old contents"
    assert directory_listing(tmp_path) == ["m.eom.json"]


def test_save_failure_in_fsync_removes_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "m.eom.json"
    target.write_bytes(b"old \x00 bytes")

    def broken_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        save_model(model_from_dict(example()), target)
    assert target.read_bytes() == b"old \x00 bytes"
    assert directory_listing(tmp_path) == ["m.eom.json"]


def test_save_into_missing_directory_raises(tmp_path):
    with pytest.raises(OSError):
        save_model(model_from_dict(example()), tmp_path / "nowhere" / "m.eom.json")
    assert directory_listing(tmp_path) == []


# --- many models: round trip property --------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FINITE = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
POSITIVE = st.floats(min_value=1e-3, max_value=1e3)
VEC3 = st.lists(FINITE, min_size=3, max_size=3)
NONZERO3 = VEC3.filter(lambda v: math.sqrt(sum(c * c for c in v)) > 1e-3)
DOFS = {"revolute": 1, "prismatic": 1, "spherical": 3, "planar": 3, "free": 6, "fixed": 0}


@st.composite
def body_dicts(draw, index, earlier):
    kind = draw(st.sampled_from(sorted(DOFS)))
    dof = DOFS[kind]
    joint = {"type": kind, "q0": draw(st.lists(FINITE, min_size=dof, max_size=dof)),
             "u0": draw(st.lists(FINITE, min_size=dof, max_size=dof)), "at": draw(VEC3)}
    if kind in ("revolute", "prismatic"):
        joint["axis"] = draw(NONZERO3)
    if kind in ("spherical", "free"):
        joint["sequence"] = draw(st.sampled_from(["zxz", "xyz", "zyx", "yzy", "xzx"]))
        joint["speeds"] = draw(st.sampled_from(["body", "euler"]))
    if draw(st.booleans()):
        joint["rotation"] = {"axis": draw(NONZERO3), "angle": draw(st.floats(-10, 10))}
    body = {"name": f"b{index}", "parent": draw(st.sampled_from(["ground"] + earlier)), "joint": joint,
            "mass": draw(st.floats(0, 100)), "com": draw(VEC3)}
    choice = draw(st.sampled_from(["principal", "matrix", "shape", "none"]))
    if choice == "principal":
        a, b = draw(POSITIVE), draw(POSITIVE)
        body["inertia"] = [a, b, draw(st.floats(abs(a - b), a + b))]
    elif choice == "matrix":
        moments = np.array([1.0, 1.5, 2.0]) * draw(POSITIVE)
        rotation = axis_angle_matrix(draw(NONZERO3), draw(st.floats(-3, 3)))
        matrix = np.array(rotation) @ np.diag(moments) @ np.array(rotation).T
        body["inertia"] = ((matrix + matrix.T) / 2).tolist()
    elif choice == "shape":
        body["shape"] = draw(st.sampled_from([
            {"kind": "rod", "length": 2.0}, {"kind": "disk", "radius": 0.3}, {"kind": "sphere", "radius": 1.0},
            {"kind": "box", "size": [1.0, 2.0, 3.0]}, {"kind": "point"}]))
    return body


@st.composite
def model_dicts(draw):
    count = draw(st.integers(0, 5))
    bodies = []
    for i in range(count):
        bodies.append(draw(body_dicts(i, [b["name"] for b in bodies])))
    bodies = draw(st.permutations(bodies))
    data = {"name": draw(st.text(max_size=20)), "gravity": draw(VEC3), "bodies": bodies}
    coordinates = model_from_dict(data).coordinate_names
    moving = [b["name"] for b in bodies if DOFS[b["joint"]["type"]]]
    constraints, forces = [], []
    if coordinates:
        c = draw(st.sampled_from(coordinates))
        constraints.append({"type": "prescribed", "coordinate": c, "motion": "sin(t)"})
        constraints.append({"type": "expression", "equation": f"{c}_ddot*cos({c}) + {c}_dot", "order": 2})
    if moving:
        forces.append({"type": "joint_spring", "body": draw(st.sampled_from(moving)), "stiffness": draw(POSITIVE),
                       "rest": draw(FINITE), "damping": draw(st.floats(0, 10))})
        forces.append({"type": "point_force", "body": draw(st.sampled_from(moving)), "point": draw(VEC3),
                       "value": ["1", f"-{draw(POSITIVE)}*t", "0"], "frame": draw(st.sampled_from(["world", "body"]))})
    data.update(constraints=constraints, forces=forces)
    return data


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(model_dicts())
def test_round_trip_on_generated_models(data):
    model = model_from_dict(data)
    assert loads_model(dumps_model(model)) == model
    # parents always come before their children after loading
    seen = {"ground"}
    for body in model.bodies:
        assert body.parent in seen
        seen.add(body.name)
