"""Presentation mode (F11) and the window's look: for a lecture hall's projector.

Full screen with the mechanism owning it: the tree and inspector docks, the menu and status bars
and the toolbar's numeric settings hidden, the plots (the presentation's own choice, none to a
few: View ▸ Plots) in a strip of at most `PLOTS_SHARE` of the height, so the mechanism's view
keeps well over 60 % of the screen and its reach fills the view (gui/scene/scene2d.py re-fits on every
resize). Fonts of 18 pt (24 px) and more, pens of 3 px and more, a large time read-out, a
high-contrast light theme or a dark one, and a zoom (Ctrl + / Ctrl −) that scales every font and
pen. In normal mode the theme and the zoom apply too; at zoom 1 with the light theme the window
is left exactly as built.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPalette
from PySide6.QtWidgets import QApplication, QWidget

#: presentation fonts: 24 px is 18 pt at the 96 dpi of projectors and Xvfb
PRESENTATION_FONT_PX = 24
#: normal-mode font when zoomed (Qt's default is about 13 px)
NORMAL_FONT_PX = 13
#: curve widths are multiplied by this in presentation (the thinnest curve, 1.6 px, becomes ≥ 3)
PRESENTATION_LINE_SCALE = 2.0
#: the mechanism's trail is this share of its links' width
TRAIL_SHARE = 0.5
#: the plots' strip in presentation: at most this share of the screen's height
PLOTS_SHARE = 0.28
#: the compare column in presentation: this share of the screen's width
COMPARE_SHARE = 0.3
#: the compare column's text, relative to the presentation font
COMPARE_FONT_SHARE = 0.7
#: the toolbar's clock never grows beyond this (pixels), so zooming never pushes it off the toolbar
MAX_CLOCK_PX = 48
#: the widest time read-out, for the clock's width (it must never be cut)
ZOOM_STEP = 1.15
ZOOM_LIMITS = {"normal": (0.7, 2.5), "presentation": (1.0, 2.5)}  # presentation never below 18 pt


@dataclass(frozen=True)
class Theme:
    name: str
    window: str
    text: str
    base: str
    alternate: str
    button: str
    highlight: str
    plot_background: str
    plot_foreground: str
    legend: tuple
    rods: str
    links: str
    hinge_fill: str
    trail: str
    scene3d: tuple


LIGHT = Theme("light", window="#ffffff", text="#000000", base="#ffffff", alternate="#f0f0f0", button="#e8e8e8",
              highlight="#0072B2", plot_background="#ffffff", plot_foreground="#000000",
              legend=(255, 255, 255, 225), rods="#0b3d6b", links="#111111", hinge_fill="#ffffff", trail="#56B4E9",
              scene3d=(255, 255, 255, 255))
DARK = Theme("dark", window="#15171a", text="#f2f2f2", base="#0d0f12", alternate="#202328", button="#2a2d33",
             highlight="#56B4E9", plot_background="#0d0f12", plot_foreground="#f2f2f2",
             legend=(13, 15, 18, 225), rods="#7cc4ff", links="#e6e6e6", hinge_fill="#0d0f12", trail="#E69F00",
             scene3d=(13, 15, 18, 255))
THEMES = {"light": LIGHT, "dark": DARK}


def palette_for(theme: Theme) -> QPalette:
    palette = QPalette()
    roles = {QPalette.Window: theme.window, QPalette.WindowText: theme.text, QPalette.Base: theme.base,
             QPalette.AlternateBase: theme.alternate, QPalette.Text: theme.text, QPalette.Button: theme.button,
             QPalette.ButtonText: theme.text, QPalette.ToolTipBase: theme.base, QPalette.ToolTipText: theme.text,
             QPalette.Highlight: theme.highlight, QPalette.HighlightedText: theme.base,
             QPalette.BrightText: "#ff5555", QPalette.PlaceholderText: theme.links}
    for role, color in roles.items():
        palette.setColor(role, QColor(color))
    return palette


class Presentation(QObject):
    """The look of one main window: presentation on/off, theme, zoom."""

    changed = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.active = False
        self.theme = LIGHT
        self.zoom_level = 1.0
        app = QApplication.instance()
        self._original_palette = QPalette(app.palette())
        self._original_font = QFont(app.font())
        self._saved_docks: dict = {}
        self._normal_geometry = window.geometry()
        self._was_maximized = False
        self._styled = False
        self._title_bars: dict = {}
        window.compare_view.active_changed.connect(lambda _on: self._rearrange() if self.active else None)
        # Esc leaves presentation; enabled only there, so that elsewhere Esc stays the widgets'
        self.leave_action = QAction("Leave presentation mode", window)
        self.leave_action.setObjectName("action_leave_presentation")
        self.leave_action.setShortcut(QKeySequence(Qt.Key_Escape))
        self.leave_action.setEnabled(False)
        self.leave_action.triggered.connect(self.leave)
        window.addAction(self.leave_action)

    # --- switching -------------------------------------------------------------------------

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def enter(self, size: tuple[int, int] | None = None) -> None:
        """Full screen (or `size`, for checks and recordings) with the mechanism in front."""
        if self.active:
            return
        w = self.window
        self.active = True
        self._was_maximized = w.isMaximized()
        self._saved_docks = {dock: dock.isVisible() for dock in (w.tree_dock, w.inspector_dock, w.parameters_dock)}
        for dock in self._saved_docks:
            dock.hide()
        self._show_fine_print(False)
        self._show_chrome(False)
        self.zoom_level = max(self.zoom_level, ZOOM_LIMITS["presentation"][0])
        self._normal_geometry = w.geometry()
        screen = w.screen().geometry()
        if size is not None:  # a window of that size (a check, a recording): not full screen
            w.setGeometry(screen.x(), screen.y(), *size)
        else:
            w.showFullScreen()
            if w.geometry() != screen:  # no window manager (Xvfb, kiosks) to honour full screen
                w.setGeometry(screen)
        w.plots.set_mode("presentation")
        self.leave_action.setEnabled(True)
        self.apply()
        self._rearrange()

    def _rearrange(self) -> None:
        """The plots' strip at most PLOTS_SHARE of the height, the compare column COMPARE_SHARE
        of the width."""
        w = self.window
        if w.plots_dock.isVisible():
            w.resizeDocks([w.plots_dock], [int(PLOTS_SHARE * w.height())], Qt.Vertical)
        if w.compare_view.dock.isVisible():
            w.resizeDocks([w.compare_view.dock], [int(COMPARE_SHARE * w.width())], Qt.Horizontal)

    def leave(self) -> None:
        if not self.active:
            return
        w = self.window
        self.active = False
        self.leave_action.setEnabled(False)
        for dock, visible in self._saved_docks.items():
            dock.setVisible(visible)
        self._show_fine_print(True)
        self._show_chrome(True)
        w.plots.set_mode("normal")
        w.showMaximized() if self._was_maximized else w.showNormal()
        if not self._was_maximized:
            w.setGeometry(self._normal_geometry)
        self.zoom_level = 1.0
        self.apply()

    def _show_chrome(self, shown: bool) -> None:
        """Menu bar, status bar and the docks' title bars: not for the class (the keys still work)."""
        w = self.window
        w.menuBar().setVisible(shown)
        w.statusBar().setVisible(shown)
        for dock in (w.plots_dock, w.compare_view.dock):
            if shown:
                dock.setTitleBarWidget(self._title_bars.pop(dock, None))
            else:
                self._title_bars[dock] = dock.titleBarWidget()
                dock.setTitleBarWidget(QWidget())

    def restore_application(self) -> None:
        """The application's own palette and font again (the window closes; another may open)."""
        app = QApplication.instance()
        app.setPalette(self._original_palette)
        app.setFont(self._original_font)

    def toggle_theme(self) -> None:
        self.set_theme("dark" if self.theme is LIGHT else "light")

    def set_theme(self, name: str) -> None:
        self.theme = THEMES[name]
        self.apply()

    def zoom(self, direction: int) -> None:
        """+1 larger, −1 smaller, 0 back to the mode's own size."""
        low, high = ZOOM_LIMITS["presentation" if self.active else "normal"]
        level = 1.0 if direction == 0 else self.zoom_level * ZOOM_STEP ** direction
        self.zoom_level = min(max(level, low), high)
        self.apply()
        self.window.statusBar().showMessage(f"Zoom {100 * self.zoom_level:.0f} %", 3000)

    # --- sizes -------------------------------------------------------------------------------

    def font_px(self) -> int:
        base = PRESENTATION_FONT_PX if self.active else NORMAL_FONT_PX
        return round(base * self.zoom_level)

    def line_scale(self) -> float:
        return (PRESENTATION_LINE_SCALE if self.active else 1.0) * self.zoom_level

    def marker_scale(self) -> float:
        """Markers of the mechanism (hinges, mass centres) grow with the fonts: 24/13 in presentation."""
        return self.font_px() / NORMAL_FONT_PX if self._styled else 1.0

    # --- applying ------------------------------------------------------------------------------

    def apply(self) -> None:
        styled = self.active or self.theme is not LIGHT or self.zoom_level != 1.0
        if not styled and not self._styled:
            return  # never touched: leave the window as built
        self._styled = styled
        app = QApplication.instance()
        theme = self.theme
        if styled:
            font = QFont(self._original_font)
            font.setPixelSize(self.font_px())
            app.setPalette(palette_for(theme))
            app.setFont(font)
        else:
            app.setPalette(self._original_palette)
            app.setFont(self._original_font)
        pg.setConfigOptions(background=theme.plot_background, foreground=theme.plot_foreground)
        self._style_time_label(styled)
        self._style_plots(styled)
        for scene in self._scenes2d():
            self.style_scene(scene)
        scene3d = getattr(self.window, "scene3d", None)
        if scene3d is not None:
            scene3d.setBackgroundColor(theme.scene3d if styled else (250, 250, 250, 255))
            scene3d.set_clock_px(self.font_px() if self.active else 0)
            scene3d.set_marker_scale(self.marker_scale())
        self.changed.emit()

    def _show_fine_print(self, shown: bool) -> None:
        """Hide the toolbar's numeric settings (and their labels) in presentation."""
        settings_bar = self.window.settings_bar
        boxes = set(settings_bar.fine_print())
        bar = settings_bar.method_box.parentWidget()
        actions = bar.actions()
        for i, action in enumerate(actions):
            if bar.widgetForAction(action) in boxes:
                action.setVisible(shown)
                if i > 0:
                    actions[i - 1].setVisible(shown)  # its label

    def _style_time_label(self, styled: bool) -> None:
        from eomlab.gui.actions.run_actions import TIME_LABEL_STYLE

        label = self.window.run_actions.time_label
        if styled and self.active:
            px = min(round(1.5 * self.font_px()), MAX_CLOCK_PX)
            label.setStyleSheet(f"font-family: monospace; font-size: {px}px; font-weight: bold; padding: 0 12px;")
        elif styled:
            label.setStyleSheet(f"font-family: monospace; font-size: {self.font_px()}px; padding: 0 8px;")
        else:
            label.setStyleSheet(TIME_LABEL_STYLE)  # the label holds its widest reading's size (gui/style/steady_label.py)

    def _plot_widgets(self) -> list[pg.PlotWidget]:
        return self.window.findChildren(pg.PlotWidget)

    def _scenes2d(self):
        from eomlab.gui.scene.scene2d import Scene2D

        return [w for w in self._plot_widgets() if isinstance(w, Scene2D)]

    def _style_plots(self, styled: bool) -> None:
        theme, px, scale = self.theme, self.font_px(), self.line_scale()
        panel = self.window.plots
        panel.line_scale = scale if styled else 1.0
        panel.title_px = px if styled else 12
        panel.ink = theme.plot_foreground if styled else "#000"
        panel.restyle()
        from eomlab.gui.compare.compare_panel import DIFFERENCE_TITLE

        compare = self.window.compare_view
        compare.panel.restyle(scale if styled else 1.0)
        # the compare column is read up close, the mechanism from the back: its text a size smaller
        panel_font = QFont(self._original_font)
        if styled:
            panel_font.setPixelSize(round(COMPARE_FONT_SHARE * px))
        compare.panel.setFont(panel_font)
        compare.panel.difference_plot.getPlotItem().setTitle(DIFFERENCE_TITLE,
                                                              size=f"{px}px" if styled else "9pt")
        compare.tiles.title_px = px if styled else 0
        for method in compare.tiles.scenes:
            compare.tiles.retitle(method)
        for plot in self._plot_widgets():
            self.style_plot(plot, styled)

    def style_plot(self, plot: pg.PlotWidget, styled: bool | None = None) -> None:
        """Background, axis pens, tick and label fonts of one plot (also the scenes)."""
        styled = self._styled if styled is None else styled
        theme, px = self.theme, self.font_px()
        plot.setBackground(theme.plot_background if styled else "w")
        ink = theme.plot_foreground if styled else "k"
        font = QFont(self._original_font)
        if styled:
            font.setPixelSize(px)
        item = plot.getPlotItem()
        for side in ("left", "bottom", "right"):
            axis = item.getAxis(side)
            axis.setPen(pg.mkPen(ink, width=max(1.0, 1.5 * self.line_scale()) if styled else 1))
            axis.setTextPen(pg.mkPen(ink))
            axis.setTickFont(font if styled else None)
            axis.label.setFont(font)
            if styled:
                axis.labelStyle = {"color": ink, "font-size": f"{px}px"}
            else:
                axis.labelStyle = {}
            axis._updateLabel()
            axis.setStyle(tickTextOffset=round(0.3 * px) if styled else 2)
        if item.titleLabel.text:
            item.titleLabel.setText(item.titleLabel.text, color=ink, size=f"{px}px" if styled else "9pt")
            height = math.ceil(1.6 * px) if styled else 30  # pyqtgraph's row is 30 px: too low for 24 px text
            item.titleLabel.setMaximumHeight(height)
            item.layout.setRowFixedHeight(0, height)

    def style_scene(self, scene) -> None:
        """The mechanism's pens: thicker in presentation, light on dark in the dark theme."""
        styled, theme, s = self._styled, self.theme, self.line_scale()
        if not styled:
            theme, s = LIGHT, 1.0
        rods, links = (theme.rods, theme.links) if styled else ("#2b5d8a", "#555")
        scene.rods.setPen(pg.mkPen(rods, width=max(7.0, 5.0 * s), cap=pg.QtCore.Qt.RoundCap))
        scene.outlines.setPen(pg.mkPen(rods, width=max(2.5, 2.0 * s)))
        link_width = max(1.5, 1.6 * s)
        scene.links.setPen(pg.mkPen(links, width=link_width))
        # the trail is a trace, not a part: thinner than the thinnest link
        scene.trail.setPen(pg.mkPen(theme.trail if styled else "#9ab", width=max(1.0, TRAIL_SHARE * link_width)))
        scene.hinges.setPen(pg.mkPen(links, width=link_width))
        scene.hinges.setBrush(pg.mkBrush(theme.hinge_fill if styled else "w"))
        scene.set_marker_scale(self.marker_scale())
        scene.time_label.setColor(theme.plot_foreground if styled else "#333")
        font = QFont(self._original_font)
        if styled:
            font.setPixelSize(self.font_px())
        scene.time_label.setFont(font)

