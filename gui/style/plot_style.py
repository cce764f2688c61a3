"""How plots look and read: pyqtgraph's colours, axes without misleading SI prefixes whose labels
are always shown whole, and the unit of a coordinate."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QTextDocument

from eomlab.engine.model import joint_type

#: what stands for the cut end of a label that fits no other way
ELLIPSIS = "…"


def configure_pyqtgraph() -> None:
    """White plots with dark ink read well in screenshots and print."""
    pg.setConfigOptions(background="w", foreground="k", antialias=True)


def coordinate_unit(name: str, model=None) -> str:
    """The unit of a coordinate: from its joint in the model when known, else from its name."""
    if model is not None:
        for body in model.bodies:
            if name in body.joint.names:
                i = body.joint.names.index(name)
                if body.joint.quaternion and i >= len(body.joint.names) - 4:
                    return "1"  # Euler parameters are pure numbers
                if joint_type(body.joint.type).length_coordinate(body.joint, i):
                    return "m"
                return "rad"
    tail = name.rsplit("_", 1)[-1]
    if tail in ("e0", "e1", "e2", "e3"):
        return "1"  # Euler parameters (absolute coordinates in 3-D)
    return "m" if tail in ("x", "y", "z", "s") else "rad"


def without_si_prefix(axis: pg.AxisItem) -> None:
    """Turn the SI prefix off for good: pyqtgraph 0.14's `enableAutoSIPrefix(False)` still
    computes a scale from the current range (a log axis over 1e-16…1e-6 then reads 10⁶ too high)."""
    axis.enableAutoSIPrefix(False)
    axis.autoSIPrefixScale = 1.0
    axis.labelUnitPrefix = ""
    axis._updateLabel()


class WholeLabelAxis(pg.AxisItem):
    """An axis whose label is never cut off by the plot's edge: pyqtgraph centres the label on
    the axis and clips whatever is longer than the axis. When "name (units)" is too long for the
    axis it becomes the name over the units, then the `short_text` (if set) likewise, and only
    then a name cut short with an ellipsis — the units always stay whole."""

    #: a shorter name for the quantity, used when the full one does not fit
    short_text = ""
    _fitted_room = None  # the room the label was last fitted to
    _measuring = None  # the document the label's forms are measured in (`_html_width`)

    def label_room(self) -> float:
        """The length the label may take: the axis' own length along its direction."""
        size = self.size()
        return size.height() if self.orientation in ("left", "right") else size.width()

    def _html_width(self, html: str) -> float:
        """The width `html` takes laid out as the label lays it out. One measuring document per axis,
        set like the label's: a `clone()` of the label's document belongs to C++ with no parent and
        was never freed (hundreds a compare-mode toggle; the soak test's window grew 7 MB a cycle)."""
        document = self._measuring
        if document is None:
            document = self._measuring = QTextDocument()
        label = self.label.document()
        document.setDefaultFont(label.defaultFont())
        document.setDocumentMargin(label.documentMargin())
        document.setDefaultStyleSheet(label.defaultStyleSheet())
        document.setDefaultTextOption(label.defaultTextOption())
        document.setHtml(html)
        return document.size().width()

    def _forms(self, text: str, units: str) -> list[str]:
        return [f"{text} {units}".strip()] + ([f"{text}<br>{units}"] if units and text else [])

    def labelString(self) -> str:
        units = f"({self.labelUnitPrefix}{self.labelUnits})" if self.labelUnits else ""
        style = ";".join(f"{k}: {v}" for k, v in self.labelStyle.items())
        room = self.label_room()
        candidates = self._forms(self.labelText, units)
        if self.short_text:
            candidates += self._forms(self.short_text, units)
        spans = [f"<span style='{style}'>{c}</span>" for c in candidates]
        if room <= 0:  # not laid out yet: the full label
            return spans[0]
        for span in spans:
            if self._html_width(span) <= room:
                return span
        text = self.short_text or self.labelText
        for keep in range(len(text) - 1, 0, -1):  # the name cut short, the units kept whole
            span = f"<span style='{style}'>{text[:keep]}{ELLIPSIS}{'<br>' + units if units else ''}</span>"
            if self._html_width(span) <= room:
                return span
        return span

    def resizeEvent(self, ev=None) -> None:
        room = self.label_room()
        if self.label is not None and room != self._fitted_room:
            self._fitted_room = room
            self.label.setHtml(self.labelString())
            self._adjustSize()
        super().resizeEvent(ev)


class MenuOnDemandViewBox(pg.ViewBox):
    """pyqtgraph's ViewBox whose right-click menu is built at the first right click: built with the view it
    took ~13 ms of every plot of every window's start (nine plots a window), for a menu few open."""

    def __init__(self, **kwargs):
        super().__init__(enableMenu=False, **kwargs)
        self.state["enableMenu"] = True  # enabled, not yet built

    def _built_menu(self):
        if self.menu is None and self.menuEnabled():
            self.setMenuEnabled(True)  # pyqtgraph builds it here (and fills its view lists)
        return self.menu

    def getMenu(self, ev):
        return self._built_menu()

    def getContextMenus(self, event):
        return self._built_menu().actions() if self.menuEnabled() else []


def plot_widget() -> pg.PlotWidget:
    """A plot whose axis labels are kept whole (`WholeLabelAxis`), its right-click menu built on demand."""
    return pg.PlotWidget(viewBox=MenuOnDemandViewBox(),
                         axisItems={side: WholeLabelAxis(side) for side in ("left", "bottom")})


def label_axes(plots: dict, time_plots, log_plots, q_unit: str, phase, phase_units) -> None:
    """The axis labels of the panel's plots (and log axes, without SI prefixes)."""
    for key in time_plots:
        plots[key].setLabel("bottom", "t", units="s")
    plots["motion"].setLabel("left", "coordinate", units=q_unit)
    plots["motion"].getAxis("left").short_text = "q"
    plots["phase"].setLabel("bottom", phase[0], units=phase_units[0])
    plots["phase"].setLabel("left", phase[1], units=phase_units[1])
    plots["phase"].getAxis("left").short_text = "rate"  # the coordinate's own: the bottom axis names it
    plots["energy"].setLabel("left", "energy", units="J")
    plots["energy_bars"].setLabel("left", "energy", units="J")
    plots["energy_drift"].setLabel("left", "|E − E₀| / |E₀|")
    plots["constraint_drift"].setLabel("left", "max |residual|")
    plots["multipliers"].setLabel("left", "λ (N, N·m)")
    for key in log_plots:
        plots[key].getPlotItem().setLogMode(x=False, y=True)
    for plot in plots.values():  # SI prefixes on a log axis or on mixed units would mislead
        for side in ("left", "bottom"):
            without_si_prefix(plot.getAxis(side))
