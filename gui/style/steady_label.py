"""A label whose text changes every frame without moving the window's layout.

A QLabel asks its parent layout to re-run whenever its text changes, unless its size is fixed;
a time read-out changing 60 times a second then re-lays the whole main window each frame (seen
as about a tenth of the GUI thread's time while a run goes). This label holds the size of the
widest text it is meant to show, and takes it again when its font or style changes (presentation
mode)."""
from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel


class SteadyLabel(QLabel):
    def __init__(self, text: str, widest: str, parent=None):
        super().__init__(text, parent)
        self.widest = widest
        self._hold_size()

    def _hold_size(self) -> None:
        shown = self.text()
        self.setMinimumSize(0, 0)
        self.setMaximumSize(16777215, 16777215)
        super().setText(self.widest)
        hint = self.sizeHint()
        super().setText(shown)
        self.setFixedSize(hint)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.FontChange, QEvent.StyleChange):
            self._hold_size()
