"""Marks on the time plots: the timeline's cursor line and a dashed line where a parameter was
changed during the run (labelled with the change).

While the timeline holds the cursor the plots draw every kept sample (not only those up to the
cursor), so the line shows where the instant on screen lies in the run.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt

from eomlab.gui.plots.plot_panel import TIME_PLOTS
from eomlab.gui.runs.session import Session

CURSOR_PEN = pg.mkPen("#000", width=2)  # the plots' ink, not a curve colour (E is drawn red)
CHANGE_PEN = pg.mkPen("#7f7f7f", width=1.5, style=Qt.DashLine)


class PlotMarks(QObject):
    def __init__(self, session: Session, plots, drawn, parent=None):
        """`drawn`: the window's signal that a frame was drawn (gui/redraw.py)."""
        super().__init__(parent)
        self.session = session
        self.plots = plots
        self.cursor_lines = {}
        for key in TIME_PLOTS:
            line = pg.InfiniteLine(angle=90, movable=False, pen=CURSOR_PEN)
            line.setZValue(20)
            line.setVisible(False)
            plots.plots[key].addItem(line, ignoreBounds=True)
            self.cursor_lines[key] = line
        self.change_lines: list[tuple[str, pg.InfiniteLine]] = []
        #: (time, what changed) of the parameter changes of these runs
        self.changes: list[tuple[float, str]] = []
        self._last_key = None
        self._cursor_shown = None  # (held, its time, the ink) the cursor lines show
        # a held cursor: every kept sample drawn, the line marks the instant
        plots.time_limit = lambda: session.cursor_time() if session.following else None
        plots.shown_time = session.cursor_time  # the energy bars: the instant itself, held or not
        session.runs_started.connect(self.clear_changes)
        # once a frame: a mark no longer in its plot goes back; the cursor line follows the cursor
        drawn.connect(self.restore)
        drawn.connect(self.show_cursor)

    def show_cursor(self) -> None:
        held = not self.session.following
        t = self.session.cursor_time()
        shown = (held, t if held else None, self.plots.ink)
        if shown == self._cursor_shown:  # (restore() keeps the lines in their plots)
            return
        self._cursor_shown = shown
        for key, line in self.cursor_lines.items():
            self._keep(key, line)
            line.setVisible(held)
            if held:
                line.setValue(t)
                if line.pen.color().name() != pg.mkColor(self.plots.ink).name():  # the theme's ink (dark mode)
                    line.setPen(pg.mkPen(self.plots.ink, width=2))

    def restore(self) -> None:
        """Put back any mark that is not in its plot (the plots keep them across rebuilds of their curves,
        gui/plots/curve_pool.py; this makes sure)."""
        for key, line in [*self.cursor_lines.items(), *self.change_lines]:
            self._keep(key, line)

    def _keep(self, key: str, line) -> None:
        item = self.plots.plots[key].getPlotItem()
        if line not in item.items:
            item.addItem(line, ignoreBounds=True)

    def mark_change(self, t: float, text: str, key=None) -> None:
        """A dashed line at t on every time plot, labelled `text`; a change with the same `key` as
        the last (one slider drag) relabels that line instead."""
        if key is not None and self._last_key == key and self.change_lines:
            self.changes[-1] = (self.changes[-1][0], text)
            for _, line in self.change_lines[-len(TIME_PLOTS):]:
                line.setToolTip(text)
                if getattr(line, "label", None) is not None:
                    line.label.setFormat(text)
            return
        self._last_key = key
        self.changes.append((t, text))
        for key in TIME_PLOTS:
            line = pg.InfiniteLine(pos=t, angle=90, movable=False, pen=CHANGE_PEN,
                                   label=text if key == "motion" else None,
                                   labelOpts={"position": 0.92, "color": "#555", "anchors": [(0, 0), (0, 0)]})
            line.setToolTip(text)
            self.plots.plots[key].addItem(line, ignoreBounds=True)
            self.change_lines.append((key, line))

    def clear_changes(self) -> None:
        for key, line in self.change_lines:
            self.plots.plots[key].removeItem(line)
        self.change_lines = []
        self.changes = []
        self._last_key = None
        self.show_cursor()
