"""File ▸ Import: a URDF or MJCF robot model into the window, through the same reader as
`eomlab import` (engine.robot_formats). What the file holds but eomlab cannot model is shown, one
warning per kind; a file that cannot be read leaves the current model and says why in one line."""
from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from eomlab.engine.model import ModelError

IMPORT_FILTER = "Robot models (*.urdf *.xml);;URDF (*.urdf);;MJCF (*.xml);;All files (*)"


def import_dialog(window, start_dir: str) -> None:
    path, _ = QFileDialog.getOpenFileName(window, "Import a URDF or MJCF model", start_dir, IMPORT_FILTER)
    if path:
        import_robot(window, path)


def import_robot(window, path: str) -> list[str] | None:
    """Load the robot in `path` as the window's model (as File ▸ Open does); its warnings, or
    None when the file was refused (the current model stays)."""
    from eomlab.engine.robot_formats import import_model

    try:
        model, warnings = import_model(path)  # checked as a model file is
    except ModelError as error:
        window.show_problem("Could not import the model", str(error if error.source else error.with_source(path)))
        return None
    except OSError as error:
        window.show_problem("Could not import the model", f"{path}: {error.strerror or error}")
        return None
    if not window.files.confirm_discard():
        return None
    name = os.path.basename(path)
    window.edits.load_model(model, None, f"Imported {name}")
    if warnings:
        _show_warnings(window, f"Imported {name}: {len(warnings)} note(s) on what changed or was left out", warnings)
    window.statusBar().showMessage(f"Imported {path} ({len(model.bodies)} bodies"
                                   f"{f', {len(warnings)} warnings' if warnings else ''})", 10000)
    return warnings


def _show_warnings(window, title: str, warnings: list[str]) -> None:
    """A non-modal box listing the warnings (the window stays usable while it is open)."""
    box = QMessageBox(QMessageBox.Information, title, "\n".join(f"• {w}" for w in warnings), QMessageBox.Ok, window)
    box.setModal(False)
    box.setWindowModality(Qt.NonModal)
    box.finished.connect(lambda _r, b=box: window.message_boxes.remove(b) if b in window.message_boxes else None)
    window.message_boxes.append(box)
    box.show()
