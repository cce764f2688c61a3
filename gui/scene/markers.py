"""Markers of a fixed size on screen at points of a view: the scene's hinges, ground hinges and
mass centres.

One small picture per marker size, drawn at each point's place on the device. pyqtgraph's
ScatterPlotItem does the same for any number of styles per point, and pays for that generality
in Python whenever the points move: it rebuilds its point records (three items a frame in the
scene) and recomputes its bounds; this item takes new points at a small fraction of that cost and
paints them as fast.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPixmap, QPolygonF

#: the marker shapes, in a unit box centred on the point (y down, as on screen)
SYMBOLS = ("o", "t1")
#: no marker is drawn larger (px): each size is a picture, and one 50,000 px across froze the window
MAX_SIZE_PX = 64.0


def _symbol_path(symbol: str, size: float) -> QPainterPath:
    path = QPainterPath()
    r = size / 2
    if symbol == "o":
        path.addEllipse(QPointF(0.0, 0.0), r, r)
    else:  # "t1": a triangle standing on its base, a hinge on the ground
        path.addPolygon(QPolygonF([QPointF(-r, r), QPointF(r, r), QPointF(0.0, -r), QPointF(-r, r)]))
    return path


class Markers(pg.GraphicsObject):
    """Points (x, y) of the view drawn as `symbol` markers `size` pixels across (one size, or one
    per point), outlined with `pen` and filled with `brush`."""

    def __init__(self, symbol: str = "o", size: float = 9.0, pen=None, brush=None):
        super().__init__()
        if symbol not in SYMBOLS:
            raise ValueError(f"unknown marker symbol {symbol!r}; one of {SYMBOLS}")
        self.symbol = symbol
        self.size = min(float(size), MAX_SIZE_PX)
        self.pen = pg.mkPen(pen if pen is not None else "#222")
        self.brush = pg.mkBrush(brush if brush is not None else "w")
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        self.sizes: np.ndarray | None = None  # per point, or None: every point `size`
        self._sprites: dict[tuple[float, float], QPixmap] = {}  # (size, device pixel ratio) -> picture
        self._bounds: QRectF | None = None
        self._pixel: tuple[float, float] | None = None  # a device pixel in view units, per view transform

    # --- data and style ---------------------------------------------------------------------

    def setData(self, x=(), y=(), size=None) -> None:
        self.x = np.asarray(x, float)
        self.y = np.asarray(y, float)
        self.sizes = None if size is None else np.broadcast_to(np.minimum(np.asarray(size, float), MAX_SIZE_PX),
                                                               self.x.shape)
        self._changed()

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y

    def setPen(self, *args, **kwargs) -> None:
        self.pen = pg.mkPen(*args, **kwargs)
        self._restyled()

    def setBrush(self, *args, **kwargs) -> None:
        self.brush = pg.mkBrush(*args, **kwargs)
        self._restyled()

    def setSize(self, size: float) -> None:
        self.size = min(float(size), MAX_SIZE_PX)
        self._restyled()

    def _restyled(self) -> None:
        self._sprites.clear()
        self._changed()

    def _changed(self) -> None:
        self.prepareGeometryChange()
        self._bounds = None
        self.update()

    def viewTransformChanged(self) -> None:
        """pyqtgraph's hook: the view zoomed or panned, so the pixel room around the points changed."""
        self.prepareGeometryChange()
        self._bounds = self._pixel = None

    # --- drawing --------------------------------------------------------------------------------

    def _largest(self) -> float:
        return float(self.sizes.max()) if self.sizes is not None and len(self.sizes) else self.size

    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            finite = np.isfinite(self.x) & np.isfinite(self.y)
            if not finite.any():
                self._bounds = QRectF()
            else:
                room = 0.5 * self._largest() + self.pen.widthF() + 1.0  # in pixels
                if self._pixel is None:
                    self._pixel = (self.pixelWidth() or 0.0, self.pixelHeight() or 0.0)
                px, py = self._pixel
                x, y = self.x[finite], self.y[finite]
                x0, x1, y0, y1 = x.min(), x.max(), y.min(), y.max()
                self._bounds = QRectF(x0 - room * px, y0 - room * py, x1 - x0 + 2 * room * px,
                                      y1 - y0 + 2 * room * py)
        return QRectF(self._bounds)

    def _sprite(self, size: float, ratio: float) -> QPixmap:
        key = (size, ratio)
        sprite = self._sprites.get(key)
        if sprite is None:
            side = math.ceil(size + 2 * self.pen.widthF() + 2)
            sprite = QPixmap(math.ceil(side * ratio), math.ceil(side * ratio))
            sprite.setDevicePixelRatio(ratio)
            sprite.fill(Qt.transparent)
            painter = QPainter(sprite)
            painter.setRenderHint(QPainter.Antialiasing)
            painter.translate(side / 2, side / 2)
            painter.setPen(self.pen)
            painter.setBrush(self.brush)
            painter.drawPath(_symbol_path(self.symbol, size))
            painter.end()
            self._sprites[key] = sprite
        return sprite

    def paint(self, painter: QPainter, *_args) -> None:
        if not len(self.x):
            return
        t = painter.transform()
        dx = t.m11() * self.x + t.m21() * self.y + t.dx()
        dy = t.m12() * self.x + t.m22() * self.y + t.dy()
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        sizes = self.sizes if self.sizes is not None else np.full(len(dx), self.size)
        painter.save()
        painter.resetTransform()
        for x, y, size in zip(dx.tolist(), dy.tolist(), sizes.tolist()):
            if x == x and y == y:  # NaN: nothing to draw
                sprite = self._sprite(size, ratio)
                half = 0.5 * sprite.width() / ratio
                painter.drawPixmap(QPointF(x - half, y - half), sprite)
        painter.restore()
