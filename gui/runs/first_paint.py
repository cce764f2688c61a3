"""`after_first_paint`: call something once the window has painted for the first time.

The window's first paint is one pass of Qt's repaint manager over every visible widget; a zero-time
timer started from the first paint event a widget receives fires once that pass (and its flush to the
screen) is over. A fallback timer calls it anyway when no paint comes (a window never shown, a native
child such as the 3-D view painting outside Qt's widget paint).
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

from eomlab.gui.single_shot import single_shot


class _FirstPaint(QObject):
    def __init__(self, widget, then: Callable[[], None], at_latest_ms: int):
        super().__init__(widget)
        self.widget, self.then, self.done = widget, then, False
        widget.installEventFilter(self)
        single_shot(at_latest_ms, self, self._call)

    def eventFilter(self, obj, event) -> bool:
        if not self.done and event.type() == QEvent.Paint:
            QTimer.singleShot(0, self, self._call)
        return False

    def _call(self) -> None:
        if self.done:
            return
        self.done = True
        self.widget.removeEventFilter(self)
        self.then()


def after_first_paint(widget, then: Callable[[], None], at_latest_ms: int) -> None:
    """Call `then()` on the GUI thread just after `widget`'s first paint, or `at_latest_ms` after now if
    it has not painted by then; once."""
    _FirstPaint(widget, then, at_latest_ms)
