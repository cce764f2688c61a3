"""The GUI monkey's user actions on a real main window (gui_monkey.py runs them).

An action is a plain list `[kind, a, b, c, text]`: `a`, `b`, `c` in [0, 1) pick among what the
window offers at that moment (a menu entry, a field, a pixel), `text` is what is typed. So any
sub-list of a session's actions can be replayed on a fresh window (the shrink does that).
"""
from __future__ import annotations

import os
import random

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLineEdit, QSlider, QToolBar

#: what a student might type into a field: valid, extreme, non-finite, empty, letters
TYPED = ["1", "0.5", "2", "-1", "0", "-0", "1e-3", "3.7", "1e12", "1e13", "-1e12", "1e308", "1e-308", "5e-324",
         "1e200", "NaN", "nan", "Infinity", "-Infinity", "inf", "", " ", "abc", "x", "1,2", "1, 2, 3", "[1, 2, 3]",
         "[0, 0, 0]", "[1e308, 0, 0]", "[NaN, 0, 0]", "0, -9.81, 0", "0, -1e13, 0", "[1, 1, 1, 1]", "2**63",
         "1e400", "t", "sin(t)", "q1 + u1", "theta", "__import__('os')", "1/0", "\"a\"", "null", "true", "{}", "[]",
         "é", "&#10;", "a\nb"]

#: menu entries the monkey leaves alone: they end the session
SPARED = ("quit", "exit", "close")

#: keys a student presses (those of gui/actions/shortcuts.py and the plain actions' ones)
KEYS = [(Qt.Key_Space, Qt.NoModifier), (Qt.Key_R, Qt.ControlModifier), (Qt.Key_Right, Qt.ControlModifier),
        (Qt.Key_Home, Qt.ControlModifier), (Qt.Key_BracketRight, Qt.NoModifier), (Qt.Key_BracketLeft, Qt.NoModifier),
        (Qt.Key_Up, Qt.ControlModifier), (Qt.Key_Down, Qt.ControlModifier), (Qt.Key_M, Qt.ControlModifier),
        (Qt.Key_E, Qt.ControlModifier), (Qt.Key_F11, Qt.NoModifier), (Qt.Key_D, Qt.ControlModifier | Qt.ShiftModifier),
        (Qt.Key_Equal, Qt.ControlModifier), (Qt.Key_Minus, Qt.ControlModifier), (Qt.Key_0, Qt.ControlModifier),
        (Qt.Key_F9, Qt.NoModifier), (Qt.Key_F1, Qt.NoModifier), (Qt.Key_Left, Qt.NoModifier),
        (Qt.Key_Right, Qt.NoModifier), (Qt.Key_Z, Qt.ControlModifier), (Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier),
        (Qt.Key_Delete, Qt.NoModifier), (Qt.Key_Escape, Qt.NoModifier), (Qt.Key_Tab, Qt.NoModifier),
        (Qt.Key_F5, Qt.NoModifier)]

#: kinds and their weights
KINDS = {"menu": 6, "key": 6, "combo": 4, "type": 10, "param": 5, "slider": 4, "timeline": 3, "drag2d": 5,
         "drag3d": 2, "tree": 6, "delete": 2, "undo": 4, "compare": 2, "presentation": 1, "record": 2, "run": 4,
         "wait": 4}


def random_action(rng: random.Random) -> list:
    kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
    return [kind, rng.random(), rng.random(), rng.random(), rng.choice(TYPED)]


def _pick(items, fraction: float):
    return items[int(fraction * len(items)) % len(items)] if items else None


def _visible(widgets):
    return [w for w in widgets if w.isVisible() and w.isEnabled()]


def menu_actions(window) -> list[QAction]:
    """Every enabled entry of the menus and the toolbars, submenus opened, in a stable order."""
    found, seen = [], set()

    def walk(actions):
        for action in actions:
            if action.isSeparator() or id(action) in seen or not action.isEnabled():
                continue
            seen.add(id(action))
            if action.menu() is not None:
                menu = action.menu()
                menu.aboutToShow.emit()  # menus filled on opening (recent files, presets)
                walk(menu.actions())
            elif action.text() and not any(word in action.text().lower() for word in SPARED):
                found.append(action)

    walk(window.menuBar().actions())
    for bar in window.findChildren(QToolBar):
        walk(bar.actions())
    return found


class Actions:
    """Runs actions on `window`; `workdir` takes recordings."""

    def __init__(self, window, workdir: str):
        self.window = window
        self.workdir = workdir

    def do(self, action: list) -> str:
        """Do one action; returns what it did, in words (for the report)."""
        kind, a, b, c, text = action
        return getattr(self, f"_{kind}")(a, b, c, text)

    # --- menus, keys, combo boxes -------------------------------------------------------------

    def _menu(self, a, b, c, text):
        action = _pick(menu_actions(self.window), a)
        if action is None:
            return "menu: nothing"
        if action.isCheckable() and b < 0.3:
            action.toggle()
        else:
            action.trigger()
        return f"menu {action.text()!r}"

    def _key(self, a, b, c, text):
        key, modifiers = _pick(KEYS, a)
        target = QApplication.focusWidget() if b < 0.5 else None
        target = target if target is not None and target.isVisible() else self.window
        QTest.keyClick(target, key, modifiers)
        return f"key {int(key)}+{int(modifiers.value if hasattr(modifiers, 'value') else modifiers)} on " \
               f"{type(target).__name__}"

    def _combo(self, a, b, c, text):
        boxes = _visible(self.window.findChildren(QComboBox))
        box = _pick(boxes, a)
        if box is None or box.count() == 0:
            return "combo: none"
        if box.isEditable() and c < 0.4:
            self._type_into(box.lineEdit(), text, 0.0)
            return f"combo {box.toolTip()[:30]!r} typed {text!r}"
        i = int(b * box.count())
        box.setCurrentIndex(i)
        box.activated.emit(i)
        return f"combo {box.toolTip()[:30]!r} -> {box.itemText(i)!r}"

    # --- typing into fields -------------------------------------------------------------------

    def _type_into(self, editor: QLineEdit, text: str, how: float) -> None:
        editor.setFocus()
        editor.selectAll()
        if how < 0.7 and text.isascii() and text.isprintable():  # QTest aborts on keys it cannot map ("\n")
            QTest.keyClicks(editor, text)
            QTest.keyClick(editor, Qt.Key_Return)
        else:
            editor.setText(text)
            editor.editingFinished.emit()

    def _type(self, a, b, c, text):
        inspector = self.window.inspector
        editors = [(path, e) for path, e in inspector.editors.items() if isinstance(e, (QLineEdit, QComboBox))]
        if not editors:
            return "type: no field"
        path, editor = _pick(editors, a)
        if isinstance(editor, QComboBox):
            i = int(b * max(editor.count(), 1))
            editor.setCurrentIndex(i)
            editor.activated.emit(i)
            return f"inspector {path} -> item {i}"
        self._type_into(editor, text, c)
        return f"inspector {path} <- {text!r}"

    def _param(self, a, b, c, text):
        rows = list(self.window.parameter_panel.rows.values())
        if not rows:
            return "param: none"
        p, slider, field = _pick(rows, a)
        if b < 0.5:
            self._type_into(field, text, c)
            return f"parameter {p.path} <- {text!r}"
        slider.setSliderDown(True)
        for k in range(1, 4):
            slider.setValue(int(slider.minimum() + (slider.maximum() - slider.minimum()) * min(1.0, c * k / 3)))
            QTest.qWait(10)
        slider.setSliderDown(False)
        return f"parameter slider {p.path} -> {c:.2f}"

    def _slider(self, a, b, c, text):
        slider = _pick(_visible(self.window.findChildren(QSlider)), a)
        if slider is None:
            return "slider: none"
        slider.setValue(int(slider.minimum() + (slider.maximum() - slider.minimum()) * b))
        return f"slider {slider.objectName() or slider.toolTip()[:30]!r} -> {b:.2f}"

    def _timeline(self, a, b, c, text):
        sliders = self.window.timeline.findChildren(QSlider)
        if not sliders:
            return "timeline: none"
        slider = sliders[0]
        span = slider.maximum() - slider.minimum()
        slider.setSliderDown(True)
        for k in range(4):
            slider.setValue(int(slider.minimum() + span * (a + (b - a) * k / 3)))
            QTest.qWait(15)
        slider.setSliderDown(False)
        return f"timeline {a:.2f} -> {b:.2f}"

    # --- the views ----------------------------------------------------------------------------

    def _drag_on(self, widget, a, b, c, steps=5) -> str:
        w, h = max(widget.width(), 2), max(widget.height(), 2)
        start = QPoint(int(a * w), int(b * h))
        end = QPoint(int(c * w), int(((a + c) % 1.0) * h))
        button = Qt.LeftButton if c < 0.8 else Qt.RightButton
        QTest.mousePress(widget, button, Qt.NoModifier, start)
        for k in range(1, steps + 1):
            QTest.mouseMove(widget, start + (end - start) * (k / steps))
            QTest.qWait(10)
        QTest.mouseRelease(widget, button, Qt.NoModifier, end)
        return f"({start.x()}, {start.y()}) -> ({end.x()}, {end.y()})"

    def _drag2d(self, a, b, c, text):
        scene = self.window.scene2d
        if not scene.isVisible():
            return "drag2d: not shown"
        target = scene.viewport()
        if text and len(text) % 2 and self.window.drags:  # start on a mass centre now and then
            frame = getattr(scene, "frame", None)
            centres = getattr(frame, "mass_centres", None)
            if centres is not None and len(centres):
                pixel = self.window.drags[0].view.pixel(centres[int(a * len(centres)) % len(centres)])[0]
                a, b = pixel[0] / max(target.width(), 1), pixel[1] / max(target.height(), 1)
        return "drag2d " + self._drag_on(target, min(max(a, 0), 0.999), min(max(b, 0), 0.999), c)

    def _drag3d(self, a, b, c, text):
        scene = self.window.scene3d
        if scene is None or not scene.isVisible():
            return "drag3d: not shown"
        return "drag3d " + self._drag_on(scene, a, b, c)

    # --- the model tree and editing ------------------------------------------------------------

    def _tree(self, a, b, c, text):
        keys = sorted(self.window.tree.items, key=repr)
        key = _pick(keys, a)
        if key is None:
            return "tree: empty"
        self.window.tree.select(key)
        return f"tree select {key}"

    def _delete(self, a, b, c, text):
        self._tree(a, b, c, text)
        self.window.tree.setFocus()
        QTest.keyClick(self.window.tree, Qt.Key_Delete)
        return "tree Delete"

    def _undo(self, a, b, c, text):
        stack = self.window.document.undo_stack
        n = 1 + int(a * 8)
        for _ in range(n):
            (stack.undo if b < 0.6 else stack.redo)()
            if c < 0.5:
                QApplication.processEvents()
        return f"{'undo' if b < 0.6 else 'redo'} x{n}"

    # --- modes ----------------------------------------------------------------------------------

    def _compare(self, a, b, c, text):
        self.window.set_compare(not self.window.compare)
        return f"compare {'on' if self.window.compare else 'off'}"

    def _presentation(self, a, b, c, text):
        self.window.presentation.toggle()
        return "presentation toggle"

    def _record(self, a, b, c, text):
        recording = self.window.recording
        if recording.recording:
            recording.stop(wait=False)  # as the menu's entry: ffmpeg ends the file while the window goes on
            return "recording stop"
        kind = "gif" if a < 0.5 else "mp4"
        recording.start(kind, os.path.join(self.workdir, f"monkey.{kind}"), duration=0.5 + 2 * b)
        return f"recording {kind} start"

    def _run(self, a, b, c, text):
        choice = int(a * 5)
        [self.window.run, self.window.pause, self.window.reset, self.window.step,
         lambda: self.window.set_speed([0.25, 1.0, 4.0][int(b * 3)])][choice]()
        return ["run", "pause", "reset", "step", "speed"][choice]

    def _wait(self, a, b, c, text):
        QTest.qWait(int(20 + 400 * a))
        return f"wait {int(20 + 400 * a)} ms"

    # --- the monkey's self-tests (never chosen at random: not in KINDS) --------------------------

    def _selftest_raise(self, a, b, c, text):
        from PySide6.QtCore import QTimer

        # an exception inside a Qt slot: a timer's timeout connected to it. Not QTimer.singleShot with
        # a callable: with PySide6 6.11.3 an exception there ends the process with SIGSEGV a moment
        # later (in a window holding a single QPushButton too), and the self-test then failed at random
        timer = QTimer(self.window)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: 1 / 0)
        timer.start(0)
        QTest.qWait(50)
        timer.deleteLater()
        return "selftest: a slot raises"

    def _selftest_bad_undo(self, a, b, c, text):
        from PySide6.QtGui import QUndoCommand

        class Raising(QUndoCommand):
            def undo(self):
                raise KeyError("selftest")

        self.window.document.undo_stack.push(QUndoCommand("selftest: nothing"))  # the raising undo leaves it unclean
        self.window.document.undo_stack.push(Raising("selftest"))
        return "selftest: an edit whose undo raises"

    def _selftest_stall(self, a, b, c, text):
        import time

        from monkey_child import stall_bound

        time.sleep(1.5 * stall_bound())  # the GUI thread holds still: not computing, not answering
        return "selftest: the GUI thread sleeps"

    def _selftest_abort(self, a, b, c, text):
        os.abort()
