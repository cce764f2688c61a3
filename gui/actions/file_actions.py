"""Files from the window: a new empty model, open (dialog, recent files, dropped files), import (URDF,
MJCF: gui/actions/robot_import.py), save, and the exports of samples (CSV) and plots (PNG, SVG)."""
from __future__ import annotations

import os

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from eomlab.engine.model import Model, ModelError
from eomlab.gui.plots.plot_panel import PLOT_TITLES

RECENT_FILES_KEY = "recent_files"
MAX_RECENT = 8
FILE_FILTER = "eomlab models (*.eom.json);;JSON (*.json);;All files (*)"


class FileActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.document = window.document
        self.settings_store = window.settings_store
        self.confirm_discard = self._ask_discard  # tests replace it to answer without a dialog
        a = window.action
        self.act_open = a("Open…", self.open_dialog, QKeySequence.Open)
        self.act_import = a("Import URDF or MJCF…", self.import_dialog)
        self.act_save = a("Save", self.save, QKeySequence.Save)
        self.act_save_as = a("Save As…", self.save_as, QKeySequence.SaveAs)
        self.act_export_csv = a("Export samples as CSV…", self.export_csv_dialog)
        self.act_quit = a("Quit", window.close, QKeySequence.Quit)
        self.recent_menu = None

    def fill_menu(self, menu) -> None:
        edits = self.window.edits
        menu.addAction(new_empty_action(self.window))  # File ▸ New empty model
        for action in (edits.act_new_preset, edits.act_new_chain, self.act_open, self.act_import):
            menu.addAction(action)
        self.recent_menu = menu.addMenu("Open recent")
        self._fill_recent_menu()
        menu.addSeparator()
        for action in (self.act_save, self.act_save_as):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.act_export_csv)
        png_menu = menu.addMenu("Export plot as PNG")
        svg_menu = menu.addMenu("Export plot as SVG")
        for key, title in PLOT_TITLES.items():
            png_menu.addAction(self.window.action(title, lambda k=key: self.export_plot_dialog(k, "png")))
            svg_menu.addAction(self.window.action(title, lambda k=key: self.export_plot_dialog(k, "svg")))
        menu.addSeparator()
        menu.addAction(self.act_quit)

    def _status(self, text: str, ms: int = 8000) -> None:
        self.window.statusBar().showMessage(text, ms)

    # --- models ------------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open model", self._last_dir(), FILE_FILTER)
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> bool:
        """Open a model file; a broken file leaves the current model and shows why."""
        from eomlab.engine.modelfile import load_model

        try:
            model = load_model(path)
        except ModelError as error:
            self.window.show_problem("Could not open the model",
                                     str(error if error.source else error.with_source(path)))
            return False
        except OSError as error:
            self.window.show_problem("Could not open the model", f"{path}: {error.strerror or error}")
            return False
        if not self.confirm_discard():
            return False
        self.window.edits.load_model(model, path, f"Opened {path}")
        self._remember(path)
        return True

    def import_dialog(self) -> None:
        from eomlab.gui.actions.robot_import import import_dialog

        import_dialog(self.window, self._last_dir())

    def save(self) -> bool:
        if not self.document.path:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self, path: str | None = None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self.window, "Save model", self._last_dir(), FILE_FILTER)
            if not path:
                return False
            if not path.endswith(".json"):
                path += ".eom.json"
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        from eomlab.engine.modelfile import save_model

        try:
            save_model(self.document.model, path)
        except (OSError, ModelError) as error:
            self.window.show_problem("Could not save", f"{path}: {error}")
            return False
        self.document.saved_as(path)
        self.window.autosave.discard()
        self._remember(path)
        self._status(f"Saved {path}")
        return True

    def _ask_discard(self) -> bool:
        if not self.document.dirty:
            return True
        answer = QMessageBox.question(self.window, "Unsaved changes", "The model has unsaved changes. Save them first?",
                                      QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

    # --- recent files ------------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.settings_store.value(RECENT_FILES_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember(self, path: str) -> None:
        path = os.path.abspath(path)
        recent = [p for p in self.recent_files() if p != path]
        self.settings_store.setValue(RECENT_FILES_KEY, [path] + recent[:MAX_RECENT - 1])
        self.settings_store.sync()
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        if self.recent_menu is None:
            return
        self.recent_menu.clear()
        for path in self.recent_files():
            self.recent_menu.addAction(self.window.action(path, lambda p=path: self.open_file(p)))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def _last_dir(self) -> str:
        recent = self.recent_files()
        return os.path.dirname(recent[0]) if recent else os.getcwd()

    # --- exports -----------------------------------------------------------------------------------

    def export_csv(self, path: str) -> int:
        from eomlab.engine.sample_files import CsvWriter  # the one CSV writer (shortest round-trip numbers)

        columns, rows = self.window.session.samples()
        with CsvWriter(path, columns) as out:
            out.write(rows)
        return len(rows)

    def export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export samples", self._last_dir(), "CSV (*.csv)")
        if path:
            try:
                n = self.export_csv(path)
            except OSError as error:
                self.window.show_problem("Could not export", f"{path}: {error}")
                return
            self._status(f"Wrote {n} samples (at most the {self.window.buffer_capacity} kept) to {path}")

    def export_plot(self, key: str, path: str) -> None:
        plots = self.window.plots
        plots.export_svg(key, path) if path.lower().endswith(".svg") else plots.export_png(key, path)

    def export_plot_dialog(self, key: str, kind: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, f"Export {PLOT_TITLES[key]}", self._last_dir(),
                                              "PNG (*.png)" if kind == "png" else "SVG (*.svg)")
        if path:
            if not path.lower().endswith("." + kind):
                path += "." + kind
            try:
                self.export_plot(key, path)
            except Exception as error:  # noqa: BLE001 - shown, not raised
                self.window.show_problem("Could not export", f"{path}: {error}")
                return
            self._status(f"Wrote {path}")


def new_empty_action(window) -> QAction:
    """File ▸ New empty model: no bodies, default settings; Edit ▸ Add child body starts it."""
    action = QAction("New empty model", window)
    action.setObjectName("action_new_empty")
    action.setShortcut(QKeySequence("Ctrl+Shift+N"))
    action.setStatusTip("A model with no bodies: add them with Edit ▸ Add child body (Ctrl+B) or Add rigid body…")
    action.triggered.connect(lambda _checked=False: new_empty_model(window))
    return action


def new_empty_model(window) -> None:
    if window.confirm_discard():
        window.edits.load_model(Model(name="untitled"), None,
                                "New empty model: add a body with Edit ▸ Add child body (Ctrl+B) or Add rigid body…")
