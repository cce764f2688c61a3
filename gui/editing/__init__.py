"""Editing the model: the open document and its undo stack, the tree, the inspector, the dialogs, the live parameters and the settings bar."""
