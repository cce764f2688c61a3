"""The equations panel: the window's model in its selected formulation, as mathematics.

`engine.symbolic.derive` does the work (sympy: seconds for a closed loop) and ziamath typesets
each item as SVG — both in a worker process (`gui.equations_render`, which says why not a
thread); the panel polls for the result with a timer, so the GUI thread never waits. A change of
model or method cancels the derivation in progress (the process is ended) and starts the next;
the size guard's refusal is shown as it is. An item ziamath cannot typeset is shown with sympy's
Unicode pretty printer instead. The panel derives only while it is shown.
"""
from __future__ import annotations

import multiprocessing
import queue
import threading

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from eomlab.engine.methods import label as method_label
from eomlab.engine.model import Model
from eomlab.gui.equations_render import ShownEquations, ShownItem, serve

#: typeset equations are drawn this much larger than ziamath's natural size (12 pt-ish)
SVG_SCALE = 1.25
#: how often the GUI thread looks for a finished derivation (ms)
POLL_MS = 50
class Derivation:
    """One request to the worker process, as the panel keeps track of it."""

    def __init__(self, model: Model, method: str, generation: int):
        self.model, self.method, self.generation = model, method, generation
        self.cancel_event = threading.Event()

    def cancel(self) -> None:
        self.cancel_event.set()


class DerivationProcess:
    """The panel's worker process: spawned when first needed, terminated to cancel (sympy
    cannot be interrupted otherwise), spawned again for the next request."""

    def __init__(self, plain_text: bool = False):
        self.context = multiprocessing.get_context("spawn")  # no fork of a process running Qt threads
        self.plain_text = plain_text
        self.process = None
        self.requests = self.results = None

    def submit(self, generation: int, model: Model, method: str, color: str) -> None:
        if self.process is None or not self.process.is_alive():
            self.requests, self.results = self.context.Queue(), self.context.Queue()
            self.process = self.context.Process(target=serve, args=(self.requests, self.results, self.plain_text),
                                                daemon=True, name="eomlab-equations")
            self.process.start()
        self.requests.put((generation, model, method, color))

    def finished(self) -> list[tuple]:
        """Every (kind, generation, value) the worker has sent since the last call."""
        done = []
        while self.results is not None:
            try:
                done.append(self.results.get_nowait())
            except queue.Empty:
                break
        return done

    def stop(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            self.process.join(1.0)
        self.process = None
        self.requests = self.results = None


class EquationsPanel(QWidget):
    """The dock's contents: state line, buttons, and the typeset sections."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("equations_panel")
        self.title = QLabel("")
        self.title.setWordWrap(True)
        bold = QFont(self.title.font())
        bold.setBold(True)
        self.title.setFont(bold)
        self.state = QLabel("")
        self.state.setObjectName("equations_state")
        self.state.setWordWrap(True)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: sympy gives no progress
        self.busy.setMaximumHeight(10)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.hide()
        self.copy_button = QPushButton("Copy as LaTeX")
        self.copy_button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        self.content = QWidget()
        self.content_layout = QVBoxLayout(self.content)
        self.content_layout.setAlignment(Qt.AlignTop)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        layout.addWidget(self.busy)
        layout.addWidget(self.scroll, 1)
        self.svg_widgets: list[QSvgWidget] = []
        self.text_items: list[QLabel] = []

    def clear(self) -> None:
        while self.content_layout.count():
            widget = self.content_layout.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.svg_widgets, self.text_items = [], []

    def show_deriving(self, what: str) -> None:
        self.clear()
        self.title.setText(what)
        self.state.setText("deriving…")
        self.busy.show()
        self.cancel_button.show()
        self.copy_button.setEnabled(False)

    def show_message(self, message: str) -> None:
        self.clear()
        self.state.setText(message)
        self.busy.hide()
        self.cancel_button.hide()
        self.copy_button.setEnabled(False)

    def show_equations(self, shown: ShownEquations) -> None:
        self.clear()
        self.busy.hide()
        self.cancel_button.hide()
        self.title.setText(f"{shown.title} — {shown.reference}")
        self.state.setText("")
        for title, items in shown.sections:
            header = QLabel(title)
            header.setWordWrap(True)
            header.setFont(self.title.font())
            header.setFrameShape(QFrame.NoFrame)
            self.content_layout.addWidget(header)
            for item in items:
                self.content_layout.addWidget(self._item_widget(item))
        self.copy_button.setEnabled(True)

    def _item_widget(self, item: ShownItem) -> QWidget:
        if item.svg is not None and QSvgRenderer(item.svg).isValid():
            widget = QSvgWidget()
            widget.load(item.svg)
            size = widget.renderer().defaultSize()
            widget.setFixedSize(QSize(round(size.width() * SVG_SCALE), round(size.height() * SVG_SCALE)))
            widget.setToolTip(item.latex)
            self.svg_widgets.append(widget)
            return widget
        label = QLabel(f"{item.label}:\n{item.text}")
        label.setObjectName("equation_text")
        label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        label.setStyleSheet("font-family: monospace;")
        self.text_items.append(label)
        return label


class EquationsView(QObject):
    """The Equations dock of one main window; derives only while it is shown."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.worker = DerivationProcess()
        self.panel = EquationsPanel()
        self.dock = QDockWidget("Equations", window)
        self.dock.setObjectName("dock_equations")
        self.dock.setWidget(self.panel)
        self.dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                              | QDockWidget.DockWidgetClosable)
        window.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.inspector_dock, self.dock)
        self.dock.hide()
        self.poll_timer = QTimer(self)
        self.poll_timer.setInterval(POLL_MS)
        self.poll_timer.timeout.connect(self._collect)
        self.generation = 0
        self.current: Derivation | None = None
        self.cancelled: list[Derivation] = []  # for tests and for the record
        self.shown_for: tuple | None = None  # (id(model), method) on display
        self.latex = ""
        self.panel.copy_button.clicked.connect(self.copy_latex)
        self.panel.cancel_button.clicked.connect(self.cancel)
        self.dock.visibilityChanged.connect(lambda visible: visible and self.update())
        window.document.changed.connect(lambda *_: self.update())
        window.installEventFilter(self)  # its Close ends the worker process
        window.destroyed.connect(lambda *_: self.worker.stop())

    def eventFilter(self, target, event) -> bool:
        if target is self.window and event.type() == QEvent.Close:
            self.cancel()
            self.worker.stop()
        return False

    def show(self) -> None:
        """Show the dock in front of its tab siblings and derive what it should show."""
        self.dock.show()
        self.dock.raise_()
        self.update()

    def toggle(self) -> None:
        self.dock.hide() if self.dock.isVisible() else self.show()

    @property
    def state(self) -> str:
        return self.panel.state.text()

    def update(self) -> None:
        """Derive for the window's model and method if the dock is shown and they changed."""
        if not self.dock.isVisible():
            if self.current is not None:
                self.cancel()  # nobody is looking: stop spending the CPU
            return
        model = self.window.model
        # by identity: an edit always makes a new Model (frozen dataclasses)
        key = (id(model), model.settings.method)
        if self.current is not None and (id(self.current.model), self.current.method) == key:
            return
        if self.current is None and self.shown_for == key:
            return
        self.cancel()
        self.generation += 1
        ink = self.panel.palette().color(self.panel.foregroundRole()).name()  # dark theme: light ink
        self.current = Derivation(model, model.settings.method, self.generation)
        self.panel.show_deriving(f"{method_label(model.settings.method)} — {model.name}")
        self.worker.submit(self.generation, model, model.settings.method, ink)
        self.poll_timer.start()

    def cancel(self) -> None:
        if self.current is None:
            return
        self.current.cancel()
        self.worker.stop()  # sympy cannot be stopped in between: end the process
        self.cancelled.append(self.current)
        self.current = None
        self.shown_for = None
        self.panel.show_message("derivation cancelled")

    def copy_latex(self) -> None:
        if self.latex:
            QGuiApplication.clipboard().setText(self.latex)
            self.window.statusBar().showMessage("Copied the equations as LaTeX", 5000)

    def _collect(self) -> None:
        """Deliver what the workers finished (GUI thread, from the poll timer)."""
        for kind, generation, value in self.worker.finished():
            if kind == "derived":
                self._on_derived(generation, value)
            elif kind == "refused":
                self._on_refused(generation, value)
        if self.current is None:
            self.poll_timer.stop()

    def _finished(self, generation: int) -> bool:
        """True if this result belongs to the derivation we are waiting for."""
        if self.current is None or generation != self.current.generation:
            return False
        self.shown_for = (id(self.current.model), self.current.method)
        self._shown_model = self.current.model  # keeps the id from being reused
        self.current = None
        return True

    def _on_derived(self, generation: int, shown: ShownEquations) -> None:
        if self._finished(generation):
            self.latex = shown.latex
            self.panel.show_equations(shown)

    def _on_refused(self, generation: int, message: str) -> None:
        if self._finished(generation):
            self.latex = ""
            self.panel.show_message(message)

