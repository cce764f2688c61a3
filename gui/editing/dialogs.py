"""Dialogs that make models or parts of them: the preset gallery, the pendulum-chain builder, the
rigid-body builder and the constraint/force builder. Each returns plain data (a Model or a file-
form dict); the window turns it into an undoable edit."""
from __future__ import annotations

import json

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QHBoxLayout,
                               QLabel, QLineEdit, QListWidget, QListWidgetItem, QPlainTextEdit, QSpinBox, QVBoxLayout)

from eomlab.engine.model import CONSTRAINT_TYPES, FORCE_TYPES, GROUND, JOINT_TYPES, SHAPE_KINDS, Model, ModelError, \
    joint_type
from eomlab.engine.modelfile.edit_rules import hanging_rotation
from eomlab.gui.editing import edits

THUMBNAIL_SIZE = QSize(180, 135)
_thumbnail_cache: dict[str, QPixmap] = {}


# --- presets and chains -------------------------------------------------------------------------


def preset_names() -> list[str]:
    from eomlab.engine.presets import PRESETS

    return list(PRESETS)


def make_preset(name: str, **params) -> Model:
    from eomlab.engine.presets import preset

    return preset(name, **params)


def chain_model(links: int, spatial: bool, kind: str, length: float, mass: float, angle: float) -> Model:
    """A pendulum chain from the engine's presets, released `angle` rad from hanging straight
    down: planar (revolute joints about z; rods or point masses, every angle 0 hanging straight
    down: the first joint frame is turned so) or 3-D (bars on ball joints, the first one tilted
    by `angle` and turning)."""
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    if not spatial:
        chain = make_preset("planar_chain", n=links, kind=kind, length=length, mass=mass,
                            angles=[float(angle)] + [0.0] * (links - 1))
        data = model_to_dict(chain)
        rotation = hanging_rotation(Model(gravity=chain.gravity), GROUND)
        if rotation is not None:
            data["bodies"][0]["joint"]["rotation"] = rotation
        return model_from_dict(data)
    data = model_to_dict(make_preset("spatial_chain", n=links, length=length, mass=mass))
    for body in data["bodies"]:  # straight down at zero angles (the preset's first frame is turned so)
        body["joint"]["q0"] = [0.0, 0.0, 0.0]
    data["bodies"][0]["joint"]["q0"][1] = float(angle)  # elevation of the first bar away from hanging
    return model_from_dict(data)


def render_thumbnail(model: Model, size: QSize = THUMBNAIL_SIZE) -> QPixmap:
    """Draw the model's initial pose with the 2-D scene into a pixmap."""
    from eomlab.engine.model import is_planar
    from eomlab.engine.simulation import RunView
    from eomlab.gui.scene.scene2d import Scene2D

    scene = Scene2D()
    scene.resize(size)
    scene.set_model(model, planar=is_planar(model))
    for side in ("left", "bottom"):  # after set_model, which labels (and so shows) the axes
        scene.getPlotItem().hideAxis(side)
    scene.time_label.setText("")
    try:
        scene.show_frame(RunView.initial_frame(model))
        scene.time_label.setText("")
    except Exception:  # a thumbnail must never stop the gallery opening
        pass
    pixmap = scene.grab()
    scene.deleteLater()
    return pixmap


def preset_thumbnail(name: str) -> QPixmap:
    if name not in _thumbnail_cache:
        try:
            _thumbnail_cache[name] = render_thumbnail(make_preset(name))
        except Exception:
            pixmap = QPixmap(THUMBNAIL_SIZE)
            pixmap.fill(Qt.lightGray)
            _thumbnail_cache[name] = pixmap
    return _thumbnail_cache[name]



def _finish_dialog(dialog: QDialog, form) -> QLabel:
    """Form, a red error line and OK/Cancel (OK runs dialog._accept); returns the error label."""
    error = QLabel("")
    error.setStyleSheet("color: #b00020;")
    error.setWordWrap(True)
    buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
    buttons.accepted.connect(dialog._accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addLayout(form)
    layout.addWidget(error)
    layout.addWidget(buttons)
    return error


class PresetGallery(QDialog):
    """New from a preset: a grid of thumbnails; double-click or OK opens the chosen one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New model from a preset")
        self.list = QListWidget()
        self.list.setObjectName("preset_list")
        self.list.setViewMode(QListWidget.IconMode)
        self.list.setIconSize(THUMBNAIL_SIZE)
        # room under each picture for a name of two lines (spherical pendulum cartesian)
        self.list.setGridSize(THUMBNAIL_SIZE + QSize(40, 56))
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.ElideNone)
        self.list.setResizeMode(QListWidget.Adjust)
        self.list.setMovement(QListWidget.Static)
        for name in preset_names():
            item = QListWidgetItem(QIcon(preset_thumbnail(name)), name.replace("_", " "))
            item.setData(Qt.UserRole, name)
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        self.resize(760, 520)

    def chosen(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.UserRole) if item is not None else None


class ChainDialog(QDialog):
    """A pendulum chain: links, planar or 3-D, rods or point masses, length, mass, initial angle."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New pendulum chain")
        self.links = QSpinBox(minimum=1, maximum=200, value=3)
        self.dimension = QComboBox()
        self.dimension.addItems(["planar", "3-D"])
        self.kind = QComboBox()
        self.kind.addItems(["rod", "point"])
        # a point mass on a ball joint has no inertia about its link: 3-D chains are bars
        self.dimension.currentTextChanged.connect(self._dimension_changed)
        self.length = QDoubleSpinBox(minimum=0.01, maximum=100.0, value=1.0, decimals=3, suffix=" m")
        self.mass = QDoubleSpinBox(minimum=0.001, maximum=1000.0, value=1.0, decimals=3, suffix=" kg")
        self.angle = QDoubleSpinBox(minimum=-6.3, maximum=6.3, value=1.0, decimals=3, singleStep=0.1, suffix=" rad")
        form = QFormLayout()
        form.addRow("links", self.links)
        form.addRow("motion", self.dimension)
        form.addRow("links are", self.kind)
        form.addRow("link length", self.length)
        form.addRow("link mass", self.mass)
        form.addRow("first link starts at", self.angle)
        form.addRow("", QLabel("(angle from hanging straight down)"))
        self.error = _finish_dialog(self, form)
        self.model: Model | None = None

    def _dimension_changed(self, text: str) -> None:
        spatial = text == "3-D"
        if spatial:
            self.kind.setCurrentText("rod")
        self.kind.setEnabled(not spatial)
        self.kind.setToolTip("3-D chains are bars on ball joints" if spatial else "")

    def build(self) -> Model:
        return chain_model(self.links.value(), self.dimension.currentText() == "3-D", self.kind.currentText(),
                           self.length.value(), self.mass.value(), self.angle.value())

    def _accept(self) -> None:
        try:
            self.model = self.build()
        except (ModelError, ValueError) as error:
            self.error.setText(str(error))
            return
        self.accept()


#: a ball or free joint starts at the identity attitude: four Euler parameters (no gimbal lock)
#: or, as angles, a sequence that is regular at zero (zyx: singular only at a 90° middle angle)
ORIENTATIONS = {"quaternion": "Euler parameters (no gimbal lock)", "angles": "Euler angles"}
ANGLE_SEQUENCE = "zyx"
#: what the size field means, and a shape to start from, per shape
SHAPE_SIZES = {"rod": ("length [m]", "1.0"), "disk": ("radius [m]", "0.25"), "sphere": ("radius [m]", "0.25"),
               "box": ("edges a, b, c [m]", "0.5, 0.3, 0.2"), "point": ("(a point has no size)", "")}


class RigidBodyDialog(QDialog):
    """A new rigid body on a joint: shape, mass, inertia (from the shape or given), initial
    coordinates and rates. Its defaults run as they are; fields the chosen joint or shape does
    not use are disabled; OK checks that the model with the new body can start (the engine's
    own check at t = 0), so a body that could not run is refused here, with the reason."""

    def __init__(self, model: Model, parent_body: str = GROUND, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Add a rigid body")
        self.model_in = model
        template = edits.child_body(model, parent_body)
        self.name = QLineEdit(template["name"])
        self.parent_choice = QComboBox()
        self.parent_choice.addItems([GROUND] + [b.name for b in model.bodies])
        self.parent_choice.setCurrentText(parent_body)
        self.joint = QComboBox()
        self.joint.addItems(list(JOINT_TYPES))
        self.axis = QLineEdit("0, 0, 1")
        self.orientation = QComboBox()
        for key, text in ORIENTATIONS.items():
            self.orientation.addItem(text, key)
        self.sequence = QLineEdit(ANGLE_SEQUENCE)
        self.sequence.setToolTip("three axes, e.g. zyx (regular at zero angles) or zxz (singular at zero)")
        self.at = QLineEdit(", ".join(f"{v:g}" for v in template["joint"]["at"]))
        self.shape = QComboBox()
        self.shape.addItems(list(SHAPE_KINDS))
        self.dimension_label = QLabel()
        self.dimension = QLineEdit("1.0")
        self.mass = QLineEdit("1.0")
        self.com = QLineEdit("0.5, 0, 0")
        self.inertia = QLineEdit("")
        self.inertia.setPlaceholderText("from the shape")
        self.q0 = QLineEdit("0")
        self.u0 = QLineEdit("0")
        form = QFormLayout()
        form.addRow("name", self.name)
        form.addRow("parent", self.parent_choice)
        form.addRow("joint", self.joint)
        form.addRow("joint axis (unit vector)", self.axis)
        form.addRow("attitude", self.orientation)
        form.addRow("Euler sequence", self.sequence)
        form.addRow("joint at [m] (parent frame)", self.at)
        form.addRow("shape", self.shape)
        form.addRow(self.dimension_label, self.dimension)
        form.addRow("mass [kg]", self.mass)
        form.addRow("mass centre [m] (body frame)", self.com)
        form.addRow("principal inertia [kg·m²]", self.inertia)
        form.addRow("initial coordinates [rad, m]", self.q0)
        form.addRow("initial rates [rad/s, m/s]", self.u0)
        self.error = _finish_dialog(self, form)
        self.model: Model | None = None
        self.joint.currentTextChanged.connect(self._joint_changed)
        self.orientation.currentIndexChanged.connect(lambda _i: self._joint_changed(self.joint.currentText()))
        self.shape.currentTextChanged.connect(self._shape_changed)
        self._shape_changed(self.shape.currentText())
        self._joint_changed(self.joint.currentText())

    def _joint_changed(self, kind: str) -> None:
        """Initial values that run for this joint, and only its fields enabled."""
        jt = joint_type(kind)
        angular = jt.orientation
        quaternion = angular and self.orientation.currentData() == "quaternion"
        self.axis.setEnabled(jt.uses_axis)
        self.orientation.setEnabled(angular)
        self.sequence.setEnabled(angular and not quaternion)
        for field in (self.q0, self.u0):
            field.setEnabled(bool(jt.dof))
        self.q0.setText(", ".join(jt.dialog_start(quaternion)))
        self.u0.setText(", ".join(["0"] * jt.dof))
        if angular and self.shape.currentText() in ("rod", "point") and not self.inertia.text().strip():
            # a rod or a point has no inertia about its own axis: on a ball joint it would not run
            self.shape.setCurrentText("box")
        if jt.centred:
            self.com.setText("0, 0, 0")

    def _shape_changed(self, kind: str) -> None:
        label, size = SHAPE_SIZES[kind]
        self.dimension_label.setText(f"shape size: {label}")
        self.dimension.setText(size)
        self.dimension.setEnabled(kind != "point")

    def body_dict(self) -> dict:
        def numbers(edit: QLineEdit):
            text = edit.text().strip()
            if not text:
                return []
            try:
                return json.loads(text if text.startswith("[") else f"[{text}]")
            except ValueError:
                return text  # the engine names what is wrong with it

        shape = {"kind": self.shape.currentText()}
        size = numbers(self.dimension)
        if shape["kind"] == "rod":
            shape["length"] = size[0] if isinstance(size, list) and size else size
        elif shape["kind"] in ("disk", "sphere"):
            shape["radius"] = size[0] if isinstance(size, list) and size else size
        elif shape["kind"] == "box":
            shape["size"] = size
        mass = numbers(self.mass)
        kind = self.joint.currentText()
        joint = {"type": kind, "at": numbers(self.at), "q0": numbers(self.q0), "u0": numbers(self.u0)}
        jt = joint_type(kind)
        if jt.uses_axis:
            joint["axis"] = numbers(self.axis)
        rotation = hanging_rotation(self.model_in, self.parent_choice.currentText())
        if jt.single_turn and joint["axis"] == [0, 0, 1] and rotation is not None:
            joint["rotation"] = rotation  # hangs straight down at angle 0, as Add child body's
        if jt.orientation:
            joint["orientation"] = self.orientation.currentData()
            if joint["orientation"] == "angles":
                joint["sequence"] = self.sequence.text().strip()
        if not jt.dof or not joint["q0"]:
            del joint["q0"]
        if not jt.dof or not joint["u0"]:
            del joint["u0"]
        body = {"name": self.name.text().strip(), "parent": self.parent_choice.currentText(), "joint": joint,
                "mass": mass[0] if isinstance(mass, list) and len(mass) == 1 else mass,
                "com": numbers(self.com), "shape": shape}
        if self.inertia.text().strip():
            body["inertia"] = numbers(self.inertia)
        return body

    def _accept(self) -> None:
        try:
            model = edits.add_body(self.model_in, self.body_dict())
        except ModelError as error:
            self.error.setText(str(error))
            return
        problem = start_problem(model)
        if problem and not start_problem(self.model_in):  # the new body is what stops it
            self.error.setText(problem)
            return
        self.model = model
        self.accept()


def start_problem(model: Model) -> str:
    """Why the model cannot start (the engine's checks at t = 0: mass matrix, gimbal lock,
    constraints), or ''."""
    from eomlab.engine.simulation import Simulation

    try:
        Simulation(model)
    except (ValueError, ArithmeticError) as error:  # ModelError is a ValueError
        return str(error)
    return ""


class ItemDialog(QDialog):
    """A new constraint or force: choose its type, then edit its fields (file form, JSON)."""

    def __init__(self, model: Model, section: str, parent=None):
        super().__init__(parent)
        self.section = section  # "constraints" or "forces"
        self.model_in = model
        self.setWindowTitle("Add a constraint" if section == "constraints" else "Add a force")
        self.kind = QComboBox()
        self.kind.addItems(list(CONSTRAINT_TYPES if section == "constraints" else FORCE_TYPES))
        self.kind.currentTextChanged.connect(self._fill)
        self.text = QPlainTextEdit()
        self.text.setObjectName("item_json")
        self.text.setMinimumSize(QSize(420, 200))
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b00020;")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        top = QHBoxLayout()
        top.addWidget(QLabel("type"))
        top.addWidget(self.kind, 1)
        help_label = QLabel("Fields as in the model file (SI units: m, kg, rad, N). Expressions may use the "
                            "coordinates, their _dot rates and t.")
        help_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(help_label)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.model: Model | None = None
        self._fill(self.kind.currentText())

    def _fill(self, kind: str) -> None:
        template = (edits.constraint_template if self.section == "constraints" else edits.force_template)
        self.text.setPlainText(json.dumps(template(self.model_in, kind), indent=2))

    def _accept(self) -> None:
        try:
            item = json.loads(self.text.toPlainText())
        except ValueError as error:
            self.error.setText(f"not valid JSON: {error}")
            return
        try:
            self.model = edits.add_item(self.model_in, self.section, item)
        except ModelError as error:
            self.error.setText(str(error))
            return
        self.accept()
