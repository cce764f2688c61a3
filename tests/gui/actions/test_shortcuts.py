"""The keyboard: Space and Ctrl+R toggle the run wherever the focus is; the sheet lists every
shortcut from the one table."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from eomlab.engine.presets import preset
from eomlab.gui.actions import shortcuts


def window_on_pendulum(make_window):
    return make_window(preset("double_compound_pendulum").with_settings(t_end=30.0))


def focus(qtbot, widget):
    widget.window().activateWindow()
    widget.setFocus(Qt.OtherFocusReason)
    qtbot.waitUntil(lambda: widget.hasFocus(), timeout=2000)


def test_space_toggles_the_run_from_the_tree_and_from_a_text_field(qtbot, make_window):
    window = window_on_pendulum(make_window)
    assert window.state == "idle"
    focus(qtbot, window.tree)
    qtbot.keyClick(window.tree, Qt.Key_Space)
    assert window.state == "running"
    qtbot.keyClick(window.tree, Qt.Key_Space)
    assert window.state == "paused"

    window.tree.select(("body", window.model.bodies[0].name))
    field = window.inspector.editor("mass")
    assert isinstance(field, QLineEdit)
    before = field.text()
    focus(qtbot, field)
    qtbot.keyClick(field, Qt.Key_Space)
    assert window.state == "running"
    qtbot.keyClick(field, Qt.Key_Space)
    assert window.state == "paused"
    assert field.text() == before  # the space went to the run, not into the number

    qtbot.keyClick(field, Qt.Key_R, Qt.ControlModifier)
    assert window.state == "running"
    focus(qtbot, window.plots.plots["energy"])
    qtbot.keyClick(window.plots.plots["energy"], Qt.Key_R, Qt.ControlModifier)
    assert window.state == "paused"


def test_speed_keys_skip_text_fields(qtbot, make_window):
    window = window_on_pendulum(make_window)
    start = window.run_actions.speed_box.currentIndex()
    focus(qtbot, window.tree)
    qtbot.keyClick(window.tree, Qt.Key_BracketRight)
    assert window.run_actions.speed_box.currentIndex() == start + 1
    qtbot.keyClick(window.tree, Qt.Key_Down, Qt.ControlModifier)
    assert window.run_actions.speed_box.currentIndex() == start
    window.tree.select(("body", window.model.bodies[0].name))
    field = window.inspector.editor("mass")
    focus(qtbot, field)
    qtbot.keyClick(field, Qt.Key_BracketRight)
    assert window.run_actions.speed_box.currentIndex() == start  # typed, not taken
    assert "]" in field.text()


def test_sheet_lists_every_binding_and_the_menu_shortcuts(qtbot, make_window):
    window = window_on_pendulum(make_window)
    window.binding_actions["shortcuts"].trigger()
    sheet = window.shortcut_sheet
    qtbot.addWidget(sheet)
    texts = {sheet.table.item(r, 1).text() for r in range(sheet.table.rowCount())}
    keys = {sheet.table.item(r, 0).text() for r in range(sheet.table.rowCount())}
    assert {b.text for b in shortcuts.BINDINGS} <= texts
    assert "Run" in texts and "F5" in keys and "Space or Ctrl+R" in keys  # QAction shortcuts too
    sheet.close()


def test_step_and_reset_actions(qtbot, make_window):
    window = window_on_pendulum(make_window)
    qtbot.waitUntil(lambda: len(window.samples()[1]) == 1, timeout=10000)
    focus(qtbot, window.tree)
    qtbot.keyClick(window.tree, Qt.Key_Right, Qt.ControlModifier)
    qtbot.waitUntil(lambda: len(window.samples()[1]) >= 2, timeout=5000)
    qtbot.keyClick(window.tree, Qt.Key_Home, Qt.ControlModifier)
    qtbot.waitUntil(lambda: len(window.samples()[1]) == 1, timeout=10000)


def test_a_closed_window_stops_filtering_the_applications_events_and_a_shown_one_starts_again(qtbot, make_window,
                                                                                                  monkeypatch):
    """The router filters every event of the application: a window closed (not deleted) left its router
    installed, one more Python call per event for each window ever opened (eight windows: 180,000 calls for
    the eighth one's start, against 7,000)."""
    seen = []
    original = shortcuts.KeyRouter.eventFilter
    monkeypatch.setattr(shortcuts.KeyRouter, "eventFilter", lambda self, target, event: seen.append(self) or
                        original(self, target, event))
    window = window_on_pendulum(make_window)
    qtbot.waitUntil(lambda: window.keyboard in seen, timeout=2000)
    window.close()
    seen.clear()
    window_on_pendulum(make_window)
    qtbot.wait(100)
    assert seen and window.keyboard not in seen
    window.show()
    focus(qtbot, window.tree)
    qtbot.keyClick(window.tree, Qt.Key_Space)
    assert window.state == "running"
