"""The equations panel: typeset in the background, Kane's and Udwadia–Kalaba's own sections,
Copy as LaTeX, the size guard's refusal, cancellation when the model or method changes."""
from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from eomlab.engine.presets import planar_chain, preset
from eomlab.gui import equations_view


def shown_equations(qtbot, window, timeout=30000):
    view = window.equations_view
    view.show()
    qtbot.waitUntil(lambda: view.current is None and view.shown_for is not None, timeout=timeout)
    return view


def section_titles(view):
    return [w.text() for w in view.panel.content.findChildren(equations_view.QLabel)
            if w.objectName() != "equation_text"]


def test_pendulum_equations_typeset_and_copied(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(method="lagrange"))
    view = window.equations_view
    assert not view.dock.isVisible() and view.current is None  # nothing derived while hidden
    view = shown_equations(qtbot, window)
    assert view.panel.svg_widgets, view.state
    assert all(w.renderer().isValid() for w in view.panel.svg_widgets)
    assert any(t.startswith("Mass matrix") for t in section_titles(view))
    view.panel.copy_button.click()
    text = QGuiApplication.clipboard().text()
    assert text.startswith("% ") and "\\section*" in text and "\\[" in text


def test_kane_partial_velocities_and_udwadia_kalaba_split(qtbot, make_window):
    window = make_window(preset("cartesian_pendulum").with_settings(method="kane"))
    view = shown_equations(qtbot, window)
    assert any("Partial velocities" in t for t in section_titles(view))
    window.set_setting("method", "udwadia_kalaba")
    qtbot.waitUntil(lambda: view.current is None and any("K/L" in t for t in section_titles(view)), timeout=30000)


def test_size_guard_message_is_shown(qtbot, make_window):
    window = make_window(planar_chain(12))
    view = shown_equations(qtbot, window)
    assert "too large" in view.state and "12" in view.state
    assert not view.panel.svg_widgets and not view.panel.copy_button.isEnabled()


def test_changing_the_model_cancels_the_derivation(qtbot, make_window):
    # a result reaches the panel only through the event loop, so without one in between the
    # derivation is still current when the method changes, however fast sympy is
    window = make_window(preset("cartesian_pendulum").with_settings(method="kane"))
    view = window.equations_view
    view.show()
    first = view.current
    assert first is not None
    assert view.state == "deriving…" and view.panel.busy.isVisible()
    window.set_setting("method", "lagrange")
    assert first.cancel_event.is_set() and first in view.cancelled
    second = view.current
    assert second is not None and second.method == "lagrange"
    window.load_model(preset("simple_pendulum"), None, "a pendulum")
    assert second.cancel_event.is_set() and view.worker.process.is_alive()  # a fresh worker
    qtbot.waitUntil(lambda: view.current is None and bool(view.panel.svg_widgets), timeout=30000)
    assert view.shown_for == (id(window.model), window.model.settings.method)


def test_falls_back_to_pretty_text_when_ziamath_fails(qtbot, make_window):
    window = make_window(preset("simple_pendulum"))
    window.equations_view.worker.plain_text = True  # the worker typesets nothing: all text
    view = shown_equations(qtbot, window)
    assert not view.panel.svg_widgets and view.panel.text_items
    assert any("⋅" in label.text() or "sin" in label.text() for label in view.panel.text_items)
