"""Painting arrows: in the 2-D scene (pyqtgraph items over the mechanism, sized in pixels) and in
the 3-D view (GL lines drawn on top of the solids). Each painter takes the `ArrowSet`s of
gui/arrows/arrow_sets.py and the `Scales`.

Vectors are shafts with a head; couples are arcs round their point with a head (planar models:
a torque about z) or double-headed arrows (3-D).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from eomlab.gui.arrows.arrow_sets import COUPLE_UNIT, DRAW_ORDER, KINDS, WIDTHS, ArrowSet, couple_key
from eomlab.gui.scene.geometry import reach
from eomlab.gui.scene.scene_curve import SceneCurve

#: arrow shafts and heads, pixels; in 3-D a light halo round each arrow keeps it visible on any body
PEN_WIDTH = 3.5
HALO_PX = 3.0
HALO_COLOUR = (255, 255, 255, 220)
HEAD_PX = 15.0
HEAD_ANGLE = math.radians(26)
#: 2-D shaft and barb ends: square, as round as they need be at 3.5 px; Qt's raster engine strokes an
#: antialiased path of round-capped segments many times slower
CAP = Qt.SquareCap
#: couples in 2-D: arcs of this radius (px); their length along the arc is the couple's size
ARC_RADIUS_PX = 18.0
ARC_MAX_TURN = math.radians(330)


#: no arrow is drawn longer than this share of the view's smaller side (a typical one is 0.3 of it)
LONGEST_ARROW_SHARE = 1.2
#: arrows under this share of the model's own scale of their unit are round-off, not drawn
#: (a "couple" of 2e-17 N·m on a pendulum whose m·g·l is 10 N·m)
NOISE_SHARE = 1e-9


def noise_floors(model) -> dict[str, float]:
    """Per unit, the magnitude under which an arrow is round-off for this model: NOISE_SHARE of
    its scale from the total mass M, the reach L and the acceleration a = max(|g|, L/s²) (1 s
    makes a scale where gravity is off): forces M·a, couples M·a·L, speeds √(aL), rates √(a/L)."""
    if model is None or not model.bodies:
        return {}
    mass = sum(b.mass for b in model.bodies) or 1.0
    length = reach(model)
    accel = max(float(np.linalg.norm(model.gravity)), length)
    speed = math.sqrt(accel * length)
    scales = {"m/s": speed, "N": mass * accel, COUPLE_UNIT: mass * accel * length, "rad/s": speed / length,
              "kg·m²/s": mass * speed * length}
    return {unit: NOISE_SHARE * value for unit, value in scales.items()}


def above_noise(arrow_set: ArrowSet, kind: str, floors: dict[str, float]) -> ArrowSet:
    """`arrow_set` without its vectors and couples under the noise floor of their unit."""
    vector_floor, couple_floor = floors.get(KINDS[kind][3], 0.0), floors.get(COUPLE_UNIT, 0.0)
    keep = np.linalg.norm(arrow_set.vectors, axis=1) > vector_floor if len(arrow_set.vectors) else None
    keep_couples = np.linalg.norm(arrow_set.couples, axis=1) > couple_floor if len(arrow_set.couples) else None
    if (keep is None or keep.all()) and (keep_couples is None or keep_couples.all()):
        return arrow_set
    return ArrowSet(arrow_set.points[keep] if keep is not None else arrow_set.points,
                    arrow_set.vectors[keep] if keep is not None else arrow_set.vectors,
                    arrow_set.couple_points[keep_couples] if keep_couples is not None else arrow_set.couple_points,
                    arrow_set.couples[keep_couples] if keep_couples is not None else arrow_set.couples)


def capped(d: np.ndarray, longest: float) -> np.ndarray:
    """Rows of `d` no longer than `longest` (a longer one keeps its direction)."""
    if not len(d):
        return d
    length = np.sqrt(np.einsum("ij,ij->i", d, d))
    over = length > longest
    if not over.any():
        return d
    d = d.copy()
    d[over] *= (longest / length[over])[:, None]
    return d


class _Floors:
    """The noise floors of the scene's model, worked out once per model."""

    def __init__(self, scene):
        self.scene, self.model, self.floors = scene, None, {}

    def __call__(self) -> dict[str, float]:
        model = getattr(self.scene, "model", None)
        if model is not self.model:
            self.model, self.floors = model, noise_floors(model)
        return self.floors


_HEAD_TURNS = np.array([[[math.cos(HEAD_ANGLE), sign * math.sin(HEAD_ANGLE)],
                         [-sign * math.sin(HEAD_ANGLE), math.cos(HEAD_ANGLE)]] for sign in (1.0, -1.0)])


def _heads_2d(tails: np.ndarray, tips: np.ndarray, head: float) -> np.ndarray:
    """Point pairs (2k, 2) of both barbs of the heads at `tips`, `head` long (data units)."""
    return _shafts_and_heads(tails, tips, head)[1:].reshape(-1, 2)


def _shafts_and_heads(tails: np.ndarray, tips: np.ndarray, head: float) -> np.ndarray:
    """(3, k, 2, 2): the point pairs of the k shafts, then of one barb of each head at the tips,
    then of the other; a barb `head` long (data units) or 0.45 of its arrow when that is shorter."""
    d = tips - tails
    length = np.sqrt(np.einsum("ij,ij->i", d, d))[:, None]
    back = d * (-np.minimum(head, 0.45 * length) / np.where(length > 0, length, 1.0))  # tip → tail, head long
    out = np.empty((3, len(tips), 2, 2))
    out[0, :, 0], out[:, :, 1] = tails, tips
    out[1:, :, 0] = tips
    out[1:, :, 1] += back @ _HEAD_TURNS  # (2, k, 2): back turned both ways
    return out


class _ArrowPainter:
    """What the 2-D and 3-D painters share: the scene, what each kind was drawn with, the pen scale and the
    floors; `restyle` widens the pens (presentation mode, zoom) through the painter's own `_widen`."""

    def __init__(self, scene):
        self.scene = scene
        self.items = {}
        self._drawn: dict = {}  # kind → what it was drawn with (arrows, projection, scales, pixels); None: nothing
        self.drawn_pixels = 0.0  # the view's smaller side at the last draw (the legend's scales)
        self.line_scale = 1.0
        self.floors = _Floors(scene)

    def restyle(self, line_scale: float) -> None:
        """Pens `line_scale` times as wide; heads grow with them."""
        if line_scale != self.line_scale:
            self.line_scale = line_scale
            self._widen(line_scale)


class FlatArrows(_ArrowPainter):
    """Arrows in the 2-D scene (gui/scene/scene2d.py): one item of shafts and heads, one of arcs, per
    kind, in the drawing plane of the scene's projection."""

    def __init__(self, scene):
        super().__init__(scene)
        plot = scene.getPlotItem()
        # no halo here: the view is light and a wide antialiased pen is Qt's slow stroker (a halo
        # round 60 arrows tripled the cost of painting the scene)
        for order, kind in enumerate(DRAW_ORDER):
            pen = pg.mkPen(KINDS[kind][2], width=WIDTHS.get(kind, PEN_WIDTH), cap=CAP)
            # lighter than PlotDataItem; the shafts and heads are finite (arrow_sets keeps finite arrows
            # only): no finite check when painted
            lines = SceneCurve([], [], pen=pen, connect="pairs", skipFiniteCheck=True)
            arcs = SceneCurve([], [], pen=pen, connect="finite")
            for item in (lines, arcs):
                item.setZValue(30 + order)  # over the mechanism
                item.setVisible(False)  # until it has arrows to show
                plot.addItem(item, ignoreBounds=True)  # never widens the fitted view
            self.items[kind] = [(lines, arcs)]
        self._holding: set = set()  # the items that hold data (an empty one is not set again)

    def _widen(self, line_scale: float) -> None:
        for kind, pairs in self.items.items():
            pen = pg.mkPen(KINDS[kind][2], width=WIDTHS.get(kind, PEN_WIDTH) * line_scale, cap=CAP)
            for lines, arcs in pairs:
                lines.setPen(pen)
                arcs.setPen(pen)

    def view_pixels(self) -> float:
        box = self.scene.getPlotItem().getViewBox().boundingRect()
        return float(min(box.width(), box.height()))

    def _set(self, item, xy) -> None:
        """Put the points (k, 2) in `item` (None or nothing: empty it, once)."""
        if xy is None or not len(xy):
            if item in self._holding:
                item.setData([], [])
                item.setVisible(False)  # not asked for its bounds nor painted at every frame
                self._holding.discard(item)
            return
        item.setData(xy[:, 0], xy[:, 1])
        item.setVisible(True)
        self._holding.add(item)

    def draw(self, sets: dict, scales) -> None:
        """Draw `sets` ({kind: ArrowSet}) at the scales of `scales` (a kind whose arrows, scales and
        zoom are those it shows already is left as it is: a pan or a repaint of the same sample)."""
        view = self.scene.getPlotItem().getViewBox()
        px = view.viewPixelSize()[0] or 1.0  # data units per pixel (the aspect is locked)
        pixels = self.drawn_pixels = self.view_pixels()
        project = self.scene.project
        for kind, pairs in self.items.items():
            arrow_set = sets.get(kind)
            if arrow_set is None or arrow_set.empty:
                self._drawn.pop(kind, None)
                for lines, arcs in pairs:
                    self._set(lines, None)
                    self._set(arcs, None)
                continue
            per_px, couple_per_px = scales.per_pixel(kind, pixels), scales.per_pixel(couple_key(kind), pixels)
            drawn, look = self._drawn.get(kind), (per_px, couple_per_px, px, self.line_scale)
            if drawn is not None and drawn[0] is arrow_set and drawn[1] is project and drawn[2] == look:
                continue
            self._drawn[kind] = (arrow_set, project, look)
            arrow_set = above_noise(arrow_set, kind, self.floors())
            tails = arrow_set.points @ project.matrix.T
            tips = tails + capped(arrow_set.vectors @ (project.matrix.T * (px / per_px)), LONGEST_ARROW_SHARE * pixels * px)
            head = HEAD_PX * px * math.sqrt(self.line_scale)
            segments = [_shafts_and_heads(tails, tips, head).reshape(-1, 2)]
            couple_lines = self._couples(arrow_set, couple_per_px, px, segments, head)
            xy = segments[0] if len(segments) == 1 else np.concatenate(segments)
            for lines, arcs in pairs:
                self._set(lines, xy)
                self._set(arcs, couple_lines)

    def clear(self) -> None:
        self._drawn.clear()
        for pairs in self.items.values():
            for lines, arcs in pairs:
                self._set(lines, None)
                self._set(arcs, None)

    def _couples(self, arrow_set, per_px: float, px: float, segments: list, head: float) -> np.ndarray:
        """Arcs (NaN-separated polylines) for z couples of a planar model; a 3-D couple seen in the
        oblique projection is a double-headed arrow added to `segments`."""
        if not len(arrow_set.couples):
            return np.zeros((0, 2))
        project = self.scene.project
        centres = project(arrow_set.couple_points)
        planar = np.allclose(project.matrix, [[1, 0, 0], [0, 1, 0]])
        if not planar:
            tips = centres + capped(project(arrow_set.couples) / per_px * px, LONGEST_ARROW_SHARE * self.drawn_pixels * px)
            inner = tips - 0.6 * head * _unit_rows(tips - centres)
            segments += [np.stack((centres, tips), axis=1).reshape(-1, 2), _heads_2d(centres, tips, head),
                         _heads_2d(centres, inner, head)]
            return np.zeros((0, 2))
        parts = []
        r = ARC_RADIUS_PX * px
        for centre, tz in zip(centres, arrow_set.couples[:, 2]):
            turn = min(abs(tz) / per_px / ARC_RADIUS_PX, ARC_MAX_TURN) * np.sign(tz)
            angles = np.linspace(0.0, turn, 32) - 0.5 * math.pi  # from below the point, counter-clockwise for +z
            arc = centre + r * np.column_stack((np.cos(angles), np.sin(angles)))
            tangent = np.sign(tz) * np.array([-math.sin(angles[-1]), math.cos(angles[-1])])
            barbs = _heads_2d(arc[-1:] - tangent, arc[-1:], head)
            parts += [arc, np.full((1, 2), np.nan), barbs[:2], np.full((1, 2), np.nan), barbs[2:],
                      np.full((1, 2), np.nan)]
        return np.concatenate(parts)


def _unit_rows(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(n > 0, n, 1.0)


def _perpendiculars(unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    helper = np.where(np.abs(unit[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    a = _unit_rows(np.cross(unit, helper))
    return a, np.cross(unit, a)


def heads_3d(tails: np.ndarray, tips: np.ndarray, head: float) -> np.ndarray:
    """Point pairs of four barbs per head at `tips` (a cone of lines), `head` long at most."""
    d = tips - tails
    length = np.linalg.norm(d, axis=1, keepdims=True)
    unit = _unit_rows(d)
    h = np.minimum(head, 0.45 * length)
    a, b = _perpendiculars(unit)
    base = tips - h * unit * math.cos(HEAD_ANGLE)
    spread = h * math.sin(HEAD_ANGLE)
    pairs = [np.stack((tips, base + sign * spread * side), axis=1) for side in (a, b) for sign in (1.0, -1.0)]
    return np.concatenate(pairs).reshape(-1, 3)


class SpaceArrows(_ArrowPainter):
    """Arrows in the 3-D view (gui/scene/scene3d.py): one GL line item per kind, drawn over the solids
    (no depth test: an arrow inside a body stays visible). Lengths are pixels at the depth of the
    view's centre."""

    def __init__(self, scene):
        import pyqtgraph.opengl as gl
        from OpenGL import GL

        super().__init__(scene)
        on_top = {GL.GL_DEPTH_TEST: False, GL.GL_BLEND: True, GL.GL_CULL_FACE: False,
                  "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)}
        halo = tuple(c / 255 for c in HALO_COLOUR)
        halos = {kind: gl.GLLinePlotItem(mode="lines", color=halo, width=WIDTHS.get(kind, PEN_WIDTH) + 2 * HALO_PX,
                                         antialias=True) for kind in DRAW_ORDER}
        for kind in DRAW_ORDER:  # GL draws in the order added: every halo first
            halos[kind].setGLOptions(on_top)
            scene.addItem(halos[kind])
        for kind in DRAW_ORDER:
            item = gl.GLLinePlotItem(mode="lines", color=pg.mkColor(KINDS[kind][2]).getRgbF(),
                                     width=WIDTHS.get(kind, PEN_WIDTH), antialias=True)
            item.setGLOptions(on_top)
            scene.addItem(item)
            self.items[kind] = (halos[kind], item)

    def _widen(self, line_scale: float) -> None:
        for kind, (halo, item) in self.items.items():
            width = WIDTHS.get(kind, PEN_WIDTH) * line_scale
            halo.setData(width=width + 2 * HALO_PX)
            item.setData(width=width)

    def view_pixels(self) -> float:
        return float(min(self.scene.width(), self.scene.height()))

    def world_per_pixel(self) -> float:
        opts = self.scene.opts
        return 2.0 * opts["distance"] * math.tan(0.5 * math.radians(opts["fov"])) / max(self.scene.width(), 1)

    def clear(self) -> None:
        for kind in self.items:
            self._show(kind, None)

    def _show(self, kind: str, pos: np.ndarray | None, drawn=None) -> None:
        """Give `kind`'s items the line pairs `pos` (None: none) unless they hold them already."""
        if pos is None:
            if self._drawn.get(kind, ()) is None:
                return
            pos = np.zeros((0, 3))
        self._drawn[kind] = drawn
        for item in self.items[kind]:
            item.setData(pos=pos)

    def draw(self, sets: dict, scales) -> None:
        """Draw `sets` at the scales of `scales` (a kind shown already with the same arrows, scales
        and camera is left as it is)."""
        turn = self.scene.turn
        px = self.world_per_pixel()
        pixels = self.drawn_pixels = self.view_pixels()
        for kind in self.items:
            arrow_set = sets.get(kind)
            if arrow_set is None or arrow_set.empty:
                self._show(kind, None)
                continue
            look = (scales.per_pixel(kind, pixels), scales.per_pixel(couple_key(kind), pixels), px, turn.tobytes())
            drawn = self._drawn.get(kind)
            if drawn is not None and drawn[0] is arrow_set and drawn[1] == look:
                continue
            pieces = []
            shown = above_noise(arrow_set, kind, self.floors())
            for points, vectors, per_px, double in ((shown.points, shown.vectors, look[0], False),
                                                    (shown.couple_points, shown.couples, look[1], True)):
                if not len(points):
                    continue
                tails = points @ turn.T
                tips = tails + capped((vectors @ turn.T) / per_px * px, LONGEST_ARROW_SHARE * pixels * px)
                pieces += [np.stack((tails, tips), axis=1).reshape(-1, 3), heads_3d(tails, tips, HEAD_PX * px)]
                if double:  # a couple: a second head just behind the first
                    inner = tips - 0.7 * HEAD_PX * px * _unit_rows(tips - tails)
                    pieces.append(heads_3d(tails, inner, HEAD_PX * px))
            self._show(kind, np.concatenate(pieces) if pieces else None, (arrow_set, look))
