"""The 2-D view's contact layer: the ground line with hatching, the contact spheres (dashed
circles), and an impulse arrow that flashes where a contact closes (gui/scene/contacts.py)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from eomlab.gui.scene.contacts import ContactGeometry
from eomlab.gui.scene.scene_curve import SceneCurve

GROUND_HALF_LENGTH = 50.0  # m each way from the origin (the view is fitted to the mechanism, not to this)
HATCH_SPACING = 0.1  # m
CIRCLE_POINTS = 72
ARROW_COLOUR = "#D55E00"  # vermilion (Okabe–Ito), the colour of impacts in both views


def _curve(pen, connect) -> SceneCurve:
    curve = SceneCurve(pen=pen, connect=connect)
    curve.setData([], [])
    return curve


class ContactLayer2D:
    """Items added to a PlotItem; `set_model` then `show(frame, project)` per frame."""

    def __init__(self, plot_item):
        self.ground = _curve(pg.mkPen("#333", width=3), "all")
        self.hatch = _curve(pg.mkPen("#777", width=1.2), "pairs")
        self.spheres = _curve(pg.mkPen("#0072B2", width=2.5, style=Qt.DashLine), "finite")
        self.arrows = _curve(pg.mkPen(ARROW_COLOUR, width=5, cap=Qt.RoundCap), "pairs")
        for item in (self.hatch, self.ground, self.spheres, self.arrows):
            item.setZValue(5)
            plot_item.addItem(item)
        self.geometry: ContactGeometry | None = None
        self.scale = 1.0  # arrow length per unit of the picture (set from the model's size)

    def set_model(self, model, project) -> None:
        self.geometry = ContactGeometry(model) if model is not None and model.contacts else None
        for item in (self.ground, self.hatch, self.spheres, self.arrows):
            item.setData([], [])
        if self.geometry is None or not self.geometry.has_ground:
            return
        n = self.geometry.normal
        along = np.cross(n, [0.0, 0.0, 1.0])
        if np.linalg.norm(along) < 1e-9:
            along = np.cross(n, [1.0, 0.0, 0.0])
        along /= np.linalg.norm(along)
        ends = project(np.array([-GROUND_HALF_LENGTH * along, GROUND_HALF_LENGTH * along]))
        self.ground.setData(ends[:, 0], ends[:, 1])
        s = np.arange(-GROUND_HALF_LENGTH, GROUND_HALF_LENGTH, HATCH_SPACING)
        starts = s[:, None] * along
        stops = starts - 0.06 * (n + along)
        segments = project(np.stack([starts, stops], axis=1).reshape(-1, 3))
        self.hatch.setData(segments[:, 0], segments[:, 1])

    def show(self, frame, project) -> None:
        if self.geometry is None or frame is None:
            return
        circles = []
        angles = np.linspace(0.0, 2 * np.pi, CIRCLE_POINTS)
        e1, e2 = project.matrix[0], project.matrix[1]  # circles in the drawing plane
        for centre, radius in self.geometry.spheres(frame):
            ring = centre + radius * (np.cos(angles)[:, None] * e1 + np.sin(angles)[:, None] * e2)
            circles.append(project(ring))
            circles.append(np.full((1, 2), np.nan))
        xy = np.concatenate(circles) if circles else np.zeros((0, 2))
        self.spheres.setData(xy[:, 0], xy[:, 1])
        touches = self.geometry.flashing(frame)
        if not touches:
            self.arrows.setData([], [])
            return
        length = max(0.15, 3.0 * max(r for _, r in self.geometry.spheres(frame)))
        pairs = []
        for touch in touches:
            tip = touch.point + length * touch.normal
            head = 0.3 * length
            side = np.cross(touch.normal, [0.0, 0.0, 1.0]) if abs(touch.normal[2]) < 0.9 else np.array([1.0, 0, 0])
            side = side / max(np.linalg.norm(side), 1e-12)
            pairs += [touch.point, tip, tip, tip - head * (touch.normal + 0.5 * side),
                      tip, tip - head * (touch.normal - 0.5 * side)]
        xy = project(np.array(pairs))
        self.arrows.setData(xy[:, 0], xy[:, 1])
