"""Unsaved edits survive a crash: an autosave to a recovery file, and the offer to restore it.

The recovery file of a model lives in a folder beside the settings file (``recovery/`` under the
user's config folder for the real settings; beside a test's own settings file in the tests), one
file per model path (``untitled`` for a model never saved). It is written atomically (through
`engine.modelfile.save_model`) a moment after each edit (debounced) and every 30 s while the model
has unsaved edits, and removed when the model is saved, when the window closes normally and when
the user declines to restore it. A recovery file newer than its model file at start means the
last session ended without saving: the window offers to restore it.
"""
from __future__ import annotations

import hashlib
import os

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from eomlab.engine.model import ModelError

#: the periodic autosave, milliseconds
AUTOSAVE_INTERVAL_MS = 30_000
#: quiet time after an edit before it is written, milliseconds (a burst of edits writes once)
EDIT_DEBOUNCE_MS = 1_500


def recovery_directory(settings) -> str:
    """The recovery folder beside the QSettings file `settings`."""
    return os.path.join(os.path.dirname(os.path.abspath(settings.fileName())), "recovery")


def recovery_path(directory: str, model_path: str | None) -> str:
    """The recovery file of the model at `model_path` (None: a model never saved)."""
    if not model_path:
        return os.path.join(directory, "untitled.eom.json")
    absolute = os.path.abspath(model_path)
    stem = os.path.basename(absolute).removesuffix(".json").removesuffix(".eom")
    digest = hashlib.sha1(absolute.encode("utf-8")).hexdigest()[:10]  # two files of one name stay apart
    return os.path.join(directory, f"{stem}-{digest}.eom.json")


def pending_recovery(directory: str, model_path: str | None) -> str | None:
    """The recovery file to offer: one that exists and is newer than the model file."""
    candidate = recovery_path(directory, model_path)
    if not os.path.isfile(candidate):
        return None
    if model_path and os.path.exists(model_path) and os.path.getmtime(candidate) <= os.path.getmtime(model_path):
        return None  # the model was saved after it: nothing was lost
    return candidate


class Autosave(QObject):
    """Writes the document's unsaved edits to its recovery file; see the module docstring."""

    def __init__(self, document, directory: str, parent=None):
        super().__init__(parent)
        self.document = document
        self.directory = directory
        self.written_path: str | None = None  # the recovery file this session wrote last
        self._written_model = None
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(EDIT_DEBOUNCE_MS)
        self.debounce.timeout.connect(self.write_now)
        self.periodic = QTimer(self)
        self.periodic.setInterval(AUTOSAVE_INTERVAL_MS)
        self.periodic.timeout.connect(self.write_now)
        self.periodic.start()
        document.changed.connect(lambda *_: self.debounce.start())

    @property
    def path(self) -> str:
        return recovery_path(self.directory, self.document.path)

    def write_now(self) -> bool:
        """Write the model if it has unsaved edits not written yet; True if it wrote."""
        from eomlab.engine.modelfile import save_model

        if not self.document.dirty:
            return False
        model, target = self.document.model, self.path
        if model is self._written_model and target == self.written_path:
            return False
        try:
            os.makedirs(self.directory, exist_ok=True)
            save_model(model, target)
        except (OSError, ModelError):
            return False  # the edits are still in the window; the next edit or tick tries again
        if self.written_path and self.written_path != target:
            _remove(self.written_path)  # the model was saved under a new name since
        self.written_path, self._written_model = target, model
        return True

    def discard(self) -> None:
        """Remove what this session wrote (after a save, or a normal close)."""
        self.debounce.stop()
        if self.written_path:
            _remove(self.written_path)
        self.written_path = self._written_model = None

    def stop(self) -> None:
        self.debounce.stop()
        self.periodic.stop()


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        pass  # a recovery file that cannot be removed is stale once the model is saved


def ask_restore(parent, path: str) -> bool:
    answer = QMessageBox.question(
        parent, "Restore unsaved edits?",
        f"eomlab did not close normally last time; unsaved edits of this model were kept in\n{path}\n\n"
        "Restore them?", QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
    return answer == QMessageBox.Yes


def offer_recovery(window) -> bool:
    """At start: if the last session left unsaved edits of this model, ask and restore them as
    one undoable edit (the model file itself is not touched until the user saves)."""
    from eomlab.engine.modelfile import load_model

    ask = getattr(window, "confirm_restore", None)
    if ask is None:  # scripted runs neither ask nor touch the recovery file
        return False
    candidate = pending_recovery(window.autosave.directory, window.document.path)
    if candidate is None:
        return False
    try:
        model = load_model(candidate)
    except ModelError:
        _remove(candidate)  # unreadable (cut short by the crash): nothing to offer
        return False
    if not ask(candidate):
        _remove(candidate)
        return False
    window.document.apply(model, "Restore unsaved edits")
    window.statusBar().showMessage(f"Restored unsaved edits from {candidate}", 10000)
    return True
