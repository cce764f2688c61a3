"""A plot as a figure: PNG through pyqtgraph's exporter, SVG painted into a QSvgGenerator (pyqtgraph
0.14's own SVG exporter is broken). Both draw every sample, not the screen's decimated curves."""
from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter


def export_png(panel, key: str, path: str) -> None:
    from pyqtgraph.exporters import ImageExporter

    plot = panel.plots[key]
    exporter = ImageExporter(plot.getPlotItem())
    exporter.parameters()["width"] = max(800, plot.width() * 2)
    panel.refresh([key], full=True)  # the export is larger than the screen: every sample
    try:
        exporter.export(path)
    finally:
        panel.refresh([key])


def export_svg(panel, key: str, path: str) -> None:
    from PySide6.QtSvg import QSvgGenerator

    from eomlab.gui.plots.plot_panel import PLOT_TITLES

    plot = panel.plots[key]
    source = plot.getPlotItem().sceneBoundingRect()
    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(source.size().toSize())
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    generator.setTitle(PLOT_TITLES[key])
    generator.setDescription("eomlab plot")
    panel.refresh([key], full=True)  # vector output: every sample
    painter = QPainter(generator)
    try:
        painter.fillRect(QRectF(0, 0, source.width(), source.height()), plot.backgroundBrush())
        plot.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()
        panel.refresh([key])
