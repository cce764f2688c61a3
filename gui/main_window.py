"""The main window: model tree (left), inspector (right), the mechanism (centre), plots (bottom),
the run toolbar, and the file and edit menus.

The window owns the open document (`ModelDocument`) and the runs (`RunThread`, one per run, or
one per formulation in compare mode). It only draws: samples arrive in batches through queued
signals, go into ring buffers, and one QTimer redraws the scene and the plots at most 60 times a
second.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

import numpy as np
import shiboken6
from PySide6.QtCore import QSettings, Qt, QTimer, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QComboBox, QDockWidget, QFileDialog, QLabel, QMainWindow, QMessageBox, QSizePolicy,
                               QStackedWidget, QToolBar, QWidget)

from eomlab.engine.methods import BAUMGARTE_DEFAULT, METHODS, REGISTRY
from eomlab.engine.model import COORDINATES, GROUND, INTEGRATORS, STABILIZATIONS, Model, ModelError, is_planar
from eomlab.engine.sample_files import CsvWriter
from eomlab.gui import edits, recovery
from eomlab.gui.dialogs import new_empty_action
from eomlab.gui.document import ModelDocument
from eomlab.gui.inspector import Inspector
from eomlab.gui.model_tree import ModelTree
from eomlab.gui.plots import PALETTE, PLOT_TITLES, PlotPanel, RunSeries, configure_pyqtgraph
from eomlab.gui.ring_buffer import DEFAULT_CAPACITY, RingBuffer
from eomlab.gui.runner import AS_FAST_AS_POSSIBLE, PROCESS_WORKERS, RunThread
from eomlab.gui.scene2d import Scene2D
from eomlab.gui.scene3d import make_scene3d, opengl_available
from eomlab.gui.sweep_panel import open_for as open_sweep_panel

#: the redraw timer's period: 16 ms ≈ 60 Hz
REDRAW_MS = 16
#: while a run goes, this many plots redraw per tick, in turn: a plot costs 2 to 7 ms to paint,
#: all six in one tick would hold up the scene's next frame (six plots → each about 10 Hz)
PLOTS_PER_TICK = 1
#: the compare panel's difference plot and cost table take their turn under this name
COMPARE_PLOT = "compare"
#: seconds (Python's default is 0.005): see MainWindow.__init__
GIL_SWITCH_INTERVAL = 0.0002
RECENT_FILES_KEY = "recent_files"
MAX_RECENT = 8
FILE_FILTER = "eomlab models (*.eom.json);;JSON (*.json);;All files (*)"
SPEEDS = [("0.1×", 0.1), ("0.25×", 0.25), ("0.5×", 0.5), ("1×", 1.0), ("2×", 2.0), ("5×", 5.0), ("10×", 10.0),
          ("as fast as possible", AS_FAST_AS_POSSIBLE)]
TOLERANCES = ["1e-4", "1e-6", "1e-8", "1e-9", "1e-10", "1e-12"]
METHOD_LABELS = {key: entry.label for key, entry in REGISTRY.items()}


@dataclass
class RunHandle:
    """One running (or paused, or ended) simulation and what the plots keep of it."""

    thread: RunThread
    label: str
    color: str
    series: RunSeries | None = None
    style: Qt.PenStyle = Qt.SolidLine
    latest_frame: object = None
    ended: str = ""  # "", "done", "failed", "crashed"
    messages: list = field(default_factory=list)


class MainWindow(QMainWindow):
    def __init__(self, model: Model, path: str | None = None, *, run: bool = True, compare: bool = False,
                 settings: QSettings | None = None, buffer_capacity: int = DEFAULT_CAPACITY):
        super().__init__()
        configure_pyqtgraph()
        # painting makes many short Python↔Qt transitions, and at each one the GUI thread may
        # wait a whole switch interval for the worker to hand the GIL back: keep that short
        sys.setswitchinterval(GIL_SWITCH_INTERVAL)
        self.setObjectName("main_window")
        self.setAcceptDrops(True)
        self.settings_store = settings if settings is not None else QSettings("eomlab", "eomlab")
        self.buffer_capacity = buffer_capacity
        #: runs integrate in forked child processes (gui/runner.py), else on worker threads
        self.worker_processes = PROCESS_WORKERS
        self.document = ModelDocument(model, path, self)
        self.compare = compare
        self.runs: list[RunHandle] = []
        self.retired: list[RunThread] = []  # stopped threads still finishing their last engine call
        self.next_run_id = 1
        self.state = "paused"  # running | paused | ended
        self.last_error = ""
        self.message_boxes: list[QMessageBox] = []
        self.frames_drawn = 0
        self._tick = 0
        self._dirty = False
        self._plot_order = [*PLOT_TITLES, COMPARE_PLOT]
        self._stale_plots: set[str] = set()  # plots whose data changed since they were drawn
        self._next_plot = 0
        self.confirm_discard = self._ask_discard  # tests replace it to answer without a dialog
        self.confirm_restore = lambda path: recovery.ask_restore(self, path)  # likewise; None: never ask

        self._build_scene()
        self._build_docks()
        self._build_actions()
        self._build_toolbar()
        self._build_menus()
        self.state_label = QLabel("paused")
        self.statusBar().addPermanentWidget(self.state_label)
        self.document.changed.connect(self._on_model_changed)
        self.document.path_changed.connect(lambda _p: self._update_title())
        self.document.undo_stack.cleanChanged.connect(lambda _c: self._update_title())

        self.redraw_timer = QTimer(self)
        self.redraw_timer.setInterval(REDRAW_MS)
        self.redraw_timer.timeout.connect(self._redraw)
        self.redraw_timer.start()

        self._build_teaching_tools()
        self.resize(1600, 1000)
        self._show_model(model, None)
        self.start_runs(running=run)
        self.compare_view.set_active(self.compare)
        self.autosave = recovery.Autosave(self.document, recovery.recovery_directory(self.settings_store), self)
        # asked once the event loop turns, so that whoever made the window can answer it
        self._recovery_offer = QTimer(self)
        self._recovery_offer.setSingleShot(True)
        self._recovery_offer.timeout.connect(lambda: recovery.offer_recovery(self))
        self._recovery_offer.start(0)

    # --- layout --------------------------------------------------------------------------------

    def _build_scene(self) -> None:
        self.scene2d = Scene2D()
        self.scene3d = None
        self.scene_stack = QStackedWidget()
        self.scene_stack.addWidget(self.scene2d)
        self.scene = self.scene2d
        self.setCentralWidget(self.scene_stack)

    def _use_scene_for(self, model: Model) -> None:
        planar = is_planar(model)
        if not planar and opengl_available():
            if self.scene3d is None:
                self.scene3d = make_scene3d()
                self.scene_stack.addWidget(self.scene3d)
            self.scene = self.scene3d
        else:
            self.scene = self.scene2d
        self.scene_stack.setCurrentWidget(self.scene)
        self.scene.set_model(model, planar=planar) if self.scene is self.scene2d else self.scene.set_model(model)

    def _build_docks(self) -> None:
        self.tree = ModelTree()
        self.tree.selected.connect(self._on_selected)
        self.tree.reparent_requested.connect(self.reparent_body)
        self.tree.setContextMenuPolicy(Qt.ActionsContextMenu)
        self.inspector = Inspector(self.document)
        self.inspector.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.plots = PlotPanel()
        self.tree_dock = self._dock("Model", self.tree, Qt.LeftDockWidgetArea, 330)
        self.inspector_dock = self._dock("Inspector", self.inspector, Qt.RightDockWidgetArea, 340)
        self.plots_dock = self._dock("Plots", self.plots, Qt.BottomDockWidgetArea, None)
        # the plots span the whole width under the side docks
        self.setCorner(Qt.BottomLeftCorner, Qt.BottomDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.BottomDockWidgetArea)
        self.resizeDocks([self.plots_dock], [430], Qt.Vertical)
        self.resizeDocks([self.tree_dock, self.inspector_dock], [330, 340], Qt.Horizontal)

    def _dock(self, title: str, widget: QWidget, area, width) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower()}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
        a = self._action
        self.act_new_preset = a("New from preset…", self.new_from_preset, QKeySequence.New)
        self.act_new_chain = a("New pendulum chain…", self.new_chain)
        self.act_open = a("Open…", self.open_dialog, QKeySequence.Open)
        self.act_save = a("Save", self.save, QKeySequence.Save)
        self.act_save_as = a("Save As…", self.save_as, QKeySequence.SaveAs)
        self.act_export_csv = a("Export samples as CSV…", self.export_csv_dialog)
        self.act_quit = a("Quit", self.close, QKeySequence.Quit)
        self.act_undo = self.document.undo_stack.createUndoAction(self, "Undo")
        self.act_undo.setShortcut(QKeySequence("Ctrl+Z"))
        self.act_redo = self.document.undo_stack.createRedoAction(self, "Redo")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.act_add_body = a("Add rigid body…", self.add_body_dialog)
        self.act_add_child = a("Add child body", self.add_child_body, "Ctrl+B",
                               "A 1 m rod hanging from the selected body")
        self.act_delete = a("Delete", self.delete_selected, QKeySequence.Delete)
        self.act_add_constraint = a("Add constraint…", lambda: self.add_item_dialog("constraints"))
        self.act_add_force = a("Add force…", lambda: self.add_item_dialog("forces"))
        self.act_run = a("Run", self.run, "F5", "Run (continue) the simulation")
        self.act_pause = a("Pause", self.pause, "F6")
        self.act_step = a("Step", self.step, "F7", "Advance one output step")
        self.act_reset = a("Reset", self.reset, "F8", "Back to t = 0")
        self.act_compare = a("Compare the formulations", lambda: self.set_compare(not self.compare))
        self.act_compare.setCheckable(True)
        self.act_compare.setChecked(self.compare)
        for action in (self.act_add_child, self.act_add_body, self.act_delete, self.act_add_constraint,
                       self.act_add_force):
            self.tree.addAction(action)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Run")
        bar.setObjectName("run_toolbar")
        bar.setMovable(False)
        self.addToolBar(Qt.TopToolBarArea, bar)

        def combo(items, tip, slot, data=None, editable=False) -> QComboBox:
            box = QComboBox()
            box.setToolTip(tip)
            for i, text in enumerate(items):
                box.addItem(text, data[i] if data else text)
            box.setEditable(editable)
            box.setSizeAdjustPolicy(QComboBox.AdjustToContents)
            if editable:
                box.lineEdit().editingFinished.connect(slot)
                box.activated.connect(lambda _i: slot())
            else:
                box.activated.connect(lambda _i: slot())
            return box

        self.method_box = combo([METHOD_LABELS[m] for m in METHODS], "Formulation of the equations of motion",
                                lambda: self.set_setting("method", self.method_box.currentData()), list(METHODS))
        self.coordinates_box = combo(list(COORDINATES), "joint: minimal tree coordinates; absolute: each body's pose",
                                     lambda: self.set_setting("coordinates", self.coordinates_box.currentData()))
        self.integrator_box = combo(list(INTEGRATORS), "Integrator",
                                    lambda: self.set_setting("integrator", self.integrator_box.currentData()))
        self.rtol_box = combo(TOLERANCES, "Relative tolerance", lambda: self._set_tolerance("rtol", self.rtol_box),
                              editable=True)
        self.atol_box = combo(TOLERANCES, "Absolute tolerance", lambda: self._set_tolerance("atol", self.atol_box),
                              editable=True)
        self.stabilization_box = combo(list(STABILIZATIONS), "Constraint stabilization", self._set_stabilization)
        for label, widget in (("Formulation", self.method_box), ("Coordinates", self.coordinates_box),
                              ("Integrator", self.integrator_box), ("rtol", self.rtol_box), ("atol", self.atol_box),
                              ("Stabilization", self.stabilization_box)):
            bar.addWidget(QLabel(f" {label} "))
            bar.addWidget(widget)
        bar.addSeparator()
        for action in (self.act_run, self.act_pause, self.act_step, self.act_reset):
            bar.addAction(action)
        bar.addSeparator()
        bar.addWidget(QLabel(" Speed "))
        self.speed_box = QComboBox()
        for text, value in SPEEDS:
            self.speed_box.addItem(text, value)
        self.speed_box.setCurrentIndex(3)
        self.speed_box.setToolTip("Simulated seconds per wall-clock second")
        self.speed_box.activated.connect(lambda _i: self.set_speed(self.speed_box.currentData()))
        bar.addWidget(self.speed_box)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        bar.addWidget(spacer)
        self.time_label = QLabel("t = 0.000 s")
        self.time_label.setObjectName("time_label")
        self.time_label.setStyleSheet("font-family: monospace; font-size: 11pt; padding: 0 8px;")
        self.time_label.setMinimumWidth(200)
        bar.addWidget(self.time_label)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addAction(new_empty_action(self))  # File ▸ New empty model (gui/dialogs.py)
        for action in (self.act_new_preset, self.act_new_chain, self.act_open):
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu("Open recent")
        self._fill_recent_menu()
        file_menu.addSeparator()
        for action in (self.act_save, self.act_save_as):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.act_export_csv)
        png_menu = file_menu.addMenu("Export plot as PNG")
        svg_menu = file_menu.addMenu("Export plot as SVG")
        for key, title in PLOT_TITLES.items():
            png_menu.addAction(self._action(title, lambda k=key: self.export_plot_dialog(k, "png")))
            svg_menu.addAction(self._action(title, lambda k=key: self.export_plot_dialog(k, "svg")))
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        edit_menu = menu.addMenu("&Edit")
        for action in (self.act_undo, self.act_redo):
            edit_menu.addAction(action)
        edit_menu.addSeparator()
        for action in (self.act_add_child, self.act_add_body, self.act_add_constraint, self.act_add_force,
                       self.act_delete):
            edit_menu.addAction(action)
        run_menu = menu.addMenu("&Run")
        for action in (self.act_run, self.act_pause, self.act_step, self.act_reset):
            run_menu.addAction(action)
        run_menu.addSeparator()
        run_menu.addAction(self.act_compare)
        run_menu.addAction("Sweep…", lambda: open_sweep_panel(self))
        view_menu = menu.addMenu("&View")
        for dock in (self.tree_dock, self.inspector_dock, self.plots_dock):
            view_menu.addAction(dock.toggleViewAction())

    def _build_teaching_tools(self) -> None:
        """Compare mode, the equations panel, presentation mode, recordings and the keyboard
        (each in its own module; they reach the window through its public attributes)."""
        from eomlab.gui import shortcuts
        from eomlab.gui.compare import CompareView
        from eomlab.gui.equations_view import EquationsView
        from eomlab.gui.presentation import Presentation
        from eomlab.gui.recording import Recording

        self.compare_view = CompareView(self)
        self.equations_view = EquationsView(self)
        self.presentation = Presentation(self)
        self.recording = Recording(self)
        self.keyboard = shortcuts.install(self)
        self.recording.add_actions(self.menuBar().actions()[0].menu())  # the File menu

    # --- the model -----------------------------------------------------------------------------

    @property
    def model(self) -> Model:
        return self.document.model

    def _show_model(self, model: Model, select) -> None:
        self.tree.show_model(model, select)
        self._sync_toolbar(model.settings)
        self._use_scene_for(model)
        self._update_title()

    @Slot(object, str, object)
    def _on_model_changed(self, model: Model, description: str, select) -> None:
        was_running = self.state in ("running", "ended")  # a finished run re-runs with the edit
        had_progress = any(h.series is not None and len(h.series.buffer) > 1 for h in self.runs)
        self._show_model(model, select)
        self.start_runs(running=was_running)
        if was_running or had_progress:
            self.statusBar().showMessage(f"{description} — the run starts afresh from t = 0 with the edited model",
                                         10000)
        else:
            self.statusBar().showMessage(description, 8000)

    def _on_selected(self, key) -> None:
        self.inspector.show_node(self.model, key)

    def _sync_toolbar(self, settings) -> None:
        for box, value in ((self.method_box, settings.method), (self.coordinates_box, settings.coordinates),
                           (self.integrator_box, settings.integrator), (self.stabilization_box, settings.stabilization.kind)):
            box.blockSignals(True)
            box.setCurrentIndex(max(0, box.findData(value)))
            box.blockSignals(False)
        for box, value in ((self.rtol_box, settings.rtol), (self.atol_box, settings.atol)):
            box.blockSignals(True)
            box.setEditText(f"{value:g}")
            box.blockSignals(False)

    def _update_title(self) -> None:
        if not shiboken6.isValid(self):
            return
        path = self.document.path
        name = os.path.basename(path) if path else self.model.name
        self.setWindowTitle(f"{name}{' *' if self.document.dirty else ''} — eomlab")

    def edit(self, make, description: str, select=None) -> bool:
        """Apply an edit (a function of the current model returning the new one) as an undoable
        command; a refused edit leaves the model and shows the engine's message."""
        try:
            after = make(self.model)
        except ModelError as error:
            self.show_problem("Edit refused", str(error), modal=False)
            return False
        return self.document.apply(after, description, select)

    def set_setting(self, name: str, value) -> None:
        self.edit(lambda m: edits.set_field(m, ("settings", name), value), f"{name} = {value}")
        self._sync_toolbar(self.model.settings)

    def _set_tolerance(self, name: str, box: QComboBox) -> None:
        text = box.currentText().strip()
        try:
            value = float(text)
        except ValueError:
            value = text  # the engine says what is wrong with it
        if value == getattr(self.model.settings, name):
            return
        self.set_setting(name, value)

    def _set_stabilization(self) -> None:
        kind = self.stabilization_box.currentData()
        current = self.model.settings.stabilization
        value = {"kind": kind}
        if kind == "baumgarte":  # a critically damped default when none is set
            value.update({k: getattr(current, k) or v for k, v in BAUMGARTE_DEFAULT.items()})
        self.edit(lambda m: edits.set_field(m, ("settings", "stabilization"), value), f"stabilization = {kind}")
        self._sync_toolbar(self.model.settings)

    # --- editing commands --------------------------------------------------------------------------

    def selected_body(self) -> str | None:
        key = self.tree.current_key()
        return key[1] if key and key[0] == "body" else None

    def add_child_body(self, parent: str | None = None) -> None:
        parent = parent or self.selected_body() or GROUND
        body = edits.child_body(self.model, parent)
        self.edit(lambda m: edits.add_body(m, body), f"Add body {body['name']} under {parent}",
                  ("body", body["name"]))

    def add_body_dialog(self) -> None:
        from eomlab.gui.dialogs import RigidBodyDialog

        dialog = RigidBodyDialog(self.model, self.selected_body() or GROUND, self)
        if dialog.exec() and dialog.model is not None:
            name = dialog.name.text().strip()
            self.edit(lambda _m: dialog.model, f"Add body {name}", ("body", name))

    def add_item_dialog(self, section: str) -> None:
        from eomlab.gui.dialogs import ItemDialog

        dialog = ItemDialog(self.model, section, self)
        if dialog.exec() and dialog.model is not None:
            kind = "constraint" if section == "constraints" else "force"
            index = len(getattr(dialog.model, section)) - 1
            self.edit(lambda _m: dialog.model, f"Add {kind} {getattr(dialog.model, section)[index].name}",
                      (kind, index))

    def delete_selected(self) -> None:
        key = self.tree.current_key()
        if not key:
            return
        if key[0] == "body":
            try:
                after, removed = edits.delete_body(self.model, key[1])
            except ModelError as error:
                self.show_problem("Delete refused", str(error), modal=False)
                return
            self.document.apply(after, f"Delete {', '.join(removed)}", ("bodies",))
        elif key[0] in ("constraint", "force"):
            section = key[0] + "s"
            name = getattr(self.model, section)[key[1]].name
            self.edit(lambda m: edits.delete_item(m, section, key[1]), f"Delete {name}", (section,))

    @Slot(str, str)
    def reparent_body(self, body: str, new_parent: str) -> None:
        if self.model.body(body).parent == new_parent:
            return
        self.edit(lambda m: edits.reparent_body(m, body, new_parent), f"Hang {body} from {new_parent}",
                  ("body", body))

    def new_from_preset(self) -> None:
        from eomlab.gui.dialogs import PresetGallery, make_preset

        if not self.confirm_discard():
            return
        gallery = PresetGallery(self)
        if gallery.exec() and gallery.chosen():
            self.load_model(make_preset(gallery.chosen()), None, f"New model from preset {gallery.chosen()}")

    def new_chain(self) -> None:
        from eomlab.gui.dialogs import ChainDialog

        if not self.confirm_discard():
            return
        dialog = ChainDialog(self)
        if dialog.exec() and dialog.model is not None:
            self.load_model(dialog.model, None, f"New chain of {dialog.links.value()} links")

    def load_model(self, model: Model, path: str | None, description: str) -> None:
        """Replace the document (no undo across documents) and start running it."""
        self.state = "running"
        self.document.load(model, path, description)

    # --- files ---------------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open model", self._last_dir(), FILE_FILTER)
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> bool:
        """Open a model file; a broken file leaves the current model and shows why."""
        from eomlab.engine.modelfile import load_model

        try:
            model = load_model(path)
        except ModelError as error:
            self.show_problem("Could not open the model", str(error if error.source else error.with_source(path)))
            return False
        except OSError as error:
            self.show_problem("Could not open the model", f"{path}: {error.strerror or error}")
            return False
        if not self.confirm_discard():
            return False
        self.load_model(model, path, f"Opened {path}")
        self._remember(path)
        return True

    def save(self) -> bool:
        if not self.document.path:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self, path: str | None = None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save model", self._last_dir(), FILE_FILTER)
            if not path:
                return False
            if not path.endswith(".json"):
                path += ".eom.json"
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        from eomlab.engine.modelfile import save_model

        try:
            save_model(self.model, path)
        except (OSError, ModelError) as error:
            self.show_problem("Could not save", f"{path}: {error}")
            return False
        self.document.saved_as(path)
        self.autosave.discard()
        self._remember(path)
        self.statusBar().showMessage(f"Saved {path}", 8000)
        return True

    def _ask_discard(self) -> bool:
        if not self.document.dirty:
            return True
        answer = QMessageBox.question(self, "Unsaved changes", "The model has unsaved changes. Save them first?",
                                      QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

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
        self.recent_menu.clear()
        for path in self.recent_files():
            self.recent_menu.addAction(self._action(path, lambda p=path: self.open_file(p)))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def _last_dir(self) -> str:
        recent = self.recent_files()
        return os.path.dirname(recent[0]) if recent else os.getcwd()

    def dragEnterEvent(self, event) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_file(url.toLocalFile())
                event.acceptProposedAction()
                return

    # --- export ----------------------------------------------------------------------------------------

    def samples(self) -> tuple[list[str], np.ndarray]:
        """The main run's kept samples (columns, rows)."""
        if not self.runs or self.runs[0].series is None:
            return [], np.zeros((0, 0))
        series = self.runs[0].series
        return list(series.info.columns), series.buffer.view().copy()

    def export_csv(self, path: str) -> int:
        columns, rows = self.samples()
        with CsvWriter(path, columns) as out:
            out.write(rows)
        return len(rows)

    def export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export samples", self._last_dir(), "CSV (*.csv)")
        if path:
            try:
                n = self.export_csv(path)
            except OSError as error:
                self.show_problem("Could not export", f"{path}: {error}")
                return
            self.statusBar().showMessage(f"Wrote {n} samples (at most the {self.buffer_capacity} kept) to {path}", 8000)

    def export_plot(self, key: str, path: str) -> None:
        if path.lower().endswith(".svg"):
            self.plots.export_svg(key, path)
        else:
            self.plots.export_png(key, path)

    def export_plot_dialog(self, key: str, kind: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Export {PLOT_TITLES[key]}", self._last_dir(),
                                              "PNG (*.png)" if kind == "png" else "SVG (*.svg)")
        if path:
            if not path.lower().endswith("." + kind):
                path += "." + kind
            try:
                self.export_plot(key, path)
            except Exception as error:
                self.show_problem("Could not export", f"{path}: {error}")
                return
            self.statusBar().showMessage(f"Wrote {path}", 8000)

    # --- messages ----------------------------------------------------------------------------------------

    def show_problem(self, title: str, message: str, modal: bool = False) -> None:
        """Status bar plus a non-modal message box: the window stays usable (and testable)."""
        self.last_error = message
        self.statusBar().showMessage(message)
        if not modal:
            box = QMessageBox(QMessageBox.Warning, title, message, QMessageBox.Ok, self)
            box.setModal(False)
            box.setWindowModality(Qt.NonModal)
            box.finished.connect(lambda _r, b=box: self.message_boxes.remove(b) if b in self.message_boxes else None)
            self.message_boxes.append(box)
            box.show()

    # --- runs ------------------------------------------------------------------------------------------------

    def start_runs(self, running: bool) -> None:
        """Throw away the current runs and start fresh ones from t = 0 (paused or running)."""
        self.stop_runs()
        from eomlab.gui.compare import method_style

        model = self.model
        run_models = self.compare_view.run_models(model) if self.compare else [model]
        for i, run_model in enumerate(run_models):
            method = run_model.settings.method
            thread = self.compare_view.make_thread(run_model, self.next_run_id, running=running,
                                                   speed=self.speed_box.currentData(), label=METHOD_LABELS[method],
                                                   process=self.worker_processes)
            self.next_run_id += 1
            thread.ready.connect(self._on_ready)
            thread.batch.connect(self._on_batch)
            thread.failed.connect(self._on_failed)
            thread.crashed.connect(self._on_crashed)
            thread.done.connect(self._on_done)
            color, style = method_style(method) if self.compare else (PALETTE[i % len(PALETTE)], Qt.SolidLine)
            self.runs.append(RunHandle(thread, METHOD_LABELS[method], color, style=style))
        self.plots.set_series([], self.model)
        self.scene.clear_trail()
        self.compare_view.runs_started()
        self._set_state("running" if running else "paused")
        for handle in self.runs:
            handle.thread.start()

    def stop_runs(self) -> float:
        """Stop and join every worker; returns the seconds it took."""
        import time

        start = time.perf_counter()
        for handle in self.runs:
            handle.thread.request_stop()
        for handle in self.runs:
            handle.thread.stop_and_join(1000)
            for signal in (handle.thread.ready, handle.thread.batch, handle.thread.failed, handle.thread.crashed,
                           handle.thread.done):
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError):
                    pass
            handle.thread.deleteLater()
        self.runs = []
        return time.perf_counter() - start

    def _handle(self, run_id: int) -> RunHandle | None:
        for handle in self.runs:
            if handle.thread.run_id == run_id:
                return handle
        return None  # a late signal of a run already thrown away

    @Slot(int, object, object)
    def _on_ready(self, run_id: int, info, frame) -> None:
        handle = self._handle(run_id)
        if handle is None:
            return
        handle.series = RunSeries(handle.label, info, RingBuffer(len(info.columns), self.buffer_capacity),
                                  handle.color, handle.style)
        handle.latest_frame = frame
        self.plots.set_series([h.series for h in self.runs if h.series is not None], self.model)
        if handle is self.runs[0]:
            self.scene.show_frame(frame)
            if info.notes:
                self.statusBar().showMessage("; ".join(info.notes), 10000)
        self._dirty = True

    @Slot(int, object, object)
    def _on_batch(self, run_id: int, rows, frame) -> None:
        handle = self._handle(run_id)
        if handle is None or handle.series is None:
            return
        handle.series.buffer.append(rows)
        handle.latest_frame = frame
        self._dirty = True

    @Slot(int, str)
    def _on_failed(self, run_id: int, message: str) -> None:
        handle = self._handle(run_id)
        if handle is None:
            return
        handle.ended = "failed"
        handle.messages.append(message)
        prefix = f"{handle.label}: " if self.compare else ""
        self._pause_all()
        self.show_problem("The run stopped", f"{prefix}{message} (the samples so far are kept)")
        self._set_state("paused")

    @Slot(int, str)
    def _on_crashed(self, run_id: int, message: str) -> None:
        handle = self._handle(run_id)
        if handle is None:
            return
        handle.ended = "crashed"
        handle.messages.append(message)
        self._pause_all()
        self.show_problem("The engine raised an error", message)
        self._set_state("paused")

    @Slot(int)
    def _on_done(self, run_id: int) -> None:
        handle = self._handle(run_id)
        if handle is None:
            return
        handle.ended = "done"
        if all(h.ended for h in self.runs):
            self._set_state("ended")
            self.statusBar().showMessage(f"Reached t_end = {self.model.settings.t_end:g} s", 8000)

    def _pause_all(self) -> None:
        for handle in self.runs:
            handle.thread.set_running(False)

    def _set_state(self, state: str) -> None:
        self.state = state
        self.state_label.setText({"running": "running", "paused": "paused", "ended": "finished"}[state])
        self.act_run.setEnabled(state != "running")
        self.act_pause.setEnabled(state == "running")
        self.act_step.setEnabled(state != "ended")

    def run(self) -> None:
        if not self.runs or all(h.ended for h in self.runs):
            self.start_runs(running=True)
            return
        for handle in self.runs:
            handle.thread.set_running(True)
        self._set_state("running")

    def pause(self) -> None:
        self._pause_all()
        self._set_state("paused")

    def step(self) -> None:
        if self.state == "running":
            self.pause()
        for handle in self.runs:
            handle.thread.step(1)

    def reset(self) -> None:
        self.start_runs(running=False)
        self.statusBar().showMessage("Reset to t = 0", 5000)

    def set_speed(self, speed: float) -> None:
        index = self.speed_box.findData(speed)
        if index >= 0:
            self.speed_box.setCurrentIndex(index)
        for handle in self.runs:
            handle.thread.set_speed(speed)

    def set_compare(self, on: bool) -> None:
        self.compare = bool(on)
        self.act_compare.setChecked(self.compare)
        self.start_runs(running=self.state == "running")
        self.compare_view.set_active(self.compare)

    # --- drawing -------------------------------------------------------------------------------------------------

    def _redraw(self) -> None:
        """One tick of the redraw timer: the scene (and compare ghosts) when new samples came,
        the plots in turn while running (`PLOTS_PER_TICK` of them, so no tick repaints them
        all), every stale plot at once otherwise."""
        self._tick += 1
        main = self.runs[0] if self.runs else None
        if main is not None and main.latest_frame is not None:
            t = main.latest_frame.t
            t_end = self.model.settings.t_end
            self.time_label.setText(f"t = {t:8.3f} s / {t_end:g} s")
        if self._dirty:
            self._dirty = False
            if main is not None and main.latest_frame is not None:
                self.scene.show_frame(main.latest_frame)
                self.frames_drawn += 1
            self._stale_plots.update(self._plot_order)
            self.compare_view.redraw(plots=False)
        if not self._stale_plots:
            return
        if self.state == "running":
            due = []
            for _ in range(len(self._plot_order)):
                key = self._plot_order[self._next_plot % len(self._plot_order)]
                self._next_plot += 1
                if key in self._stale_plots and self._plot_shown(key):
                    due.append(key)
                    if len(due) == PLOTS_PER_TICK:
                        break
        else:
            due = [key for key in self._plot_order if key in self._stale_plots]
        self._stale_plots.difference_update(due)
        keys = [key for key in due if key != COMPARE_PLOT]
        if keys:
            self.plots.refresh(keys)
        if COMPARE_PLOT in due:
            self.compare_view.redraw(plots=True)

    def _plot_shown(self, key: str) -> bool:
        """Whether a plot can be seen now (a closed dock's plots wait until it is shown)."""
        if key == COMPARE_PLOT:
            return self.compare and self.compare_view.dock.isVisible()
        return self.plots.plots[key].isVisible()

    def closeEvent(self, event) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        self.autosave.stop()
        self.autosave.discard()  # a normal close: the edits were saved or knowingly dropped
        self.redraw_timer.stop()
        self.stop_runs()
        for box in list(self.message_boxes):
            box.close()
        event.accept()
