"""The toolbar's model settings: formulation, coordinates, integrator, tolerances and constraint
stabilization. Each choice is an undoable edit of the model's settings; `sync` shows a model's."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QLabel

from eomlab.engine.methods import BAUMGARTE_DEFAULT
from eomlab.engine.model import COORDINATES, INTEGRATORS, STABILIZATIONS
from eomlab.gui.editing import edits
from eomlab.gui.style.method_styles import available_methods, method_label

TOLERANCES = ["1e-4", "1e-6", "1e-8", "1e-9", "1e-10", "1e-12"]
#: the boxes presentation mode hides (with their labels): the run's fine print
FINE_PRINT = ("coordinates_box", "integrator_box", "rtol_box", "atol_box", "stabilization_box")


def _combo(items, tip, slot, data=None, editable=False) -> QComboBox:
    box = QComboBox()
    box.setToolTip(tip)
    for i, text in enumerate(items):
        box.addItem(text, data[i] if data else text)
    box.setEditable(editable)
    box.setSizeAdjustPolicy(QComboBox.AdjustToContents)
    if editable:
        box.lineEdit().editingFinished.connect(slot)
    box.activated.connect(lambda _i: slot())
    return box


class SettingsBar(QObject):
    def __init__(self, edit, window):
        """`edit(make, description)`: applies an undoable edit (EditActions.edit)."""
        super().__init__(window)
        self.window = window
        self.edit = edit
        methods = available_methods()
        self.method_box = _combo([method_label(m) for m in methods], "Formulation of the equations of motion",
                                 lambda: self.set_setting("method", self.method_box.currentData()), list(methods))
        self.coordinates_box = _combo(list(COORDINATES), "joint: minimal tree coordinates; absolute: each body's pose",
                                      lambda: self.set_setting("coordinates", self.coordinates_box.currentData()))
        self.integrator_box = _combo(list(INTEGRATORS), "Integrator",
                                     lambda: self.set_setting("integrator", self.integrator_box.currentData()))
        self.rtol_box = _combo(TOLERANCES, "Relative tolerance", lambda: self._set_tolerance("rtol", self.rtol_box),
                               editable=True)
        self.atol_box = _combo(TOLERANCES, "Absolute tolerance", lambda: self._set_tolerance("atol", self.atol_box),
                               editable=True)
        self.stabilization_box = _combo(list(STABILIZATIONS), "Constraint stabilization", self._set_stabilization)

    def add_to(self, bar) -> None:
        for label, widget in (("Formulation", self.method_box), ("Coordinates", self.coordinates_box),
                              ("Integrator", self.integrator_box), ("rtol", self.rtol_box), ("atol", self.atol_box),
                              ("Stabilization", self.stabilization_box)):
            bar.addWidget(QLabel(f" {label} "))
            bar.addWidget(widget)

    def fine_print(self) -> list[QComboBox]:
        return [getattr(self, name) for name in FINE_PRINT]

    @property
    def model(self):
        return self.window.model

    def sync(self, settings) -> None:
        for box, value in ((self.method_box, settings.method), (self.coordinates_box, settings.coordinates),
                           (self.integrator_box, settings.integrator),
                           (self.stabilization_box, settings.stabilization.kind)):
            box.blockSignals(True)
            box.setCurrentIndex(max(0, box.findData(value)))
            box.blockSignals(False)
        for box, value in ((self.rtol_box, settings.rtol), (self.atol_box, settings.atol)):
            box.blockSignals(True)
            box.setEditText(f"{value:g}")
            box.blockSignals(False)

    def set_setting(self, name: str, value) -> None:
        self.edit(lambda m: edits.set_field(m, ("settings", name), value), f"{name} = {value}")
        self.sync(self.model.settings)

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
        self.sync(self.model.settings)
