"""`single_shot`: QTimer.singleShot with a Python callable whose exception cannot reach PySide.

With PySide6 6.11, an exception escaping a callable that `QTimer.singleShot` calls is left pending
when the event loop was turned from Python (`processEvents`, `QTest.qWait`): each Python event
filter Qt calls meanwhile reports it as its own failure ("Error calling Python override of
QObject::eventFilter(): …", once per filter in the chain, the filter's answer lost), and it then
comes out of that call, in whatever code turned the loop (a process ended with exit 1 so). Here
the callable's exception goes straight to `sys.excepthook`, as a slot's does, and the timer's call
returns normally.
"""
from __future__ import annotations

import sys
from typing import Callable

from PySide6.QtCore import QObject, QTimer


def single_shot(msec: int, context: QObject | None, function: Callable[[], object]) -> None:
    """Call `function` once after `msec` ms on the GUI thread; not at all if `context` (a QObject,
    or None for none) is destroyed first. An exception it raises goes to sys.excepthook."""

    def guarded() -> None:
        try:
            function()
        except Exception:  # noqa: BLE001 - reported as a slot's exception is, not raised into Qt
            sys.excepthook(*sys.exc_info())

    if context is None:
        QTimer.singleShot(int(msec), guarded)
    else:
        QTimer.singleShot(int(msec), context, guarded)
