"""The 3-D view's contact layer: each contact sphere as three great circles, the floor put on the
ground plane of ground contacts, and an impulse arrow that flashes where a contact closes
(gui/scene/contacts.py). Built inside gui.scene.scene3d.make_scene3d, where OpenGL is there."""
from __future__ import annotations

import numpy as np

from eomlab.gui.scene.contacts import ContactGeometry

CIRCLE_POINTS = 48
SPHERE_RGBA = (0.0, 0.45, 0.7, 1.0)  # blue (Okabe–Ito)
ARROW_RGBA = (0.84, 0.37, 0.0, 1.0)  # vermilion: impacts in both views


def _rings(centre: np.ndarray, radius: float) -> list[np.ndarray]:
    a = np.linspace(0.0, 2 * np.pi, CIRCLE_POINTS + 1)
    c, s = np.cos(a) * radius, np.sin(a) * radius
    zero = np.zeros_like(a)
    rings = [np.column_stack(v) for v in ((c, s, zero), (c, zero, s), (zero, c, s))]
    return [centre + ring for ring in rings]


def _segments(polylines: list[np.ndarray]) -> np.ndarray:
    parts = [np.repeat(p, 2, axis=0)[1:-1] for p in polylines if len(p) > 1]
    return np.concatenate(parts) if parts else np.zeros((0, 3))


class ContactLayer3D:
    def __init__(self, gl, add_item):
        self.spheres = gl.GLLinePlotItem(mode="lines", color=SPHERE_RGBA, width=2, antialias=True)
        self.arrows = gl.GLLinePlotItem(mode="lines", color=ARROW_RGBA, width=6, antialias=True)
        for item in (self.spheres, self.arrows):
            item.setGLOptions("translucent")
            add_item(item)
        self.geometry: ContactGeometry | None = None
        self.turn = np.eye(3)

    def set_model(self, model, turn: np.ndarray) -> None:
        self.geometry = ContactGeometry(model) if model is not None and model.contacts else None
        self.turn = turn
        for item in (self.spheres, self.arrows):
            item.setData(pos=np.zeros((0, 3)))

    def floor(self, floor_z: float) -> float:
        """The floor's height: the ground plane (0, through the origin) when a contact has the ground."""
        return 0.0 if self.geometry is not None and self.geometry.has_ground else floor_z

    def show(self, frame) -> None:
        if self.geometry is None or frame is None:
            return
        turn = self.turn
        spheres = self.geometry.spheres(frame)
        rings = [ring for centre, radius in spheres for ring in _rings(turn @ centre, radius)]
        self.spheres.setData(pos=_segments(rings))
        touches = self.geometry.flashing(frame)
        if not touches:
            self.arrows.setData(pos=np.zeros((0, 3)))
            return
        length = max(0.15, 3.0 * max(r for _, r in spheres))
        lines = []
        for touch in touches:
            p, n = turn @ touch.point, turn @ touch.normal
            side = np.cross(n, [0.0, 0.0, 1.0]) if abs(n[2]) < 0.9 else np.cross(n, [1.0, 0.0, 0.0])
            side /= np.linalg.norm(side)
            tip, head = p + length * n, 0.3 * length
            lines += [p, tip, tip, tip - head * (n + 0.5 * side), tip, tip - head * (n - 0.5 * side)]
        self.arrows.setData(pos=np.array(lines))
