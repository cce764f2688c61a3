"""The 3-D view's right-click menu: body axes, shadows, trails of the mass centres, the camera."""
from __future__ import annotations

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

#: trail choices: none, the last body's mass centre, every body's
TRAILS = ("none", "last body", "every body")


def view_menu(scene, parent) -> QMenu:
    """Body axes, trails, shadows and the camera of `scene` (gui/scene/scene3d.py), as a menu."""
    menu = QMenu("3-D view", parent)
    axes = menu.addAction("Body axes")
    axes.setCheckable(True)
    axes.setChecked(scene.show_axes)
    axes.toggled.connect(scene.set_axes_visible)
    shadows = menu.addAction("Shadows")
    shadows.setCheckable(True)
    shadows.setChecked(scene.show_shadows)
    shadows.toggled.connect(scene.set_shadows_visible)
    trails = menu.addMenu("Trail of the mass centres")
    group = QActionGroup(trails)
    for choice in TRAILS:
        action = QAction(choice, trails, checkable=True, checked=choice == scene.trail_choice)
        action.triggered.connect(lambda _c=False, k=choice: scene.set_trail(k))
        group.addAction(action)
        trails.addAction(action)
    menu.addSeparator()
    menu.addAction("Reset camera", scene.reset_camera)
    return menu
