"""Puts the direct-manipulation tools into a main window: dragging bodies (gui/scene/drag.py), the
timeline under the mechanism (gui/timeline.py), the live parameters with the period read-out in a
dock beside the inspector (gui/editing/parameter_panel.py, gui/plots/readouts.py), and the marks and mouse
read-outs on the plots (gui/plots/plot_marks.py)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolBar, QVBoxLayout, QWidget

from eomlab.gui.scene import drag
from eomlab.gui.runs.energy_book import EnergyBook
from eomlab.gui.editing.parameter_panel import ParameterPanel
from eomlab.gui.plots.plot_marks import PlotMarks
from eomlab.gui.plots.readouts import CursorReadout, OscillationReadout
from eomlab.gui.timeline import Timeline


def install(window) -> None:
    session = window.session
    window.timeline = Timeline(session, window.document.undo_stack, window.redraw.drawn)
    bar = QToolBar("Timeline")
    bar.setObjectName("timeline_toolbar")
    bar.setMovable(False)
    bar.addWidget(window.timeline)
    window.addToolBar(Qt.BottomToolBarArea, bar)
    window.timeline_bar = bar

    window.plot_marks = PlotMarks(session, window.plots, window.redraw.drawn, window)
    window.energy_book = EnergyBook(session, window.plot_marks, window)
    window.cursor_readouts = [CursorReadout(window.plots, key, window) for key in window.plots.plots]

    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(2, 2, 2, 2)
    window.oscillation_readout = OscillationReadout(session)
    window.parameter_panel = ParameterPanel(window)
    window.parameter_panel.marks = window.plot_marks
    layout.addWidget(window.oscillation_readout)
    layout.addWidget(window.parameter_panel, 1)
    window.parameters_dock = window._dock("Parameters", holder, Qt.RightDockWidgetArea)
    window.tabifyDockWidget(window.inspector_dock, window.parameters_dock)
    window.inspector_dock.raise_()
    for action in window.menuBar().actions():
        if action.text() == "&View":
            action.menu().addAction(window.parameters_dock.toggleViewAction())
            action.menu().addAction(bar.toggleViewAction())
    window.drags = drag.install(window)
