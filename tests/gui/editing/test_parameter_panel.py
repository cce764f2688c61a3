"""The live parameter panel (gui/editing/parameter_panel.py): values typed for a vector's length."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.gui.editing.parameter_panel import _engine_value, parameters_of
from gui_helpers import wait_for_samples


@pytest.mark.parametrize("length", [1e308, 1.7976931348623157e308, 1e-308, 5e-324, 0.37])
def test_a_vector_scaled_to_any_finite_length_stays_finite_and_keeps_its_direction(length):
    """Issue 31's monkey: |com| = 1e308 for a mass centre (0, −0.5, 0) scaled the vector by
    1e308 / 0.5 = inf, and 0·inf warned (NaN) before the engine's limit refused the value."""
    model = preset("double_compound_pendulum")
    p = next(p for p in parameters_of(model) if p.path == "bodies[0].com")
    with np.errstate(all="raise"):
        scaled = np.array(_engine_value(model, p, length))
    assert np.all(np.isfinite(scaled))
    direction = np.asarray(model.bodies[0].com, float) / np.linalg.norm(model.bodies[0].com)
    assert np.count_nonzero(scaled) == np.count_nonzero(direction)  # zero components stay zero
    big = int(np.argmax(np.abs(direction)))
    assert math.isclose(scaled[big] / direction[big], length, rel_tol=1e-15)  # tolerance: rounding of one division


def _running(qtbot, make_window, name: str):
    """A window on preset `name`, its run going with samples drawn."""
    window = make_window(preset(name).with_settings(t_end=1e5))
    window.run()
    wait_for_samples(qtbot, window, 10)
    return window


def _typed(window, path: str, text: str):
    """`text` typed into the value field of parameter `path` (Return pressed); the field."""
    field = window.parameter_panel.rows[path][2]
    field.setText(text)
    field.editingFinished.emit()
    return field


def test_a_huge_mass_centre_distance_is_refused_without_a_warning(qtbot, make_window, recwarn):
    window = _running(qtbot, make_window, "double_compound_pendulum")
    before, shown = window.model, window.parameter_panel.rows["bodies[0].com"][2].text()
    field = _typed(window, "bodies[0].com", "1e308")
    assert "Refused" in window.statusBar().currentMessage()
    assert window.model == before and field.text() == shown
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("text", ["0", "-0"])
def test_a_zero_mass_centre_distance_is_refused(qtbot, make_window, text):
    """Issue 31's monkey (four-bar, seed 2): |com| = 0 was taken; the panel rebuilt on the next
    start lists no distance for a mass centre at the origin, and undoing the change raised KeyError."""
    window = _running(qtbot, make_window, "four_bar")
    before = window.model
    _typed(window, "bodies[0].com", text)
    assert "Refused" in window.statusBar().currentMessage() and "above zero" in window.statusBar().currentMessage()
    assert window.model == before and not window.document.undo_stack.canUndo()


@pytest.mark.parametrize("text", ["1e-308", "5e-324", "0.2"])
def test_a_short_mass_centre_distance_keeps_its_row_through_a_restart_and_an_undo(qtbot, make_window, text):
    """Issue 31's monkey (four-bar, seed 33): |com| = 1e-308 was taken, but its length, squared
    in np.linalg.norm, underflowed to 0: the panel rebuilt on the next start listed no distance for
    that body, and undoing everything raised KeyError."""
    window = _running(qtbot, make_window, "four_bar")
    before, panel = window.model, window.parameter_panel
    _typed(window, "bodies[1].com", text)
    assert window.document.undo_stack.canUndo()
    window.reset()
    assert "bodies[1].com" in panel.rows
    assert float(panel.rows["bodies[1].com"][2].text()) == pytest.approx(float(text), rel=1e-3)  # shown as %.4g
    window.document.undo_stack.undo()
    assert window.model == before


def test_compare_mode_keeps_the_sliders_and_a_new_model_makes_its_own(qtbot, make_window):
    """Issue 31's soak: Ctrl+M made the 20-link chain's parameter widgets anew (most of a second on
    the GUI thread). The same parameters keep their widgets, and a slider still changes the run;
    a model with other parameters gets its own rows."""
    window = _running(qtbot, make_window, "double_compound_pendulum")
    panel = window.parameter_panel
    widgets = {path: (slider, field) for path, (_p, slider, field) in panel.rows.items()}
    window.set_compare(True)
    qtbot.waitUntil(lambda: len(window.session.runs) > 1, timeout=30000)
    assert {path: (slider, field) for path, (_p, slider, field) in panel.rows.items()} == widgets
    p, slider, field = panel.rows["bodies[0].mass"]
    slider.setValue(slider.maximum())  # HIGH × the mass the model started with
    qtbot.waitUntil(lambda: all(math.isclose(run.model.bodies[0].mass, 3.0 * p.start)
                                for run in window.session.runs), timeout=10000)
    assert field.text() == f"{3.0 * p.start:.4g}"
    window.set_compare(False)
    window.edits.load_model(preset("simple_pendulum"), None, "another")
    qtbot.waitUntil(lambda: "bodies[1].mass" not in panel.rows, timeout=30000)
    assert set(panel.rows) == {p.path for p in parameters_of(window.session.model)}
