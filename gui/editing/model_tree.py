"""The model tree (left dock): bodies nested under their parents with their joint, then the
constraints, the forces and the settings.

The tree is a view: it is rebuilt from the Model after every change and never edits anything
itself. Dragging a body onto another body (or onto "Bodies", the ground) asks for a re-parent
through `reparent_requested`; the window turns that into an undoable edit.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QTreeWidgetItem

from eomlab.engine.model import GROUND, Model

KEY_ROLE = Qt.UserRole + 1


def body_summary(body) -> str:
    shape = body.shape.kind if body.shape is not None else "point"
    return f"{body.joint.type} · {shape} · {body.mass:g} kg"


class ModelTree(QTreeWidget):
    selected = Signal(object)  # node key, e.g. ("body", "upper"), ("settings",)
    reparent_requested = Signal(str, str)  # body, new parent

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("model_tree")
        self.setColumnCount(2)
        self.setHeaderLabels(["Model", "Details"])
        self.setColumnWidth(0, 170)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.InternalMove)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.items: dict[tuple, QTreeWidgetItem] = {}
        self.itemSelectionChanged.connect(self._emit_selection)

    # --- building ------------------------------------------------------------------------------

    def show_model(self, model: Model, select=None) -> None:
        """Rebuild from `model`, keeping (or moving to) the selected node."""
        keep = select if select is not None else self.current_key()
        self.blockSignals(True)
        self.clear()
        self.items = {}
        top = self._add(None, ("model",), f"{model.name}", f"gravity {_vec(model.gravity)} m/s²")
        top.setFlags(top.flags() & ~Qt.ItemIsDragEnabled & ~Qt.ItemIsDropEnabled)
        bodies = self._add(None, ("bodies",), "Bodies", f"{len(model.bodies)} on the ground")
        bodies.setFlags((bodies.flags() | Qt.ItemIsDropEnabled) & ~Qt.ItemIsDragEnabled)
        for body in model.bodies:  # the loader orders parents first
            parent = bodies if body.parent == GROUND else self.items.get(("body", body.parent), bodies)
            item = self._add(parent, ("body", body.name), body.name, body_summary(body))
            item.setFlags(item.flags() | Qt.ItemIsDragEnabled | Qt.ItemIsDropEnabled)
        listed = tuple(model.constraints) + tuple(model.contacts)  # the file's order: contacts last
        constraints = self._add(None, ("constraints",), "Constraints", str(len(listed)))
        for i, c in enumerate(listed):
            self._add(constraints, ("constraint", i), c.name, c.type)
        forces = self._add(None, ("forces",), "Forces", str(len(model.forces)))
        for i, f in enumerate(model.forces):
            self._add(forces, ("force", i), f.name, f.type)
        s = model.settings
        self._add(None, ("settings",), "Settings", f"{s.method} · {s.coordinates} · {s.integrator}")
        for header in (constraints, forces, self.items[("model",)], self.items[("settings",)]):
            header.setFlags(header.flags() & ~Qt.ItemIsDragEnabled & ~Qt.ItemIsDropEnabled)
        self.expandAll()
        self.blockSignals(False)
        item = self.items.get(tuple(keep)) if keep else None
        self.setCurrentItem(item or top)
        self._emit_selection()

    def _add(self, parent, key: tuple, text: str, details: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([text, details])
        item.setData(0, KEY_ROLE, key)
        item.setToolTip(0, details)
        item.setToolTip(1, details)
        if parent is None:
            self.addTopLevelItem(item)
        else:
            parent.addChild(item)
        self.items[key] = item
        return item

    # --- selection -----------------------------------------------------------------------------

    def current_key(self):
        item = self.currentItem()
        return tuple(item.data(0, KEY_ROLE)) if item is not None else None

    def select(self, key) -> None:
        item = self.items.get(tuple(key))
        if item is not None:
            self.setCurrentItem(item)

    def _emit_selection(self) -> None:
        key = self.current_key()
        if key is not None:
            self.selected.emit(key)

    # --- drag and drop: a request, never a move of items -------------------------------------------

    def dropEvent(self, event) -> None:
        dragged = self.currentItem()
        target = self.itemAt(event.position().toPoint())
        event.setDropAction(Qt.IgnoreAction)
        event.accept()
        if dragged is None or target is None:
            return
        key = tuple(dragged.data(0, KEY_ROLE))
        target_key = tuple(target.data(0, KEY_ROLE))
        if key[0] != "body":
            return
        if target_key[0] == "body":
            self.request_reparent(key[1], target_key[1])
        elif target_key == ("bodies",):
            self.request_reparent(key[1], GROUND)

    def request_reparent(self, body: str, new_parent: str) -> None:
        self.reparent_requested.emit(body, new_parent)


def _vec(v) -> str:
    return "[" + ", ".join(f"{x:g}" for x in v) + "]"
