"""`after_first_paint`: call something once the window has painted for the first time.

The window's first paint is one pass of Qt's repaint manager over every visible widget; a zero-time
timer started from the first paint event one of the watched widgets receives fires once that pass (and
its flush to the screen) is over. Qt sends no paint event to a widget its opaque children cover (the
scene's stack under the 2-D view), so the caller names widgets that do paint (the 2-D view, the status
bar). A fallback timer, counting from the widgets' show (or from now for a window never shown), calls it
anyway when no paint comes.
"""
from __future__ import annotations

import sys
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer


class _FirstPaint(QObject):
    def __init__(self, widgets, then: Callable[[], None], at_latest_ms: int):
        super().__init__(widgets[0])
        self.widgets, self.then, self.done = list(widgets), then, False
        self.fallback = QTimer(self)
        self.fallback.setSingleShot(True)
        self.fallback.setInterval(int(at_latest_ms))
        self.fallback.timeout.connect(self._call)
        self.fallback.start()
        for widget in self.widgets:
            widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if not self.done:
            if event.type() == QEvent.Paint:
                QTimer.singleShot(0, self, self._call)
            elif event.type() == QEvent.Show:
                self.fallback.start()  # counts from the show: building a window under load can take seconds
        return False

    def _call(self) -> None:
        if self.done:
            return
        self.done = True
        self.fallback.stop()
        for widget in self.widgets:
            widget.removeEventFilter(self)
        try:
            self.then()
        except Exception:  # noqa: BLE001 - reported as a slot's exception is (gui/single_shot.py)
            sys.excepthook(*sys.exc_info())


def after_first_paint(widgets, then: Callable[[], None], at_latest_ms: int) -> None:
    """Call `then()` on the GUI thread just after the first paint of any of `widgets` (a sequence; the
    first one owns the watch), or `at_latest_ms` after their show (after now if never shown) if none has
    painted by then; once."""
    _FirstPaint(widgets, then, at_latest_ms)
