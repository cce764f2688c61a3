"""The keyboard: one table of shortcuts, the filter that makes some of them work everywhere, and
the sheet (F1) generated from the same table so it never goes stale.

Three scopes:
- EVERYWHERE: Space and Ctrl+R toggle the run wherever the focus is in the window — the tree, a
  plot, even a text field of the inspector (its fields hold numbers, identifiers and expressions,
  in which a space is never needed). An application event filter takes these keys before the
  focused widget sees them.
- OUTSIDE_TEXT: plain keys ([ and ]) that a text field must keep for typing; the same filter
  handles them only when the focus is not in a text field.
- WINDOW: ordinary QAction shortcuts (Qt's window context), shown in the menus.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
)

EVERYWHERE, OUTSIDE_TEXT, WINDOW = "everywhere", "outside text fields", "window"


@dataclass(frozen=True)
class Binding:
    command: str  # key of COMMANDS
    text: str  # what it does, for menus and the sheet
    keys: tuple[str, ...]  # QKeySequence portable text
    scope: str = WINDOW
    menu: str = ""  # the menu it appears in ("" = none)


#: what each binding does to a main window
COMMANDS: dict[str, Callable] = {
    "run_pause": lambda w: w.session.toggle(),
    "step": lambda w: w.session.step(),
    "reset": lambda w: w.run_actions.reset(),
    "faster": lambda w: w.run_actions.change_speed(+1),
    "slower": lambda w: w.run_actions.change_speed(-1),
    "compare": lambda w: w.run_actions.set_compare(not w.session.compare),
    "equations": lambda w: w.equations_view.toggle(),
    "presentation": lambda w: w.presentation.toggle(),
    "theme": lambda w: w.presentation.toggle_theme(),
    "zoom_in": lambda w: w.presentation.zoom(+1),
    "zoom_out": lambda w: w.presentation.zoom(-1),
    "zoom_reset": lambda w: w.presentation.zoom(0),
    "record": lambda w: w.recording.toggle_gif(),
    "shortcuts": lambda w: show_sheet(w),
    "sample_back": lambda w: w.timeline.step_samples(-1),
    "sample_on": lambda w: w.timeline.step_samples(+1),
}

#: every shortcut of the window that is not a plain QAction of main_window.py (those are listed
#: in the sheet too: `sheet_rows` collects them from the window's actions)
BINDINGS: tuple[Binding, ...] = (
    Binding("run_pause", "Run / pause", ("Space", "Ctrl+R"), EVERYWHERE, "Run"),
    Binding("step", "Step one output interval", ("Ctrl+Right",), WINDOW, "Run"),
    Binding("reset", "Reset to t = 0", ("Ctrl+Home",), WINDOW, "Run"),
    Binding("faster", "Faster", ("]", "Ctrl+Up"), OUTSIDE_TEXT, "Run"),
    Binding("slower", "Slower", ("[", "Ctrl+Down"), OUTSIDE_TEXT, "Run"),
    Binding("compare", "Compare the formulations on/off", ("Ctrl+M",), WINDOW, ""),
    Binding("equations", "Equations panel", ("Ctrl+E",), WINDOW, "View"),
    Binding("presentation", "Presentation mode", ("F11",), WINDOW, "View"),
    Binding("theme", "Light / dark theme", ("Ctrl+Shift+D",), WINDOW, "View"),
    Binding("zoom_in", "Zoom in (fonts and pens)", ("Ctrl+=", "Ctrl++"), WINDOW, "View"),
    Binding("zoom_out", "Zoom out", ("Ctrl+-",), WINDOW, "View"),
    Binding("zoom_reset", "Actual size", ("Ctrl+0",), WINDOW, "View"),
    Binding("record", "Record GIF (start / stop)", ("F9",), WINDOW, "File"),
    Binding("shortcuts", "Keyboard shortcuts", ("F1",), WINDOW, "Help"),
    Binding("sample_back", "Timeline: one sample back (paused)", ("Left",), OUTSIDE_TEXT, ""),
    Binding("sample_on", "Timeline: one sample on (paused)", ("Right",), OUTSIDE_TEXT, ""),
)

_TEXT_INPUTS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)


def is_text_input(widget) -> bool:
    if isinstance(widget, _TEXT_INPUTS):
        return True
    return isinstance(widget, QComboBox) and widget.isEditable()


def _key_of(event) -> QKeySequence:
    """The key event as a sequence comparable with a binding's (keypad flag dropped)."""
    modifiers = event.modifiers() & ~Qt.KeypadModifier
    return QKeySequence(event.keyCombination().key().value | modifiers.value)


class KeyRouter(QObject):
    """Application event filter for the EVERYWHERE and OUTSIDE_TEXT bindings of one window."""

    def __init__(self, window, bindings=BINDINGS):
        super().__init__(window)
        self.window = window
        self.closed = False  # its window was closed: taken off the application's filters
        self.keys: list[tuple[QKeySequence, Binding]] = [
            (QKeySequence(k), b) for b in bindings if b.scope in (EVERYWHERE, OUTSIDE_TEXT) for k in b.keys]

    def binding_for(self, event, target) -> Binding | None:
        sequence = _key_of(event)
        for keys, binding in self.keys:
            if keys.matches(sequence) == QKeySequence.ExactMatch:
                if binding.scope == OUTSIDE_TEXT and is_text_input(target):
                    return None
                return binding
        return None

    def eventFilter(self, target, event) -> bool:
        # this filter sees every event of the application (thousands a second while a run draws):
        # isinstance costs well under a microsecond, event.type()'s Python enum about ten
        if not isinstance(event, QKeyEvent):
            return False
        kind = event.type()
        if kind not in (QEvent.KeyPress, QEvent.ShortcutOverride):
            return False
        if not hasattr(target, "window") or not callable(target.window) or target.window() is not self.window:
            return False  # a dialog, a combo box's popup, another window: not ours
        binding = self.binding_for(event, target)
        if binding is None:
            return False
        if kind == QEvent.ShortcutOverride:
            event.accept()  # the key press comes to us rather than to a QShortcut
            return False
        if not event.isAutoRepeat():
            COMMANDS[binding.command](self.window)
        event.accept()
        return True


def install(window) -> KeyRouter:
    """Make the window's actions for BINDINGS, put them in its menus and start the router."""
    from PySide6.QtWidgets import QApplication

    menus = {action.text().replace("&", ""): action.menu() for action in window.menuBar().actions()
             if action.menu() is not None}
    window.binding_actions = {}
    for binding in BINDINGS:
        action = QAction(binding.text, window)
        action.setObjectName(f"action_{binding.command}")
        if binding.scope == WINDOW:
            action.setShortcuts([QKeySequence(k) for k in binding.keys])
            window.addAction(action)  # active while the window has the focus, menu shown or not
        else:
            # the router does the work; the menu just says which keys
            action.setText(f"{binding.text}\t{' / '.join(binding.keys)}")
        action.triggered.connect(lambda _c=False, c=binding.command: COMMANDS[c](window))
        window.binding_actions[binding.command] = action
        if binding.menu:
            menu = menus.get(binding.menu)
            if menu is None:
                menu = menus[binding.menu] = window.menuBar().addMenu(f"&{binding.menu}")
            menu.addAction(action)
    router = KeyRouter(window)
    QApplication.instance().installEventFilter(router)
    window.destroyed.connect(lambda *_: _uninstall(router))
    return router


def _uninstall(router: KeyRouter) -> None:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        app.removeEventFilter(router)


def sheet_rows(window) -> list[tuple[str, str]]:
    """(keys, what they do) for every binding and every other shortcut the window's actions have."""
    rows = [(" or ".join(QKeySequence(k).toString(QKeySequence.NativeText) for k in b.keys), b.text)
            for b in BINDINGS]
    own = set(getattr(window, "binding_actions", {}).values())
    for action in window.findChildren(QAction):
        if action in own or not action.shortcuts():
            continue
        keys = " or ".join(s.toString(QKeySequence.NativeText) for s in action.shortcuts())
        rows.append((keys, action.text().replace("&", "").split("\t")[0]))
    seen, unique = set(), []
    for row in rows:
        if row not in seen:
            seen.add(row)
            unique.append(row)
    return unique


class ShortcutSheet(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("shortcut_sheet")
        self.setWindowTitle("Keyboard shortcuts")
        rows = sheet_rows(window)
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["keys", "does"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        for r, (keys, text) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(keys))
            self.table.setItem(r, 1, QTableWidgetItem(text))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 560)


def show_sheet(window) -> ShortcutSheet:
    sheet = ShortcutSheet(window)
    sheet.setModal(False)
    sheet.show()
    window.shortcut_sheet = sheet  # kept alive (and reachable for tests)
    return sheet
