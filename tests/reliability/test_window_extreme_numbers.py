"""The window and the numbers at the edges of floating point (issue 18): every hostile file is
answered with the command line's one-line message and the current model is kept; a file that
loads but cannot start (an Euler angle 1e-308 from its gimbal lock) opens, so that it can be
mended in the inspector, and its run stops at t = 0 with the same message; a value typed into
the inspector meets the same range check."""
from __future__ import annotations

import pytest

from eomlab.engine.presets import preset

from reliability_helpers import fingerprint
from test_extreme_numbers import EXPECTED, HOSTILE

REFUSED_AT_LOAD = sorted(name for name, (field, _) in EXPECTED.items() if field != "bodies")
REFUSED_AT_START = sorted(name for name, (field, _) in EXPECTED.items() if field == "bodies")


def test_window_refuses_each_file_with_the_same_line_and_keeps_the_model(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))  # one window for all: windows are costly
    model, runs = window.model, list(window.runs)
    for name in REFUSED_AT_LOAD:
        path = HOSTILE / f"{name}.eom.json"
        before = fingerprint(path)
        assert not window.files.open_file(str(path)), name
        assert window.model == model and window.runs == runs
        field, words = EXPECTED[name]
        assert window.last_error.startswith(f"{path}: {field}: ") and words in window.last_error, window.last_error
        assert "\n" not in window.last_error
        assert window.message_boxes[-1].isVisible() and window.last_error in window.message_boxes[-1].text()
        assert fingerprint(path) == before


@pytest.mark.parametrize("name", REFUSED_AT_START)
def test_window_opens_a_file_at_its_gimbal_lock_and_its_run_stops_at_t0(qtbot, make_window, name):
    window = make_window(preset("double_compound_pendulum"))
    assert window.files.open_file(str(HOSTILE / f"{name}.eom.json"))
    window.run()
    qtbot.waitUntil(lambda: bool(window.last_error), timeout=20000)
    _, words = EXPECTED[name]
    assert words in window.last_error and "\n" not in window.last_error
    assert window.runs[0].ended == "failed" and window.isVisible()


def test_inspector_values_meet_the_same_range_check(qtbot, make_window):
    window = make_window(preset("double_compound_pendulum"))
    before = window.model
    window.tree.select(("body", "lower"))
    for field, text, path, words in [(("mass",), "1e13", "bodies[1].mass", "at most 1e12 kg"),
                                     (("com",), "1e308, 0, 0", "bodies[1].com[0]", "at most 1e12 m")]:
        assert not window.inspector.set_value(field, text)
        assert window.model == before
        assert path in window.inspector.last_error and words in window.inspector.last_error
        assert window.inspector.error_label.text() == window.inspector.last_error
    window.tree.select(("body", "upper"))  # a rod whose inertia is its shape's: m·l²/12 overflowed (issue 31)
    for text in ("1e308", "1e200"):
        assert not window.inspector.set_value(("shape", "length"), text)
        assert window.model == before and "bodies[0].shape.length" in window.inspector.last_error
        assert "at most 1e12 m" in window.inspector.last_error and "\n" not in window.inspector.last_error
    window.tree.select(("model",))
    assert not window.inspector.set_value(("gravity",), "0, -9.81e12, 0")
    assert window.model == before and "gravity[1]" in window.inspector.last_error
