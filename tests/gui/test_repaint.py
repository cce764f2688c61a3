"""Repaint regression: PySide6 6.12.0 on Python 3.11 leaked a None reference per QPainter.setPen /
drawLine and crashed pyqtgraph windows after ~1500 repaints. Draw 3000 frames."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication


def test_live_plot_survives_3000_frames(qtbot):
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    curve = plot.plot(pen=pg.mkPen("b", width=2))
    x = np.linspace(0, 1, 200)
    app = QApplication.instance()
    for frame in range(3000):
        curve.setData(x, np.sin(6 * x + 0.01 * frame))
        plot.repaint()
        app.processEvents()
    assert plot.isVisible()
