"""The window answers a bad file with a message naming the file, the field and the problem, and
keeps the model it had (and its run)."""
from __future__ import annotations

import json

import pytest

from eomlab.engine.presets import preset

from reliability_helpers import asset_dict, fingerprint, write_model, write_model_text


def _pendulum(**fields) -> dict:
    data = asset_dict("simple_pendulum")
    data["bodies"][0].update(fields)
    return data


BAD = {
    "nan_mass": (lambda: json.dumps(_pendulum(mass=1.0)).replace('"mass": 1.0', '"mass": NaN'),
                 "bodies[0].mass", "finite"),
    "triangle": (lambda: json.dumps(_pendulum(inertia=[1, 1, 3])), "bodies[0].inertia", "triangle inequality"),
    "hostile_expression": (lambda: json.dumps(dict(asset_dict("simple_pendulum"), forces=[
        {"type": "joint_effort", "body": "bob", "value": ["__import__('os').system('true')"]}])),
        "forces[0].value[0]", "not allowed"),
    "truncated": (lambda: json.dumps(asset_dict("four_bar"))[:200], "", "invalid JSON"),
    "inconsistent_servos": (lambda: json.dumps(dict(asset_dict("simple_pendulum"), constraints=[
        {"type": "prescribed", "coordinate": "bob_theta", "motion": "t"},
        {"type": "prescribed", "coordinate": "bob_theta", "motion": "2*t"}])),
        "constraints[1].motion", "inconsistent constraints"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_is_refused_and_the_model_kept(qtbot, make_window, tmp_path, name):
    make_text, field, problem = BAD[name]
    path = write_model_text(tmp_path, make_text(), f"{name}.eom.json")
    before = fingerprint(path)
    window = make_window(preset("double_compound_pendulum"))
    model, runs = window.model, list(window.runs)
    assert not window.files.open_file(str(path))
    assert window.model == model and window.runs == runs  # the run was not restarted either
    assert path.name in window.last_error and field in window.last_error and problem in window.last_error
    assert window.message_boxes[-1].isVisible() and window.last_error in window.message_boxes[-1].text()
    assert fingerprint(path) == before


def test_a_model_that_cannot_move_is_shown_as_a_stopped_run_not_a_crash(qtbot, make_window, tmp_path):
    """A file that loads but has a massless pendulum: the worker reports the engine's ModelError."""
    path = write_model(tmp_path, _pendulum(mass=0.0), "massless.eom.json")
    window = make_window(preset("double_compound_pendulum"))
    assert window.files.open_file(str(path))
    window.run()
    qtbot.waitUntil(lambda: bool(window.last_error), timeout=20000)
    assert "bob_theta_dot" in window.last_error and "singular" in window.last_error
    assert window.runs[0].ended == "failed" and window.isVisible()
