"""The 3-D view's OpenGL surface as a native child window (issue #25).

A QOpenGLWidget makes Qt compose the WHOLE top-level window through OpenGL at every update (the
raster backing store uploaded as a texture, then a full-window swap): under Xvfb + llvmpipe at
1920×1080 that held the 3-D models to 10-38 frames a second. Here pyqtgraph's view logic
(`GLViewMixin`) runs on a `QOpenGLWindow` embedded with `QWidget.createWindowContainer`: only the
3-D area goes through GL, the rest of the window stays raster and flushes only what changed.

`GLHost` is the QWidget the rest of the window sees (the scene stack's page, `gui.scene.scene3d.Scene3D`
builds on it): it forwards the view's camera API (`opts`, `addItem`, `projectionMatrix`, …) to
the GL window, receives the window's mouse, wheel and key events (so event filters on it, such as
`gui.scene.drag`'s, and events tests send to it work as before), and draws the time clock in GL. A native
child window is not in `QWidget.grab()`, and covers the host's own child widgets (the arrows'
legend), which the view paints over its picture: `GLHost.grab` renders the view into an image, and
`grab_with_gl` composes it into a grab of any widget holding it (screenshots, recordings).

Imported only where OpenGL is available (see `gui.scene.scene3d.make_scene3d`).
"""
from __future__ import annotations

import atexit
import weakref

import shiboken6

from OpenGL import GL
from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QContextMenuEvent, QFont, QImage, QPainter, QPixmap, QSurfaceFormat
from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLWindow
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget
from pyqtgraph.opengl.GLViewWidget import GLViewMixin

#: events of the GL window that its host handles (as a QOpenGLWidget would have)
FORWARDED = {QEvent.MouseButtonPress, QEvent.MouseButtonRelease, QEvent.MouseButtonDblClick, QEvent.MouseMove,
             QEvent.Wheel, QEvent.KeyPress, QEvent.KeyRelease}
#: the clock's place in the view (pixels from its top left corner)
CLOCK_AT = QPoint(12, 8)


#: every GL view's host, to release at exit (below)
_HOSTS: weakref.WeakSet = weakref.WeakSet()


@atexit.register  # registered after PySide's own clean-up, so it runs before it
def _release_hosts() -> None:
    """At exit PySide deletes every QObject Python owns, GL windows among them; a host still alive
    then (a view closed without an event loop to delete it) kept a dangling window that the
    application's destructor read (a segmentation fault). The container goes first, its window
    with it."""
    for host in list(_HOSTS):
        if shiboken6.isValid(host) and shiboken6.isValid(host.container):
            container = host.container
            container.setParent(None)  # out of the host's children, for PySide's books too
            shiboken6.delete(container)


class GLView(GLViewMixin, QOpenGLWindow):
    """pyqtgraph's 3-D view on a QOpenGLWindow; its input goes to `host`."""

    def __init__(self, host):
        super().__init__()
        self.host = host
        surface = QSurfaceFormat.defaultFormat()  # a QOpenGLWidget draws into an FBO that has them
        surface.setDepthBufferSize(24)  # without, the solids' faces showed through one another
        surface.setStencilBufferSize(8)
        self.setFormat(surface)

    def event(self, event) -> bool:
        kind = event.type()
        if kind in FORWARDED and self.host is not None:
            QApplication.sendEvent(self.host, event)
            if kind == QEvent.MouseButtonPress and event.button() == Qt.RightButton:
                menu = QContextMenuEvent(QContextMenuEvent.Mouse, event.position().toPoint(),
                                         event.globalPosition().toPoint(), event.modifiers())
                QApplication.sendEvent(self.host, menu)
            return True
        if kind == QEvent.ContextMenu:  # made from the right press above already
            return True
        return super().event(event)

    def orbit(self, azim, elev) -> None:  # the arrow keys orbit through here too
        super().orbit(azim, elev)
        if self.host is not None:
            self.host.keep_above_floor()

    def paintOverGL(self) -> None:
        if self.host is not None and self.host.has_overlays():
            painter = QPainter(self)
            self.host.paint_overlays(painter)
            painter.end()

    def render_image(self) -> QImage | None:
        """The view as it is now, rendered off screen (None before GL first painted it)."""
        if self.context() is None or not self.isValid():
            return None
        self.makeCurrent()
        w, h = self.deviceWidth(), self.deviceHeight()
        fbo = QOpenGLFramebufferObject(QSize(w, h), QOpenGLFramebufferObject.CombinedDepthStencil)
        try:
            fbo.bind()
            GL.glViewport(0, 0, w, h)
            region = self.getViewport()
            self.paint(region=region, viewport=region)
            image = fbo.toImage().convertToFormat(QImage.Format_RGB32)
        finally:
            fbo.release()
            self.doneCurrent()
        return image


class GLHost(QWidget):
    """The widget side of the 3-D view: holds the GL window, forwards the camera API to it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.clock_text = ""
        self._rendering = False
        self.clock_font = QFont("monospace")
        self.clock_colour = QColor(40, 40, 40)
        self.view = GLView(self)
        self.container = QWidget.createWindowContainer(self.view, self)
        _HOSTS.add(self)
        self.container.setFocusPolicy(Qt.ClickFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.container)
        self.setFocusPolicy(Qt.ClickFocus)

    def __getattr__(self, name):  # the view's API: opts, addItem, projectionMatrix, viewMatrix, …
        if name in ("view", "__deepcopy__") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["view"] if "view" in self.__dict__ else None, name)

    def update(self, *args) -> None:
        self.view.update()

    def orbit(self, azim, elev) -> None:
        self.view.orbit(azim, elev)

    def setBackgroundColor(self, *args, **kwargs) -> None:
        self.view.setBackgroundColor(*args, **kwargs)

    def keep_above_floor(self) -> None:
        pass

    # --- input the GL window passed on (or events sent to this widget) ------------------------

    def mousePressEvent(self, event) -> None:
        GLViewMixin.mousePressEvent(self.view, event)

    def mouseMoveEvent(self, event) -> None:
        GLViewMixin.mouseMoveEvent(self.view, event)

    def mouseReleaseEvent(self, event) -> None:
        pass

    def wheelEvent(self, event) -> None:
        GLViewMixin.wheelEvent(self.view, event)

    def keyPressEvent(self, event) -> None:
        GLViewMixin.keyPressEvent(self.view, event)

    def keyReleaseEvent(self, event) -> None:
        GLViewMixin.keyReleaseEvent(self.view, event)

    # --- the clock and pictures -------------------------------------------------------------------

    def set_clock(self, text: str, pixels: int, colour: str) -> None:
        if (text, pixels, colour) != (self.clock_text, self.clock_font.pixelSize(), self.clock_colour.name()):
            self.clock_text = text
            self.clock_font.setPixelSize(pixels)
            self.clock_colour = QColor(colour)
            self.view.update()

    # --- what lies over the view: the clock and child widgets (the arrows' legend) ------------------
    # a widget child of the host lies under the native GL window: the view paints it (QWidget.render)

    def _overlays(self) -> list[QWidget]:
        return [w for w in self.findChildren(QWidget, options=Qt.FindDirectChildrenOnly)
                if w is not self.container and w.isVisible()]

    def has_overlays(self) -> bool:
        return bool(self.clock_text) or bool(self._overlays())

    def paint_overlays(self, painter: QPainter) -> None:
        if self.clock_text:
            painter.setFont(self.clock_font)
            painter.setPen(self.clock_colour)
            painter.drawText(CLOCK_AT + QPoint(0, painter.fontMetrics().ascent()), self.clock_text)
        self._rendering = True  # their paint events now are this render's, not changes
        try:
            for widget in self._overlays():
                widget.render(painter, widget.pos())
        finally:
            self._rendering = False

    def childEvent(self, event) -> None:
        super().childEvent(event)
        if event.added() and event.child().isWidgetType():
            event.child().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        """An overlay changed (repainted, moved, shown or hidden): the view paints it again."""
        if watched is not self.__dict__.get("container") and not self._rendering and \
                event.type() in (QEvent.Paint, QEvent.Move, QEvent.Show, QEvent.Hide):
            self.view.update()
        return False

    def gl_image(self) -> QImage | None:
        """The view with its clock and overlays, as shown (None before GL first painted it)."""
        image = self.view.render_image()
        if image is not None and self.has_overlays():
            painter = QPainter(image)
            self.paint_overlays(painter)
            painter.end()
        return image

    def grab(self, rectangle: QRect | None = None) -> QPixmap:
        rectangle = QRect(QPoint(0, 0), QSize(-1, -1)) if rectangle is None else rectangle
        return grab_with_gl(self, rectangle, QWidget.grab(self, rectangle))


def grab_with_gl(widget: QWidget, rectangle: QRect, pixmap: QPixmap) -> QPixmap:
    """`pixmap` (`widget.grab(rectangle)`) with every GL view shown in it painted in."""
    hosts = [widget] if isinstance(widget, GLHost) else widget.findChildren(GLHost)
    origin = rectangle.topLeft() if rectangle.width() >= 0 else QPoint(0, 0)
    painter = None
    for host in hosts:
        if not host.isVisible() or not (host is widget or host.isVisibleTo(widget)):
            continue
        image = host.gl_image()
        if image is None:
            continue
        painter = painter or QPainter(pixmap)
        painter.drawImage(host.mapTo(widget, QPoint(0, 0)) - origin, image)
    if painter is not None:
        painter.end()
    return pixmap
