"""Editing the model from the window: the Edit menu (undo, redo, add and delete bodies, constraints
and forces), the tree's drag to re-hang a body, and new models from a preset or a chain. Every
change is one undoable edit of the document (gui/editing/document.py)."""
from __future__ import annotations

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QKeySequence

from eomlab.engine.model import GROUND, Model, ModelError
from eomlab.gui.editing import edits


class EditActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.document = window.document
        self.tree = window.tree
        a = window.action
        self.act_new_preset = a("New from preset…", self.new_from_preset, QKeySequence.New)
        self.act_new_chain = a("New pendulum chain…", self.new_chain)
        self.act_undo = self.document.undo_stack.createUndoAction(window, "Undo")
        self.act_undo.setShortcut(QKeySequence("Ctrl+Z"))
        self.act_redo = self.document.undo_stack.createRedoAction(window, "Redo")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.act_add_body = a("Add rigid body…", self.add_body_dialog)
        self.act_add_child = a("Add child body", self.add_child_body, "Ctrl+B", "A 1 m rod hanging from the selected body")
        self.act_delete = a("Delete", self.delete_selected, QKeySequence.Delete)
        self.act_add_constraint = a("Add constraint…", lambda: self.add_item_dialog("constraints"))
        self.act_add_force = a("Add force…", lambda: self.add_item_dialog("forces"))
        for action in (self.act_add_child, self.act_add_body, self.act_delete, self.act_add_constraint,
                       self.act_add_force):
            self.tree.addAction(action)
        self.tree.reparent_requested.connect(self.reparent_body)

    def fill_menu(self, menu) -> None:
        for action in (self.act_undo, self.act_redo):
            menu.addAction(action)
        menu.addSeparator()
        for action in (self.act_add_child, self.act_add_body, self.act_add_constraint, self.act_add_force,
                       self.act_delete):
            menu.addAction(action)

    @property
    def model(self) -> Model:
        return self.document.model

    def edit(self, make, description: str, select=None) -> bool:
        """Apply an edit (a function of the current model returning the new one) as an undoable
        command; a refused edit leaves the model and shows the engine's message."""
        try:
            after = make(self.model)
        except ModelError as error:
            self.window.show_problem("Edit refused", str(error), modal=False)
            return False
        return self.document.apply(after, description, select)

    def selected_body(self) -> str | None:
        key = self.tree.current_key()
        return key[1] if key and key[0] == "body" else None

    def add_child_body(self, parent: str | None = None) -> None:
        parent = parent or self.selected_body() or GROUND
        body = edits.child_body(self.model, parent)
        self.edit(lambda m: edits.add_body(m, body), f"Add body {body['name']} under {parent}",
                  ("body", body["name"]))

    def add_body_dialog(self) -> None:
        from eomlab.gui.editing.dialogs import RigidBodyDialog

        dialog = RigidBodyDialog(self.model, self.selected_body() or GROUND, self.window)
        if dialog.exec() and dialog.model is not None:
            name = dialog.name.text().strip()
            self.edit(lambda _m: dialog.model, f"Add body {name}", ("body", name))

    def add_item_dialog(self, section: str) -> None:
        from eomlab.gui.editing.dialogs import ItemDialog

        dialog = ItemDialog(self.model, section, self.window)
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
                self.window.show_problem("Delete refused", str(error), modal=False)
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
        from eomlab.gui.editing.dialogs import PresetGallery, make_preset

        if not self.window.confirm_discard():
            return
        gallery = PresetGallery(self.window)
        if gallery.exec() and gallery.chosen():
            self.load_model(make_preset(gallery.chosen()), None, f"New model from preset {gallery.chosen()}")

    def new_chain(self) -> None:
        from eomlab.gui.editing.dialogs import ChainDialog

        if not self.window.confirm_discard():
            return
        dialog = ChainDialog(self.window)
        if dialog.exec() and dialog.model is not None:
            self.load_model(dialog.model, None, f"New chain of {dialog.links.value()} links")

    def load_model(self, model: Model, path: str | None, description: str) -> None:
        """Replace the document (no undo across documents) and start running it."""
        self.window.session.run_next_model()
        self.document.load(model, path, description)
