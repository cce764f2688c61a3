"""The mechanisms of a comparison: the other runs as translucent ghosts over the main 2-D scene,
or one small scene per run (tiles). Each is given its run's pose at the session's cursor, so all
show the same instant."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QWidget

from eomlab.engine.model import Model
from eomlab.gui.scene.geometry import drawing
from eomlab.gui.single_shot import single_shot
from eomlab.gui.style.method_styles import method_ink, method_label, method_style
from eomlab.gui.scene.scene2d import Scene2D, _pairs

#: opacity of a ghost mechanism (0–255)
GHOST_ALPHA = 110


class Ghosts:
    """The other runs drawn translucent over the main 2-D scene, one colour per formulation."""

    def __init__(self, scene: Scene2D):
        self.scene = scene
        self.items: dict[str, tuple] = {}
        self.times: dict[str, float] = {}  # the instant each ghost shows

    def show(self, frames: list[tuple[str, object]]) -> None:
        """frames: (method, Frame) of every run but the main one."""
        wanted = {method for method, _ in frames}
        for method in list(self.items):
            if method not in wanted:
                self._remove(method)
        model = self.scene.model
        if model is None:
            return
        for method, frame in frames:
            if frame is None:
                continue
            rods, links = self.items.get(method) or self._add(method)
            picture = drawing(model, frame.rotations, frame.origins, frame.mass_centres)
            rods.setData(*_pairs(picture.rods, self.scene.project))
            links.setData(*_pairs(picture.links + [np.array([c, c]) for c in picture.mass_centres],
                                  self.scene.project))
            self.times[method] = frame.t

    def _add(self, method: str) -> tuple:
        color = QColor(method_style(method)[0])
        color.setAlpha(GHOST_ALPHA)
        item = self.scene.getPlotItem()
        rods = item.plot([], [], pen=pg.mkPen(color, width=9, cap=Qt.RoundCap), connect="pairs")
        links = item.plot([], [], pen=pg.mkPen(color, width=3, cap=Qt.RoundCap), connect="pairs")
        for curve in (rods, links):
            curve.setZValue(-1)  # under the main mechanism
        self.items[method] = (rods, links)
        return rods, links

    def _remove(self, method: str) -> None:
        for curve in self.items.pop(method):
            self.scene.getPlotItem().removeItem(curve)
        self.times.pop(method, None)

    def clear(self) -> None:
        for method in list(self.items):
            self._remove(method)


class TiledScenes(QWidget):
    """One small 2-D scene per run (3-D models in the oblique projection), titled by method."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compare_tiles")
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(2)
        self.scenes: dict[str, Scene2D] = {}
        self.title_px = 0  # 0: pyqtgraph's default title size
        self.columns = 0
        self.spare: list[Scene2D] = []  # tiles of methods no longer compared, kept for reuse
        self.waiting: list[str] = []  # methods whose tiles are still to be made
        self.generation = 0
        self.model = None

    def set_runs(self, model: Model, methods: list[str]) -> None:
        """A tile per method. The tiles of the last runs are kept for the same methods (a settings
        edit restarts the runs) and spare ones taken for others; a tile still missing is made one
        per turn of the event loop (a Scene2D takes 0.1-0.4 s to make: five at once stalled the
        window for seconds at Ctrl+M, issue 31)."""
        old = self.scenes
        self.spare += [scene for method, scene in old.items() if method not in methods]
        for scene in self.spare:
            self.grid.removeWidget(scene)
            scene.setVisible(False)
        self.scenes = {}
        self.columns = 0
        self.model = model
        self.waiting = [m for m in methods]
        self.generation += 1
        while self.waiting and (self.waiting[0] in old or self.spare):
            method = self.waiting.pop(0)
            self._place(method, old.get(method) or self.spare.pop())
        if self.waiting:
            single_shot(0, self, lambda g=self.generation: self._make_next(g))  # dies with the tiles
        self._arrange()

    def _place(self, method: str, scene: Scene2D) -> None:
        scene.setObjectName(f"tile_{method}")
        scene.set_model(self.model)
        scene.setVisible(True)
        self.scenes[method] = scene
        self.retitle(method)

    def _make_next(self, generation: int) -> None:
        if generation != self.generation or not self.waiting:
            return  # runs started again since: that set_runs placed its own tiles
        self._place(self.waiting.pop(0), Scene2D())
        self.columns = 0
        self._arrange()
        if self.waiting:
            single_shot(0, self, lambda: self._make_next(generation))

    def _arrange(self) -> None:
        """As many columns as make each tile's mechanism largest: the reach's shape against the
        tiles' shape (a wide, low strip takes the tiles side by side)."""
        n = len(self.scenes)
        if not n:
            return
        box = next(iter(self.scenes.values())).reach_box
        reach_w, reach_h = (box[2] - box[0], box[3] - box[1]) if box is not None else (1.0, 1.0)
        reach_w, reach_h = max(reach_w, 1e-9), max(reach_h, 1e-9)
        width, height = max(self.width(), 1), max(self.height(), 1)
        columns = max(range(1, n + 1), key=lambda c: min(width / c / reach_w, height / -(-n // c) / reach_h))
        if columns == self.columns:
            return
        self.columns = columns
        for scene in self.scenes.values():
            self.grid.removeWidget(scene)
        for i, scene in enumerate(self.scenes.values()):
            self.grid.addWidget(scene, i // columns, i % columns)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def retitle(self, method: str) -> None:
        """The tile's title: the method's name in its (readable) colour; each tile's own clock
        (Scene2D.time_label) says the instant it shows."""
        size = {"size": f"{self.title_px}px"} if self.title_px else {}
        self.scenes[method].getPlotItem().setTitle(
            f'<span style="color:{method_ink(method)}"><b>{method_label(method)}</b></span>', **size)

    def show_frames(self, frames: list[tuple[str, object]]) -> None:
        for method, frame in frames:
            if method in self.scenes and frame is not None:
                self.scenes[method].show_frame(frame)
        self._arrange()  # the reach is known once a pose is drawn
