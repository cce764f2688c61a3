"""Hostile model files: every mutation of a valid file loads as a Model or is refused with a
ModelError naming the file, the field's path and the problem, quickly; the command line answers
each bad file with exit status 2 and one line, and leaves the file (and the output) alone."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from eomlab.engine import modelfile
from eomlab.cli import main
from eomlab.engine.model import Model, ModelError
from eomlab.engine.modelfile import load_model, loads_model
from eomlab.engine.simulation import Simulation

from reliability_helpers import ASSET_FILES, ROOT, asset_dict, fingerprint, write_model, write_model_text

SOURCE = "mutated.eom.json"
MAX_SECONDS = 1.0

# --- the property: mutate a valid file anywhere ----------------------------------------------------

_HOSTILE_STRINGS = [
    "", " ", "ground", "__import__('os').system('true')", "x" * 3000, "(" * 60 + "1" + ")" * 60,
    "t**1000000", "9**9**9", "1/0", "log(0)", "sin", "a.b", "lambda: 1", "\x00", "é", "1e400",
    "bob_theta_ddot", "sqrt(-1)", "NaN", "Infinity",
]
_NUMBERS = st.one_of(
    st.integers(min_value=-10**20, max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e-320, 1e308, -0.0, 10**400]),
)
_LEAVES = st.one_of(st.none(), st.booleans(), _NUMBERS, st.text(max_size=30), st.sampled_from(_HOSTILE_STRINGS))
_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                       max_leaves=12)
_KINDS = ("replace", "delete", "add_key", "duplicate", "truncate", "grow", "wrap")


def _containers(node, path=()):
    """Every (path, container) in the JSON tree, the root first."""
    yield path, node
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        if isinstance(child, (dict, list)):
            yield from _containers(child, path + (key,))


def _mutate(data, draw) -> tuple[object, int]:
    """Apply one drawn mutation somewhere in `data`; returns the new document and the depth of
    the mutated container (0: the whole document)."""
    places = [(path, node) for path, node in _containers(data) if isinstance(node, (dict, list))]
    if not places:  # an earlier mutation left a bare value: replace it
        return draw(_VALUES), 0
    path, node = places[draw(st.integers(0, len(places) - 1))]
    kind = draw(st.sampled_from(_KINDS))
    keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
    if kind == "wrap" and not path:
        return draw(_VALUES), 0
    if not keys or kind == "add_key":
        if isinstance(node, dict):
            node[draw(st.sampled_from(["extra", "mass", "name", "type", "joint", "x"]))] = draw(_VALUES)
        else:
            node.append(draw(_VALUES))
        return data, len(path)
    key = keys[draw(st.integers(0, len(keys) - 1))]
    if kind == "replace":
        node[key] = draw(_VALUES)
    elif kind == "delete":
        del node[key]
    elif kind == "duplicate" and isinstance(node, list):
        node.insert(key, json.loads(json.dumps(node[key])))
    elif kind == "truncate" and isinstance(node, list):
        del node[key:]
    elif kind == "grow" and isinstance(node, list):
        node.extend([node[key]] * draw(st.sampled_from([2, 50, 1001])))
    elif kind == "wrap":
        node[key] = [node[key]] if draw(st.booleans()) else {"value": node[key]}
    else:
        node[key] = draw(_VALUES)
    return data, len(path)


@st.composite
def mutated_files(draw):
    name = draw(st.sampled_from([p.name.replace(".eom.json", "") for p in ASSET_FILES]))
    data = asset_dict(name)
    depth = 0
    for _ in range(draw(st.integers(1, 3))):
        data, mutated_depth = _mutate(data, draw)
        depth = max(depth, mutated_depth)
    return json.dumps(data, allow_nan=True), depth


def _load_or_refuse(text: str):
    start = time.perf_counter()
    try:
        result = loads_model(text, SOURCE)
    except ModelError as error:
        result = error
    return result, time.perf_counter() - start


@settings(max_examples=200, deadline=1000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_files())
def test_mutated_files_load_or_are_refused_naming_a_path(case):
    text, depth = case
    result, seconds = _load_or_refuse(text)
    assert seconds < MAX_SECONDS
    if isinstance(result, ModelError):
        assert result.source == SOURCE
        assert "\n" not in str(result) and str(result).startswith(SOURCE + ": ")
        assert result.message
        if depth > 0 and isinstance(json.loads(text), dict):
            assert result.path, f"no field path in: {result}"
    else:
        assert isinstance(result, Model)


@settings(max_examples=100, deadline=1000, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ASSET_FILES), st.floats(0, 1), st.binary(max_size=8), st.booleans())
def test_damaged_text_loads_or_is_refused(path, where, junk, cut):
    """Truncated files and stray bytes: a Model or one line naming the problem."""
    raw = path.read_bytes()
    k = int(where * len(raw))
    damaged = raw[:k] if cut else raw[:k] + junk + raw[k:]
    text = damaged.decode("utf-8", errors="replace")
    result, seconds = _load_or_refuse(text)
    assert seconds < MAX_SECONDS
    assert isinstance(result, (Model, ModelError))
    if isinstance(result, ModelError):
        assert "\n" not in str(result) and str(result).startswith(SOURCE)


# --- limits and non-finite numbers, named -----------------------------------------------------------


def _refusal(text: str) -> ModelError:
    with pytest.raises(ModelError) as info:
        loads_model(text, SOURCE)
    return info.value


def _pendulum_text(**body_fields) -> str:
    data = asset_dict("simple_pendulum")
    data["bodies"][0].update(body_fields)
    return json.dumps(data, allow_nan=True)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers_are_refused_at_their_field(literal):
    text = _pendulum_text(mass=1.0).replace('"mass": 1.0', f'"mass": {literal}')
    error = _refusal(text)
    assert error.path == "bodies[0].mass" and "finite" in error.message


def test_non_finite_number_in_a_vector_names_its_index():
    data = asset_dict("double_compound_pendulum")
    text = json.dumps(data).replace('"gravity": [0.0, -9.81, 0.0]', '"gravity": [0.0, -Infinity, 0.0]')
    error = _refusal(text)
    assert error.path == "gravity[1]" and "finite" in error.message


def test_more_than_1000_bodies_are_refused():
    data = asset_dict("simple_pendulum")
    body = data["bodies"][0]
    data["bodies"] = [dict(body, name=f"b{i}", joint=dict(body["joint"], names=[f"q{i}"])) for i in range(1001)]
    error = _refusal(json.dumps(data))
    assert error.path == "bodies" and "too many bodies" in error.message and "1000" in error.message


def test_exactly_1000_bodies_load_within_a_second():
    data = asset_dict("simple_pendulum")
    body = data["bodies"][0]
    data["bodies"] = [dict(body, name=f"b{i}", parent="ground" if i == 0 else f"b{i - 1}",
                           joint=dict(body["joint"], names=[f"q{i}"])) for i in range(1000)]
    data["bodies"].reverse()  # children first: the loader reorders them
    result, seconds = _load_or_refuse(json.dumps(data))
    assert isinstance(result, Model) and len(result.bodies) == 1000
    assert seconds < MAX_SECONDS


def _effort_text(expression: str) -> str:
    data = asset_dict("simple_pendulum")
    data["forces"] = [{"type": "joint_effort", "name": "drive", "body": "bob", "value": [expression]}]
    return json.dumps(data)


@pytest.mark.parametrize("expression, problem", [
    ("t+" * 1500 + "t", "too long"),
    ("(" * 51 + "t" + ")" * 51, "nested too deeply"),
    ("sin(" * 60 + "t" + ")" * 60, "nested too deeply"),
    ("t**101", "exponent is too large"),
    ("bob_theta**(10**6)", "exponent is too large"),
    ("10**400", "too large"),
    ("12345678901234567890", "integer literal is too large"),
    ("__import__('os')", "calls are allowed only to"),
    ("sin('x')", "strings are not allowed"),
    ("bob_theta.real", "attribute access"),
    ("bob_theta_ddot", "unknown name"),
    ("1/0", "division by zero"),
])
def test_hostile_expressions_are_refused_at_their_field(expression, problem):
    error = _refusal(_effort_text(expression))
    assert error.path == "forces[0].value[0]" and problem in error.message


def test_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    data = asset_dict("simple_pendulum")
    data["name"] = "x" * (modelfile.MAX_FILE_BYTES + 10)
    path = write_model(tmp_path, data, "huge.eom.json")
    before = fingerprint(path)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert time.perf_counter() - start < MAX_SECONDS
    assert "huge.eom.json" in str(info.value) and "too large" in info.value.message
    assert fingerprint(path) == before


@pytest.mark.parametrize("text, problem", [
    ("", "invalid JSON"),
    ("[1, 2, 3]", "expected an object"),
    ('{"name": "a", "name": "b"}', "duplicate field 'name'"),
    ("[" * 100_000 + "]" * 100_000, "invalid JSON"),
    ('{"eomlab": 1, "gravity": [0, ' + "9" * 5000 + ', 0]}', "invalid JSON"),
    ('{"eomlab": 2}', "unsupported format version"),
    ('{"bodies": {"name": "a"}}', "expected an array"),
])
def test_malformed_documents_are_refused_with_one_line(text, problem):
    error = _refusal(text)
    assert problem in error.message and "\n" not in str(error)


# --- the command line: exit 2, one line, nothing written, the file untouched ------------------------

_BAD_FILES = {
    "negative_mass": ('"mass": 1.0', '"mass": -1.0', "bodies[0].mass", "must be >= 0"),
    "nan_mass": ('"mass": 1.0', '"mass": NaN', "bodies[0].mass", "finite"),
    "overflow": ('"t_end": 10.0', '"t_end": 1e400', "settings.t_end", "finite"),
    "unknown_field": ('"mass": 1.0', '"mass": 1.0, "colour": "red"', "bodies[0].colour", "unknown field"),
    "bad_method": ('"method": "kane"', '"method": "newton"', "settings.method", "must be one of"),
    "zero_axis": ('"axis": [0.0, 0.0, 1.0]', '"axis": [0.0, 0.0, 0.0]', "bodies[0].joint.axis", "nonzero"),
    "not_json": ('"eomlab": 1,', '"eomlab": 1,,', "", "invalid JSON"),
}


def _bad_file(tmp_path, name):
    old, new, _, _ = _BAD_FILES[name]
    text = (ASSET_FILES[0].parent / "simple_pendulum.eom.json").read_text()
    assert old in text
    return write_model_text(tmp_path, text.replace(old, new, 1), f"{name}.eom.json")


@pytest.mark.parametrize("name", sorted(_BAD_FILES))
def test_cli_answers_a_bad_file_with_exit_2_and_one_line(tmp_path, capsys, name):
    path = _bad_file(tmp_path, name)
    before = fingerprint(path)
    out = tmp_path / "out.csv"
    assert main(["run", str(path), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    _, _, field, problem = _BAD_FILES[name]
    assert len(lines) == 1 and path.name in lines[0] and field in lines[0] and problem in lines[0]
    assert captured.out == "" and not out.exists()
    assert fingerprint(path) == before


def test_cli_process_exits_2_without_traceback_for_a_non_physical_model(tmp_path):
    """A model that validates but cannot move (a massless pendulum) is bad input too."""
    data = asset_dict("simple_pendulum")
    data["bodies"][0]["mass"] = 0.0
    path = write_model(tmp_path, data, "massless.eom.json")
    proc = subprocess.run([sys.executable, "-m", "eomlab", "run", str(path), "--t-end", "0.1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "massless.eom.json" in lines[0] and "bob_theta_dot" in lines[0] and "singular" in lines[0]


def test_cli_refuses_an_overflowing_start_in_one_line(tmp_path):
    """Hypothesis found it: u0 = 1e300 made T = inf in the first sample. Now beyond the range
    check: exit 2, one line naming the field, no numpy warnings on standard error, nothing written."""
    data = asset_dict("simple_pendulum")
    data["bodies"][0]["joint"]["u0"] = [1e300]
    path = write_model(tmp_path, data, "fast.eom.json")
    out = tmp_path / "out.csv"
    proc = subprocess.run([sys.executable, "-m", "eomlab", "run", str(path), "--t-end", "0.1", "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and not out.exists()
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "fast.eom.json: bodies[0].joint.u0[0]: " in lines[0] and "1e12" in lines[0], proc.stderr


# --- the property, one level deeper: files that load either run or stop with a message -------------

_ODD_NUMBERS = st.one_of(st.sampled_from([0.0, -1.0, 1e-300, 5e-324, 1e300, 1e12, -1e12, 1e-12, 1e6]),
                         st.floats(-1e3, 1e3))


def _number_paths(node, path=()):
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            yield path + (key,)
        elif isinstance(value, (dict, list)):
            yield from _number_paths(value, path + (key,))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ASSET_FILES), st.data())
def test_files_with_odd_numbers_run_or_stop_with_a_message(path, data):
    document = json.loads(path.read_text())
    places = list(_number_paths(document))
    for _ in range(data.draw(st.integers(1, 3))):
        *parents, last = places[data.draw(st.integers(0, len(places) - 1))]
        node = document
        for key in parents:
            node = node[key]
        node[last] = data.draw(_ODD_NUMBERS)
    document.setdefault("settings", {})["t_end"] = 0.05
    start = time.perf_counter()
    try:
        sim = Simulation(loads_model(json.dumps(document), SOURCE))
        sim.advance(0.05, wall_budget=0.5)
    except ModelError as error:
        assert error.path is not None and "\n" not in str(error)
    else:
        assert sim.failure is None or sim.failure.startswith("run stopped at t = ")
        assert np.all(np.isfinite(sim.samples()))  # what is kept is usable
    assert time.perf_counter() - start < 10.0


def test_a_sampling_interval_that_would_never_end_is_refused(tmp_path, capsys):
    data = asset_dict("simple_pendulum")
    data["settings"]["dt_out"] = 1e-50
    model = loads_model(json.dumps(data), SOURCE)
    with pytest.raises(ModelError) as info:
        Simulation(model)
    assert info.value.path == "settings.dt_out" and "too many" in info.value.message
    path = write_model(tmp_path, asset_dict("simple_pendulum"), "fine.eom.json")
    assert main(["run", str(path), "--dt-out", "1e-9"]) == 2  # the command line's override too
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "fine.eom.json" in lines[0] and "settings.dt_out" in lines[0]
