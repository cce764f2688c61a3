"""The main window: model tree (left), inspector (right), the mechanism (centre), plots (bottom),
the toolbar and the menus — the layout, and the parts put together.

Each job has its own module: the runs and the time cursor (gui/runs/session.py), the run commands and
the speed (gui/actions/run_actions.py), the model's settings in the toolbar (gui/editing/settings_bar.py), editing
(gui/editing/edit_actions.py), files (gui/actions/file_actions.py) and drawing (gui/redraw.py: one QTimer draws
the scene and the plots at most 60 times a second from the session's samples).
"""
from __future__ import annotations

import os
import sys

import numpy as np
import shiboken6
from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt, QTimer, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QMessageBox, QSizePolicy, QStackedWidget, QToolBar, QWidget

from eomlab.engine.blas_threads import one_blas_thread_for_good
from eomlab.engine.model import Model, is_planar
from eomlab.engine.simulation import assembled_frame
from eomlab.gui.editing import recovery
from eomlab.gui.arrows.arrows_view import Arrows
from eomlab.gui.editing.document import ModelDocument
from eomlab.gui.editing.edit_actions import EditActions
from eomlab.gui.actions.file_actions import FileActions
from eomlab.gui.editing.inspector import Inspector
from eomlab.gui.editing.model_tree import ModelTree
from eomlab.gui.plots.plot_panel import PlotPanel
from eomlab.gui.style.plot_style import configure_pyqtgraph
from eomlab.gui.redraw import Redraw
from eomlab.gui.runs.stall_watch import StallWatch
from eomlab.gui.runs.heap_trim import HeapTrimmer
from eomlab.gui.runs.first_paint import after_first_paint
from eomlab.gui.runs.warm_up import WARM_UP_MS, WarmUp
from eomlab.gui.runs.ring_buffer import DEFAULT_CAPACITY
from eomlab.gui.actions.run_actions import RunActions
from eomlab.gui.scene.scene2d import Scene2D
from eomlab.gui.scene.scene3d import make_scene3d, opengl_available
from eomlab.gui.runs.run_state import RunState
from eomlab.gui.runs.session import Session
from eomlab.gui.editing.settings_bar import SettingsBar
from eomlab.gui.sweeps.sweep_panel import open_for as open_sweep_panel

#: seconds (Python's default is 0.005): see MainWindow.__init__
GIL_SWITCH_INTERVAL = 0.0002


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
        self.document = ModelDocument(model, path, self)
        self.session = Session(model, compare=compare, capacity=buffer_capacity, parent=self)
        self.last_error = ""
        self.message_boxes: list[QMessageBox] = []
        self.confirm_restore = lambda path: recovery.ask_restore(self, path)  # tests: None, never ask

        self._build_scene()
        self._build_docks()
        self.files = FileActions(self)
        self.edits = EditActions(self)
        self.run_actions = RunActions(self.session, self)
        self.settings_bar = SettingsBar(self.edits.edit, self)
        self._build_toolbar()
        self._build_menus()
        self.statusBar().addPermanentWidget(self.run_actions.state_label)
        self.path_label = QLabel("")  # which tree-dynamics path the run uses (engine.compiled.tree_backend)
        self.path_label.setContentsMargins(16, 0, 4, 0)  # apart from the run state beside it
        self.statusBar().addPermanentWidget(self.path_label)
        self.session.run_ready.connect(
            lambda run: self.path_label.setText(f"Tree dynamics: {run.series.info.dynamics_path}"))
        self.session.dynamics_path_changed.connect(lambda path: self.path_label.setText(f"Tree dynamics: {path}"))
        self.document.changed.connect(self._on_model_changed)
        self.document.path_changed.connect(lambda _p: self._update_title())
        self.document.undo_stack.cleanChanged.connect(lambda _c: self._update_title())
        self.session.problem.connect(lambda title, text: self.show_problem(title, text))
        self.session.notes.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.session.finished.connect(
            lambda t_end: self.statusBar().showMessage(
                f"Reached t_end = {t_end:g} s" + (" (the run goes on until paused)" if self.session.state == RunState.RUNNING else ""),
                8000))
        self.session.runs_started.connect(self._on_runs_started)
        # the plots take the ready runs once per turn of the event loop: compare mode's runs come
        # ready together, and a rebuild of every curve for each of them stalled the window (issue 31)
        self._plots_follow = QTimer(self)
        self._plots_follow.setSingleShot(True)
        self._plots_follow.timeout.connect(lambda: self.plots.set_runs(self.session.runs, self.model))
        self.session.run_ready.connect(lambda _run: self._plots_follow.start(0))

        self.redraw = Redraw(self)
        self._heap_trim = HeapTrimmer()  # freed pages back to the system, off the GUI thread (gui/runs/heap_trim.py)
        self.stall_watch = StallWatch(self)  # a run stuck (dead centre) says so, offering Pause/Reset
        self._build_teaching_tools()
        self.resize(1600, 1000)
        self._show_model(model, None)
        # the runs' modules load once the window has painted its first frame (the mechanism), before
        # any run forks (gui/runs/warm_up.py); a later window of the process finds them loaded
        one_blas_thread_for_good()  # before any fork of a run (engine/blas_threads.py)
        warm_up = WarmUp.if_needed()
        # the plots (no samples yet: empty axes) paint on the frame after the mechanism's first
        self.plots.setUpdatesEnabled(False)
        after_first_paint((self.statusBar(), self.scene2d.viewport(), self.scene_stack),
                          lambda: self._after_first_paint(warm_up), WARM_UP_MS)
        self.session.start(running=run)
        self.compare_view.set_active(self.session.compare)
        self.autosave = recovery.Autosave(self.document, recovery.recovery_directory(self.settings_store), self)
        # asked once the event loop turns, so that whoever made the window can answer it
        self._recovery_offer = QTimer(self)
        self._recovery_offer.setSingleShot(True)
        self._recovery_offer.timeout.connect(lambda: recovery.offer_recovery(self))
        self._recovery_offer.start(0)

    def _after_first_paint(self, warm_up: WarmUp | None) -> None:
        self.plots.setUpdatesEnabled(True)
        if warm_up is not None:
            warm_up.go()

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
        self.tree.setContextMenuPolicy(Qt.ActionsContextMenu)
        self.inspector = Inspector(self.document)
        self.inspector.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.tree.selected.connect(lambda key: self.inspector.show_node(self.model, key))
        self.tree.selected.connect(lambda key: self.scene2d.show_zero_direction(  # θ = 0 of a selected joint
            key[1] if key and key[0] == "body" else None))
        self.plots = PlotPanel(self.settings_store)
        self.plots.time_limit = self.session.cursor_time
        self.plots.shown_changed.connect(lambda keys: self.plots_dock.setVisible(bool(keys)))
        self.tree_dock = self._dock("Model", self.tree, Qt.LeftDockWidgetArea)
        self.inspector_dock = self._dock("Inspector", self.inspector, Qt.RightDockWidgetArea)
        self.plots_dock = self._dock("Plots", self.plots, Qt.BottomDockWidgetArea)
        # the plots span the whole width under the side docks
        self.setCorner(Qt.BottomLeftCorner, Qt.BottomDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.BottomDockWidgetArea)
        self.resizeDocks([self.plots_dock], [430], Qt.Vertical)
        self.resizeDocks([self.tree_dock, self.inspector_dock], [330, 340], Qt.Horizontal)

    def _dock(self, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower()}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    modes_panel = property(lambda self: self.analysis.modes, doc="Analyze ▸ Modes (built when first asked for)")
    stability_panel = property(lambda self: self.analysis.stability, doc="Analyze ▸ Stability (built when first asked for)")

    def action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        """A QAction of this window (the parts make theirs with it)."""
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_toolbar(self) -> None:
        bar = QToolBar("Run")
        bar.setObjectName("run_toolbar")
        bar.setMovable(False)
        self.addToolBar(Qt.TopToolBarArea, bar)
        self.settings_bar.add_to(bar)
        bar.addSeparator()
        self.run_actions.add_to(bar)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        bar.addWidget(spacer)
        bar.addWidget(self.run_actions.time_label)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        self.files.fill_menu(menu.addMenu("&File"))
        self.edits.fill_menu(menu.addMenu("&Edit"))
        run_menu = menu.addMenu("&Run")
        self.run_actions.fill_menu(run_menu)
        run_menu.addAction("Sweep…", lambda: open_sweep_panel(self))
        view_menu = menu.addMenu("&View")
        for dock in (self.tree_dock, self.inspector_dock, self.plots_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addMenu(self.plots.choice_menu(view_menu))
        self.arrows = Arrows(self)  # View ▸ Arrows: velocities, forces, momenta at the shown instant
        view_menu.addMenu(self.arrows.menu)
        from eomlab.gui.analysis import fill_menu as fill_analysis

        self.analysis = fill_analysis(self, menu.addMenu("&Analyze"))  # Modes, Stability (engine.linearize)

    def _build_teaching_tools(self) -> None:
        """Compare mode, the equations panel, presentation mode, recordings and the keyboard
        (each in its own module)."""
        from eomlab.gui import direct_manipulation
        from eomlab.gui.actions import shortcuts
        from eomlab.gui.compare.compare_mode import CompareView
        from eomlab.gui.equations.equations_view import EquationsView
        from eomlab.gui.actions.presentation import Presentation
        from eomlab.gui.actions.recording import Recording

        self.compare_view = CompareView(self.session, self)
        self.equations_view = EquationsView(self)
        self.presentation = Presentation(self)
        self.recording = Recording(self)
        direct_manipulation.install(self)
        self.keyboard = shortcuts.install(self)
        self.recording.add_actions(self.menuBar().actions()[0].menu())  # the File menu

    # --- the parts' commands, for scripts and tests -----------------------------------------------

    @property
    def model(self) -> Model:
        return self.document.model

    @property
    def state(self) -> RunState:
        return self.session.state

    @property
    def runs(self):
        return self.session.runs

    @property
    def compare(self) -> bool:
        return self.session.compare

    @property
    def worker_processes(self) -> bool:
        return self.session.worker_processes

    @worker_processes.setter
    def worker_processes(self, value: bool) -> None:
        self.session.worker_processes = value

    @property
    def frames_drawn(self) -> int:
        return self.redraw.frames_drawn

    def run(self) -> None:
        self.session.run()

    def pause(self) -> None:
        self.session.pause()

    def step(self) -> None:
        self.session.step()

    def reset(self) -> None:
        self.run_actions.reset()

    def set_speed(self, speed: float) -> None:
        self.run_actions.set_speed(speed)

    def set_compare(self, on: bool) -> None:
        self.run_actions.set_compare(on)

    def start_runs(self, running: bool) -> None:
        self.session.start(running)

    def stop_runs(self) -> float:
        """Stop the runs and wait for their workers to end; the seconds it took."""
        return self.session.stop(join=True)

    def samples(self):
        return self.session.samples()

    def edit(self, make, description: str, select=None) -> bool:
        return self.edits.edit(make, description, select)

    # --- the model -----------------------------------------------------------------------------

    def _show_model(self, model: Model, select) -> None:
        self.tree.show_model(model, select)
        self.settings_bar.sync(model.settings)
        self._use_scene_for(model)
        self._update_title()

    @Slot(object, str, object)
    def _on_model_changed(self, model: Model, description: str, select) -> None:
        was_running = self.session.state.going_on  # a finished run re-runs with the edit
        had_progress = self.session.has_progress()
        self._show_model(model, select)
        self.session.set_model(model)
        if (was_running or had_progress) and model.bodies:
            self.statusBar().showMessage(f"{description} — the run starts afresh from t = 0 with the edited model",
                                         10000)
        else:
            self.statusBar().showMessage(description, 8000)

    def _on_runs_started(self) -> None:
        self.plots.set_runs([], self.model)
        self.plots.show_methods([run.method for run in self.session.runs] if self.session.compare else [])
        self.scene.clear_trail()
        refit = getattr(self.scene, "refit", None)
        if refit is not None:
            refit()  # Reset, an edit, a new model: the view fits the mechanism again
        if self.session.runs:
            # the pose the runs start from, drawn before their first samples come (a process to
            # start, the engine to build); with constraints, q0 made consistent as the run makes it
            self.scene.show_frame(assembled_frame(self.model))
        if not self.session.runs:  # an empty model (File ▸ New): no run, so every readout back to nothing
            self.run_actions.show_time(0.0, self.model.settings.t_end)
            self.plots.energy_bars.show(None, np.zeros((0, 0)))
            self.plots.buffer_label.setText("")
            self.path_label.setText("")

    def _update_title(self) -> None:
        if not shiboken6.isValid(self):
            return
        path = self.document.path
        name = os.path.basename(path) if path else self.model.name
        self.setWindowTitle(f"{name}{' *' if self.document.dirty else ''} — eomlab")

    # --- messages ----------------------------------------------------------------------------------

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

    # --- files dropped on the window ---------------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.files.open_file(url.toLocalFile())
                event.acceptProposedAction()
                return

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.keyboard.closed:  # shown again after a close: its keys come back (installed once otherwise, so
            self.keyboard.closed = False  # that the other application filters keep their order)
            QApplication.instance().installEventFilter(self.keyboard)

    def closeEvent(self, event) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        self.autosave.stop()
        self._heap_trim.stop()
        self.autosave.discard()  # a normal close: the edits were saved or knowingly dropped
        self.redraw.stop()
        self.session.stop(join=True, at_once=True)  # nothing the runs would still send is wanted
        self.presentation.restore_application()
        # the key router filters every event of the application: a closed window's would go on filtering
        # (a window closed, not deleted: one more Python call per event for each window ever opened)
        QApplication.instance().removeEventFilter(self.keyboard)
        self.keyboard.closed = True
        for box in list(self.message_boxes):
            box.close()
        event.accept()
        self._release_scene3d()

    def grab(self, rectangle: QRect | None = None):
        """As QWidget.grab, with the 3-D view painted in (a native GL window, gui/scene/scene3d_view.py)."""
        rectangle = QRect(QPoint(0, 0), QSize(-1, -1)) if rectangle is None else rectangle
        pixmap = super().grab(rectangle)
        if self.scene3d is None:
            return pixmap
        from eomlab.gui.scene.scene3d_view import grab_with_gl

        return grab_with_gl(self, rectangle, pixmap)

    def _release_scene3d(self) -> None:
        """A closed window's OpenGL view goes with the close, not when Python collects the window:
        a closed GL view kept alive keeps its context, and a next 3-D view (another window
        in this process) was seen to paint without a current one (tests/gui/scene/test_scene3d.py)."""
        scene = self.scene3d
        if scene is None:
            return
        self.scene = self.scene2d
        self.scene_stack.setCurrentWidget(self.scene2d)
        self.scene_stack.removeWidget(scene)
        self.scene3d = None
        scene.deleteLater()

    @property
    def confirm_discard(self):
        """Asks whether unsaved edits may go; tests replace it to answer without a dialog."""
        return self.files.confirm_discard

    @confirm_discard.setter
    def confirm_discard(self, ask) -> None:
        self.files.confirm_discard = ask

