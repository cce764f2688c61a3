"""The open model: the current `Model`, its file, and the undo stack of edits.

Models are immutable, so an edit is a pair (before, after) of whole models: `ModelEditCommand`
swaps them on redo/undo. Everything that changes the model — inspector, tree, dialogs, toolbar
settings — goes through `ModelDocument.apply`, so every edit is undoable (Ctrl+Z / Ctrl+Shift+Z).
"""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from eomlab.engine.model import Model


class ModelEditCommand(QUndoCommand):
    def __init__(self, document: "ModelDocument", before: Model, after: Model, text: str, select=None):
        super().__init__(text)
        self.document = document
        self.before = before
        self.after = after
        self.select = select  # tree node to select after the edit (e.g. a new body)

    def redo(self) -> None:
        self.document._set(self.after, self.text(), self.select)

    def undo(self) -> None:
        self.document._set(self.before, f"Undo: {self.text()}", None)


class ModelDocument(QObject):
    """Signals: ``changed(model, description, select)`` after every edit, undo, redo or load;
    ``path_changed(path)`` when the file name changes."""

    changed = Signal(object, str, object)
    path_changed = Signal(str)

    def __init__(self, model: Model, path: str | None = None, parent=None):
        super().__init__(parent)
        self.model = model
        self.path = path
        self.undo_stack = QUndoStack(self)

    @property
    def dirty(self) -> bool:
        if not shiboken6.isValid(self.undo_stack):  # asked while the window is being torn down
            return False
        return not self.undo_stack.isClean()

    def apply(self, after: Model, text: str, select=None) -> bool:
        """Make `after` the model as one undoable edit; False (and nothing pushed) if it equals
        the current model."""
        if after == self.model:
            return False
        self.undo_stack.push(ModelEditCommand(self, self.model, after, text, select))
        return True

    def load(self, model: Model, path: str | None, description: str) -> None:
        """A new document: a file opened or a preset chosen. Edits of the old one are forgotten."""
        self.undo_stack.clear()
        self.path = path
        self._set(model, description, None)
        self.undo_stack.setClean()
        self.path_changed.emit(path or "")

    def saved_as(self, path: str) -> None:
        self.path = path
        self.undo_stack.setClean()
        self.path_changed.emit(path)

    def _set(self, model: Model, description: str, select) -> None:
        self.model = model
        self.changed.emit(model, description, select)
