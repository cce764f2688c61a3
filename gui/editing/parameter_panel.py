"""Live parameters: a slider and a typed value for each numeric parameter of the model — gravity,
masses, the mass centre's distance (a pendulum's length), shape sizes, the numbers of forces
(stiffness, damping, rest length…) and the constants written in effort expressions. A change goes on from the current state of every run
(engine: `Simulation.set_parameter`, no restart), is marked on the time plots, and is one undoable
step however long the slider is dragged (commands of one drag merge). A shape-derived inertia
follows its mass and size (the engine's `model_with_parameter`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QScrollArea, QSlider, QVBoxLayout, QWidget

from eomlab.engine.model import ModelError
from eomlab.engine.modelfile import model_to_dict
from eomlab.engine.simulation import expression_constants, model_with_parameter
from eomlab.gui.runs.run_messages import EditKind

SLIDER_STEPS = 1000
#: the slider spans (LOW × value … HIGH × value) of the value the model started with
LOW, HIGH = 0.05, 3.0
_MERGE_ID = 1414
#: the model tree and inspector show a changed value this long after the last change (ms)
TREE_REFRESH_MS = 200
#: the fields of a force that hold expressions (MODEL_FORMAT: joint_effort, point_force, body_torque)
EXPRESSION_FIELDS = ("value",)
_gestures = itertools.count(1)


@dataclass(frozen=True)
class Parameter:
    label: str
    path: str  # as the engine's error messages write it
    vector: bool  # a vector scaled by its length (gravity, a mass centre)
    start: float  # the value (or length) the model has
    positive: bool  # must stay above zero


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _length(vector) -> float:
    """A vector's length, without squaring its entries: np.linalg.norm of (0, 1e-308, 0) is 0 (the
    square underflows), and a mass centre typed that short lost its row (issue 31's monkey)."""
    return math.hypot(*(float(x) for x in vector))


def parameters_of(model) -> list[Parameter]:
    """The numeric parameters a student may slide, in the model's order."""
    data = model_to_dict(model)
    found = [Parameter("gravity |g| (m/s²)", "gravity", True, _length(data["gravity"]), False)]
    for i, body in enumerate(data.get("bodies", [])):
        name = body["name"]
        found.append(Parameter(f"{name} mass (kg)", f"bodies[{i}].mass", False, float(body["mass"]), True))
        com = np.asarray(body.get("com", [0, 0, 0]), float)
        if _length(com) > 0:
            found.append(Parameter(f"{name} mass-centre distance (m)", f"bodies[{i}].com", True,
                                   _length(com), True))
        for key, value in (body.get("shape") or {}).items():
            if _number(value):
                found.append(Parameter(f"{name} shape {key} (m)", f"bodies[{i}].shape.{key}", False, float(value), True))
    for k, force in enumerate(data.get("forces", [])):
        name = force.get("name", f"force {k}")
        for key, value in force.items():
            if _number(value):
                found.append(Parameter(f"{name} {key}", f"forces[{k}].{key}", False, float(value), False))
            elif key in EXPRESSION_FIELDS:
                found += _expression_parameters(name, f"forces[{k}].{key}", value)
    return found


def _expression_parameters(name: str, path: str, value) -> list[Parameter]:
    """The constants written in an effort's expression(s), e.g. the 0.3 of −0.3·θ̇."""
    texts = [(path, value)] if isinstance(value, str) else [(f"{path}[{j}]", v) for j, v in enumerate(value)]
    return [Parameter(f"{name}: constant {c + 1} of {text}", f"{where}.constants[{c}]", False, constant, False)
            for where, text in texts if isinstance(text, str)
            for c, constant in enumerate(expression_constants(text))]


def _field(model, p: Parameter):
    """The value at `p.path` in the model's file form (a constant: read from its expression)."""
    parts = p.path.replace("]", "").replace("[", ".").split(".")
    constant = None
    if len(parts) > 2 and parts[-2] == "constants":
        parts, constant = parts[:-2], int(parts[-1])
    node = model_to_dict(model)
    for part in parts:
        node = node[int(part)] if part.isdigit() else node[part]
    return expression_constants(node)[constant] if constant is not None else node


def _value_of(model, p: Parameter) -> float:
    node = _field(model, p)
    return _length(node) if p.vector else float(node)


def _engine_value(model, p: Parameter, value: float):
    """What `set_parameter` takes: the number, or the vector scaled to length `value`."""
    if not p.vector:
        return value
    v = np.asarray(_field(model, p), float)
    length = _length(v)
    # the unit vector times the length: value / length overflows to inf for a huge value and a short
    # vector, and a zero component times inf is NaN (the engine's limits then refuse the finite result)
    return [float(x) for x in (v / length * value if length > 0 else v)]


def _reversal_words(p: Parameter, model, value: float) -> str:
    """What a negative length typed for a vector does, in words."""
    v = -np.asarray(_field(model, p), float)
    length = _length(v)
    if not length > 0:
        return f"{p.label.split(' (')[0]}: a length is never negative; {value:g} is taken as {-value:g}"
    k = int(np.argmax(np.abs(v)))
    way = f"{'+' if v[k] > 0 else '−'}{'xyz'[k]}" if abs(abs(v[k]) - length) <= 1e-12 * length else "the other way"
    name = p.label.split(" (")[0].replace(" |g|", "")
    return (f"{name}: a negative |g| reverses the direction — |g| = {-value:g} m/s², now pointing {way}"
            if p.path == "gravity" else f"{name}: a negative value reverses the direction — now {-value:g}, pointing {way}")


class ParameterChange(QUndoCommand):
    """One parameter change; the commands of one slider drag merge into one step. Undo and redo
    put back the document's models as they were (`before`, `after`), exactly: a vector scaled to a
    length and back, or a rod's followers (its mass centre, its children's joints) recomputed from
    the value, did not come back bit for bit (issue 31's monkey: undoing everything changed the model)."""

    def __init__(self, panel: "ParameterPanel", p: Parameter, old: float, new: float, gesture: int, before=None):
        super().__init__(f"{p.label} = {new:.4g}")
        self.panel, self.p, self.old, self.new, self.gesture = panel, p, old, new, gesture
        self.before, self.after = before, None

    def id(self) -> int:
        return _MERGE_ID

    def mergeWith(self, other) -> bool:
        if not isinstance(other, ParameterChange) or other.p.path != self.p.path or other.gesture != self.gesture:
            return False
        self.new, self.after = other.new, other.after
        self.setText(f"{self.p.label} = {self.new:.4g}")
        return True

    def redo(self) -> None:
        self.panel.apply(self.p, self.new, self.gesture, model=self.after)
        self.after = self.panel.window.document.model

    def undo(self) -> None:
        self.panel.apply(self.p, self.old, self.gesture, model=self.before)


class ParameterPanel(QScrollArea):
    def __init__(self, window, parent=None):
        super().__init__(parent)
        self.setObjectName("parameter_panel")
        self.window, self.session = window, window.session
        self.marks = None  # gui/plot_marks.PlotMarks: where changes are marked
        self.rows: dict[str, tuple[Parameter, QSlider, QLineEdit]] = {}
        self._gesture = 0
        self._pending: dict[int, str] = {}  # gesture → the text of its mark
        self._updating = False
        body = QWidget()
        self.outer = QVBoxLayout(body)
        self.grid = QGridLayout()
        self.outer.addLayout(self.grid)
        self.outer.addStretch(1)
        self.setWidget(body)
        self.setWidgetResizable(True)
        self.session.runs_started.connect(self.rebuild)
        self._show_in_tree = QTimer(self)
        self._show_in_tree.setSingleShot(True)
        self._show_in_tree.setInterval(TREE_REFRESH_MS)
        self._show_in_tree.timeout.connect(self._refresh_tree)
        self.session.edited.connect(self._on_edited)

    def rebuild(self) -> None:
        """Sliders for the parameters of the model the runs started from. The same parameters as
        shown (compare mode on or off, a Reset) keep their widgets and take the new start values:
        a 20-link chain's 200 widgets made anew held the GUI thread for most of a second."""
        found = parameters_of(self.session.model)
        if [(p.path, p.label) for p in found] == [(p.path, p.label) for p, *_ in self.rows.values()]:
            for p in found:
                _old, slider, field = self.rows[p.path]
                self.rows[p.path] = (p, slider, field)
                self._show(p, p.start)
            return
        while self.grid.count():
            widget = self.grid.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.rows = {}
        for row, p in enumerate(found):
            slider = QSlider(Qt.Horizontal)
            slider.setObjectName(f"slider:{p.path}")
            slider.setRange(0, SLIDER_STEPS)
            field = QLineEdit()
            field.setObjectName(f"value:{p.path}")
            field.setMaximumWidth(90)
            label = QLabel(p.label)
            label.setWordWrap(True)
            label.setToolTip(f"{p.label} — {p.path}")
            self.grid.addWidget(label, 2 * row, 0, 1, 2)
            self.grid.addWidget(slider, 2 * row + 1, 0)
            self.grid.addWidget(field, 2 * row + 1, 1)
            self.rows[p.path] = (p, slider, field)
            slider.sliderPressed.connect(self._new_gesture)
            slider.valueChanged.connect(lambda v, path=p.path, s=slider: self._slid_row(path, s, v))
            field.editingFinished.connect(lambda path=p.path, f=field: self._typed_row(path, f))
            self._show(p, p.start)

    # --- slider ↔ value ------------------------------------------------------------------------

    def _bounds(self, p: Parameter) -> tuple[float, float]:
        if p.start > 0:
            return (LOW * p.start if p.positive else 0.0), HIGH * p.start
        return 0.0, 1.0

    def _show(self, p: Parameter, value: float) -> None:
        _, slider, field = self.rows[p.path]
        lo, hi = self._bounds(p)
        self._updating = True
        slider.setValue(int(round(np.clip((value - lo) / (hi - lo), 0, 1) * SLIDER_STEPS)))
        field.setText(f"{value:.4g}")
        self._updating = False

    def _new_gesture(self) -> None:
        self._gesture = next(_gestures)

    def _slid_row(self, path: str, slider: QSlider, position: int) -> None:
        row = self.rows.get(path)
        if row is not None and row[1] is slider:  # (not a widget of a list rebuilt since, on its way out)
            self._slid(row[0], position)

    def _typed_row(self, path: str, field: QLineEdit) -> None:
        row = self.rows.get(path)
        if row is not None and row[2] is field:
            self._typed(row[0], field)

    def _slid(self, p: Parameter, position: int) -> None:
        if self._updating:
            return
        lo, hi = self._bounds(p)
        value = lo + (hi - lo) * position / SLIDER_STEPS
        if not self.rows[p.path][1].isSliderDown():
            self._new_gesture()  # a click on the groove or a key: a step of its own
        self.change(p, value, self._gesture)

    def _typed(self, p: Parameter, field: QLineEdit) -> None:
        try:
            value = float(field.text())
        except ValueError:
            self.window.statusBar().showMessage(f"{p.path}: not a number: {field.text()!r}", 8000)
            return
        if not math.isfinite(value):  # Infinity or NaN: refused before any arithmetic (a vector's 0·inf warned)
            self.window.statusBar().showMessage(f"Refused: {p.path}: must be a finite number, got {field.text()!r}",
                                                8000)
            self._show(p, self.current(p))
            return
        if math.isclose(value, self.current(p)):
            return
        self.change(p, value, next(_gestures))

    def current(self, p: Parameter) -> float:
        run = self.session.runs[0] if self.session.runs else None
        return _value_of(run.model if run is not None else self.session.model, p)

    def change(self, p: Parameter, value: float, gesture: int) -> bool:
        """Set `p` to `value` in every run as one undoable step (merged with the rest of `gesture`)."""
        if not self.session.runs:
            return False
        model = self.session.runs[0].model
        if p.vector and p.positive and value == 0:
            # a mass centre at zero distance has no direction left to scale, and the panel, rebuilt on
            # the next start, no longer lists it: the change's undo then named a row that was gone
            self.window.statusBar().showMessage(f"Refused: {p.path}: a distance must be above zero (the vector "
                                                f"keeps its direction), got {value:g}", 10000)
            self._show(p, self.current(p))
            return False
        if p.vector and value < 0:  # a length is never negative: the vector turns round instead
            self.window.statusBar().showMessage(_reversal_words(p, model, value), 10000)
        try:
            model_with_parameter(model, p.path, _engine_value(model, p, value))
        except ModelError as error:
            self.window.statusBar().showMessage(f"Refused: {error}", 10000)
            self._show(p, self.current(p))
            return False
        old = self.current(p)
        # a reversal's undo reverses again: a negative length turns the vector round each time
        self.window.document.undo_stack.push(ParameterChange(self, p, -old if p.vector and value < 0 else old,
                                                             value, gesture, before=self.window.document.model))
        return True

    def apply(self, p: Parameter, value: float, gesture: int, model=None) -> None:
        """Every run goes on with `p` = value (the commands' redo and undo); with `model`, the
        document's model becomes that one exactly and the runs take its value of `p`."""
        if not self.session.runs:
            return
        document = self.window.document
        if model is not None:
            self.session.set_parameter(p.path, _field(model, p) if p.vector else _value_of(model, p))
        else:
            self.session.set_parameter(p.path, _engine_value(self.session.runs[0].model, p, value))
        # the document keeps the value the runs use (Save writes it, Reset starts with it); set
        # without the document's `changed`, which would restart the runs at t = 0
        document.model = model if model is not None else model_with_parameter(
            document.model, p.path, _engine_value(document.model, p, value))
        self.session.model = document.model
        self._show_in_tree.start()  # the tree and the inspector show it too, once the slider rests
        self._pending[gesture] = f"{p.label.split(' (')[0]} = {abs(value):.3g}"
        self._show(p, abs(value) if p.vector else value)  # |g| is a length: a negative entry turned the vector

    def _document_follows(self, model) -> None:
        """The document takes the parameter values the main run goes on with (back before a
        change, Save and Reset must not keep the later value); the rest of the document stays."""
        document = self.window.document
        updated = document.model
        for p, *_widgets in self.rows.values():
            value = _field(model, p)
            if _field(updated, p) != value:
                updated = model_with_parameter(updated, p.path, value)
        if updated != document.model:
            document.model = updated
            self.session.model = updated
            self._show_in_tree.start()

    def _refresh_tree(self) -> None:
        window = self.window
        window.tree.show_model(window.model)
        window.inspector.show_node(window.model, window.tree.current_key())

    def _on_edited(self, run, kind: EditKind, t: float) -> None:
        if kind == EditKind.CONTINUE_FROM and self.session.runs and run is self.session.runs[0]:
            self._document_follows(run.model)
            for p, _slider, _field in self.rows.values():  # back before a change: its values are back
                self._show(p, self.current(p))
        if kind != EditKind.SET_PARAMETER or not self.session.runs or run is not self.session.runs[0] or not self._pending:
            return
        gesture = max(self._pending)
        text = self._pending.pop(gesture)
        self._pending.clear()
        if self.marks is not None:
            self.marks.mark_change(t, text, key=gesture)
        self.window.statusBar().showMessage(f"{text} at t = {t:.3f} s: the run goes on from here", 6000)
