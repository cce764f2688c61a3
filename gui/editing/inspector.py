"""The inspector (right dock): every property of the selected node with its unit.

A value is committed when its field loses focus or Enter is pressed; the edited model is rebuilt
through the file form (`gui.editing.edits`), so an invalid value is refused on the spot with the engine's
own `ModelError` message (``bodies[1].mass: must be >= 0, got -1``), the field goes back to the
model's value and the model is left as it was.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QGridLayout, QLabel, QLineEdit, QScrollArea, QSizePolicy,
                               QVBoxLayout, QWidget)

from eomlab.engine.methods import METHODS
from eomlab.engine.model import (COORDINATES, GROUND, INTEGRATORS, JOINT_TYPES, SHAPE_KINDS, STABILIZATIONS,
                          Model, ModelError, joint_type)
from eomlab.engine.modelfile import model_to_dict
from eomlab.engine.modelfile.edit_rules import angle_zero_words
from eomlab.gui.editing import edits


@dataclass(frozen=True)
class Field:
    path: tuple  # relative to the node, in the file form: ("joint", "q0")
    label: str
    unit: str = ""
    kind: str = "number"  # number | vector | json | text | name | choice | expressions | note (words, no value)
    options: tuple = ()
    tip: str = ""


#: units of the constraint and force fields, by field name
ITEM_UNITS = {"point": "m", "length": "m", "radius": "m", "rest_length": "m", "damping": "N·s/m (N·m·s/rad)",
              "direction": "body axes", "axis": "body axes", "motion": "expr. in t", "equation": "expr. = 0",
              "value": "N or N·m, expr.", "stiffness": "N/m (N·m/rad)", "rest": "rad or m"}

SHAPE_DEFAULTS = {"rod": {"length": 1.0}, "disk": {"radius": 0.25}, "sphere": {"radius": 0.25},
                  "box": {"size": [0.5, 0.3, 0.2]}, "point": {}}


INERTIA_TIP = ("about the mass centre, body axes: [Ixx, Iyy, Izz] or a symmetric 3×3 matrix. From the shape, it "
               "follows the mass and the shape's size; typed in, it is kept. Clear the field to take the shape's "
               "inertia again.")


def body_fields(model: Model, body) -> list[Field]:
    others = [GROUND] + [b.name for b in model.bodies
                         if b.name != body.name and b.name not in edits.descendants(model, body.name)]
    jt = joint_type(body.joint.type)
    q_unit, u_unit = jt.q_unit(body.joint), jt.label_units[1]
    fields = [
        Field(("name",), "name", kind="name"),
        Field(("parent",), "parent", kind="choice", options=tuple(others)),
        Field(("mass",), "mass", "kg"),
        Field(("com",), "mass centre", "m", "vector", tip="body coordinates"),
        Field(("inertia",), "inertia", "kg·m², " + ("from shape" if body.inertia_from_shape else "set by hand"),
              "vector", tip=INERTIA_TIP),
        Field(("shape", "kind"), "shape", kind="choice", options=("none",) + SHAPE_KINDS),
    ]
    kind = body.shape.kind if body.shape is not None else "none"
    if kind == "rod":
        fields.append(Field(("shape", "length"), "rod length", "m"))
    elif kind in ("disk", "sphere"):
        fields.append(Field(("shape", "radius"), "radius", "m"))
    elif kind == "box":
        fields.append(Field(("shape", "size"), "box size", "m", "vector"))
    fields += [
        Field(("joint", "type"), "joint", kind="choice", options=JOINT_TYPES),
        Field(("joint", "at"), "joint at", "m", "vector", tip="in the parent's frame"),
        Field(("joint", "rotation"), "joint rotation", "", "json",
              tip='3×3 matrix or {"axis": [...], "angle": a}'),
    ]
    if jt.uses_axis:
        fields.append(Field(("joint", "axis"), "joint axis", "unit vector", "vector"))
    if jt.uses_axis2:
        fields.append(Field(("joint", "axis2"), "second axis", "unit vector, after the first turn", "vector"))
    if jt.orientation:
        fields.append(Field(("joint", "orientation"), "orientation", "", "choice", ("angles", "quaternion")))
        if not body.joint.quaternion:
            fields.append(Field(("joint", "sequence"), "Euler sequence", "", "text"))
            fields.append(Field(("joint", "speeds"), "speeds", "", "choice", ("body", "euler")))
    if body.joint.dof:
        fields.append(Field(("joint", "q0"), "initial q", q_unit, "vector"))
        words = angle_zero_words(model, body.name)
        if words:  # what θ = 0 means (the scene draws that direction dashed while this body is selected)
            fields.append(Field(("joint", "angle_zero"), "", words, "note"))
        fields += [
            Field(("joint", "u0"), "initial speeds", u_unit, "vector"),
            Field(("joint", "names"), "coordinate names", "", "json"),
            Field(("joint", "limits"), "limits", f"{q_unit}, [lower, upper]", "json",
                  tip="[lower, upper] per speed (or a pair or null each); enforced; clear the field for none"),
            Field(("joint", "restitution"), "restitution", "e at the limits, 0 … 1"),
        ]
    return fields


SETTINGS_FIELDS = [
    Field(("method",), "formulation", kind="choice", options=METHODS),
    Field(("coordinates",), "coordinates", kind="choice", options=COORDINATES),
    Field(("integrator",), "integrator", kind="choice", options=INTEGRATORS),
    Field(("rtol",), "rtol", "relative"),
    Field(("atol",), "atol", "absolute"),
    Field(("t_end",), "end time", "s"),
    Field(("dt_out",), "output step", "s"),
    Field(("dt",), "RK4 step", "s"),
    Field(("stabilization", "kind"), "stabilization", kind="choice", options=STABILIZATIONS),
    Field(("stabilization", "alpha"), "Baumgarte α", "1/s"),
    Field(("stabilization", "beta"), "Baumgarte β", "1/s"),
    Field(("stabilization", "tolerance"), "projection tol.", ""),
]

MODEL_FIELDS = [
    Field(("name",), "name", kind="text"),
    Field(("gravity",), "gravity", "m/s²", "vector"),
]


def item_fields(model: Model, item: dict) -> list[Field]:
    """Constraint and force fields straight from their file form."""
    bodies = (GROUND,) + tuple(b.name for b in model.bodies)
    fields = [Field(("name",), "name", kind="text")]
    for key, value in item.items():
        if key in ("name", "type"):
            continue
        if isinstance(value, dict) and "body" in value:
            fields.append(Field((key, "body"), f"{key}: body", kind="choice", options=bodies))
            fields.append(Field((key, "point"), f"{key}: point", "m", "vector", tip="body coordinates"))
            if "radius" in value:  # a contact's sphere
                fields.append(Field((key, "radius"), f"{key}: radius", "m"))
        elif item.get("type") == "contact" and key == "b":
            fields.append(Field((key,), "b", "", "json", tip='"ground", or {"body": ..., "point": [...], "radius": r}'))
        elif key == "restitution":
            fields.append(Field((key,), "restitution", "e, 0 … 1"))
        elif key == "body":
            fields.append(Field((key,), "body", kind="choice", options=bodies[1:]))
        elif key == "frame":
            fields.append(Field((key,), "frame", kind="choice", options=("world", "body")))
        elif key == "coordinate":
            fields.append(Field((key,), "coordinate", kind="choice", options=model.coordinate_names))
        elif key in ("motion", "equation"):
            fields.append(Field((key,), key, ITEM_UNITS.get(key, ""), "text"))
        elif key == "value":
            fields.append(Field((key,), key, ITEM_UNITS["value"], "expressions",
                                tip='a JSON list of expressions, e.g. ["0", "-2*sin(t)", "0"]'))
        else:
            kind = "number" if isinstance(value, (int, float)) else ("vector" if isinstance(value, list) else "json")
            fields.append(Field((key,), key.replace("_", " "), ITEM_UNITS.get(key, ""), kind))
    return fields


def format_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.12g}"
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value) and value:
            return json.dumps(list(value))
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def parse_value(text: str, kind: str) -> Any:
    """Text → file value; something unparsable is passed on as the text itself, so the engine's
    validation names the problem with its field path. A vector or a list of expressions takes a
    bare entry for one of them (`-0.6`, `0`)."""
    text = text.strip()
    if kind in ("text", "name", "choice"):
        return text
    if kind == "vector" and text and not text.startswith("["):
        text = f"[{text}]"
    try:
        value = json.loads(text)
        return [text] if kind == "expressions" and not isinstance(value, list) else value
    except ValueError:
        if kind == "expressions":
            return [part.strip() for part in text.strip("[]").split(";")]
        return text


def _get_attr_path(obj: Any, path) -> Any:
    for part in path:
        if obj is None:
            return None
        obj = obj[part] if isinstance(part, int) else getattr(obj, part, None)
    return obj


class Inspector(QWidget):
    """Signals: ``message(str)`` for the status bar; ``refused(str)`` with the ModelError text."""

    message = Signal(str)
    refused = Signal(str)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("inspector")
        self.document = document
        self.key = None
        self.node_path: tuple = ()
        self.fields: list[Field] = []
        self.editors: dict[tuple, QWidget] = {}
        self.last_error = ""

        self.title = QLabel("")
        self.title.setStyleSheet("font-weight: bold; font-size: 11pt;")
        self.form_host = QWidget()
        self.grid = QGridLayout(self.form_host)
        self.grid.setContentsMargins(2, 2, 2, 2)
        self.grid.setHorizontalSpacing(6)
        self.grid.setColumnStretch(1, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(self.form_host)
        self.error_label = QLabel("")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.hint = QLabel("Edit a value, then Enter. Invalid values are refused with the reason.")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #666; font-size: 8pt;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.hint)

    # --- showing a node --------------------------------------------------------------------------

    def show_node(self, model: Model, key) -> None:
        key = tuple(key) if key else ("model",)
        data = model_to_dict(model)
        title, node_path, fields, source = self._describe(model, data, key)
        same_layout = key == self.key and [(f.path, f.unit) for f in fields] == [(f.path, f.unit) for f in self.fields]
        self.key, self.node_path = key, node_path
        self.title.setText(title)
        if not same_layout:
            self._build(fields)
        self.fields = fields
        for f in fields:
            if f.kind == "note":
                continue
            value = edits.get_in(data, node_path + f.path)
            if value is None:
                value = _get_attr_path(source, f.path)
            self._set_editor_value(f, value)

    def _describe(self, model: Model, data: dict, key):
        kind = key[0]
        if kind == "body" and key[1] in {b.name for b in model.bodies}:
            i = model.body_index(key[1])
            body = model.bodies[i]
            return f"Body “{body.name}”", ("bodies", i), body_fields(model, body), body
        if kind == "constraint" and key[1] < len(model.constraints) + len(model.contacts):
            item = data["constraints"][key[1]]
            return f"Constraint “{item['name']}” ({item['type']})", ("constraints", key[1]), item_fields(model, item), None
        if kind == "force" and key[1] < len(model.forces):
            item = data["forces"][key[1]]
            return f"Force “{item['name']}” ({item['type']})", ("forces", key[1]), item_fields(model, item), None
        if kind == "settings":
            return "Settings", ("settings",), SETTINGS_FIELDS, model.settings
        if kind in ("bodies", "constraints", "forces"):
            return kind.capitalize(), (), [], None
        return f"Model “{model.name}”", (), MODEL_FIELDS, model

    def _build(self, fields: list[Field]) -> None:
        while self.grid.count():
            widget = self.grid.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.editors = {}
        for row, f in enumerate(fields):
            if f.kind == "note":
                note = QLabel(f.unit)
                note.setObjectName("note:" + ".".join(map(str, f.path)))
                note.setWordWrap(True)
                note.setStyleSheet("color: #555;")
                # wrapped to the dock's width, never widening it (a wrapped label asks for its one-line width)
                note.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Minimum)
                self.grid.addWidget(note, row, 0, 1, 3)
                continue
            label = QLabel(f.label)
            unit = QLabel(f.unit)
            unit.setStyleSheet("color: #555;")
            if f.kind == "choice":
                editor = QComboBox()
                editor.addItems(list(f.options))
                editor.activated.connect(lambda _i, f=f: self._commit(f))
            else:
                editor = QLineEdit()
                editor.editingFinished.connect(lambda f=f: self._commit(f))
            editor.setObjectName("field:" + ".".join(map(str, f.path)))
            tip = f.tip or edits.path_text(self.node_path + f.path)
            for w in (label, editor, unit):
                w.setToolTip(tip)
            self.grid.addWidget(label, row, 0)
            self.grid.addWidget(editor, row, 1)
            self.grid.addWidget(unit, row, 2)
            self.editors[f.path] = editor
        self.grid.setRowStretch(len(fields), 1)

    def _set_editor_value(self, f: Field, value) -> None:
        editor = self.editors[f.path]
        if f.path == ("inertia",) and isinstance(value, (tuple, list)) and len(value) == 3 \
                and all(isinstance(r, (tuple, list)) for r in value):
            if all(value[i][j] == 0 for i in range(3) for j in range(3) if i != j):
                value = [value[i][i] for i in range(3)]  # principal moments read better
        if isinstance(editor, QComboBox):
            text = "none" if (f.path == ("shape", "kind") and value is None) else format_value(value)
            editor.blockSignals(True)
            if editor.findText(text) < 0:
                editor.addItem(text)
            editor.setCurrentText(text)
            editor.blockSignals(False)
        else:
            text = format_value(value)
            editor.setText(text)
            editor.setProperty("shown", text)
            editor.setCursorPosition(0)

    # --- committing an edit --------------------------------------------------------------------------

    def editor(self, *path) -> QWidget:
        """The editor of a field, e.g. ``inspector.editor("mass")`` (for tests and scripting)."""
        return self.editors[tuple(path)]

    def set_value(self, path: tuple, text: str) -> bool:
        """Type `text` into a field and commit it; True if the model accepted it."""
        f = next(f for f in self.fields if f.path == tuple(path))
        editor = self.editors[f.path]
        if isinstance(editor, QComboBox):
            editor.setCurrentText(text)
        else:
            editor.setText(text)
        return self._commit(f)

    def _commit(self, f: Field) -> bool:
        editor = self.editors.get(f.path)
        if editor is None:
            return False
        text = editor.currentText() if isinstance(editor, QComboBox) else editor.text()
        if not isinstance(editor, QComboBox) and text == editor.property("shown"):
            return False  # focus left without a change
        model = self.document.model
        full_path = self.node_path + f.path
        try:
            new_model, select = self._edited(model, f, text)
        except ModelError as error:
            self._refuse(str(error))
            return False
        self.error_label.setText("")
        self.last_error = ""
        changed = self.document.apply(new_model, f"Set {edits.path_text(full_path)} = {text}", select)
        if not changed:
            self.show_node(self.document.model, self.key)
        return True

    def _edited(self, model: Model, f: Field, text: str):
        full_path = self.node_path + f.path
        select = self.key
        if self.key[0] == "body" and f.path == ("name",):
            new_name = text.strip()
            return edits.rename_body(model, self.key[1], new_name), ("body", new_name)
        value = parse_value(text, f.kind)
        if f.path in (("joint", "limits"), ("joint", "restitution")) and value == "":
            return edits.set_field(model, full_path, None), select  # no limits (restitution back to 0)
        if f.path == ("inertia",) and value == "":
            return edits.set_field(model, full_path, None), select  # back to the shape's inertia
        if f.path == ("shape", "kind"):
            if value == "none":
                return edits.set_field(model, full_path[:-1], None), select
            return edits.set_field(model, full_path[:-1], {"kind": value, **SHAPE_DEFAULTS[value]}), select
        if f.path == ("joint", "type"):
            joint = dict(edits.get_in(model_to_dict(model), full_path[:-1]))
            for stale in ("q0", "u0", "names", "sequence", "speeds", "axis", "orientation"):
                joint.pop(stale, None)  # their sizes belong to the old joint type
            joint["type"] = value
            return edits.set_field(model, full_path[:-1], joint), select
        if f.path == ("joint", "orientation"):
            joint = dict(edits.get_in(model_to_dict(model), full_path[:-1]))
            for stale in ("q0", "names", "speeds", "sequence"):
                joint.pop(stale, None)  # four Euler parameters or three angles: new sizes
            joint["orientation"] = value
            return edits.set_field(model, full_path[:-1], joint), select
        return edits.set_field(model, full_path, value), select

    def _refuse(self, message: str) -> None:
        self.last_error = message
        self.error_label.setText(message)
        self.refused.emit(message)
        self.message.emit(f"Refused: {message}")
        self.show_node(self.document.model, self.key)  # back to the model's values
