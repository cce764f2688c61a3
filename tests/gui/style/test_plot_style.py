"""The plots' axis labels (gui/style/plot_style.py): kept whole by shorter forms, measured without
leaving a document behind at each fitting (the soak test found 363 leaked per compare toggle)."""
from __future__ import annotations

import gc

import pytest
from PySide6.QtGui import QFont, QTextDocument

from eomlab.gui.style.plot_style import ELLIPSIS, WholeLabelAxis, plot_widget


def _documents() -> int:
    gc.collect()
    return sum(isinstance(o, QTextDocument) for o in gc.get_objects())


@pytest.fixture
def axis(qtbot):
    plot = plot_widget()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.setLabel("left", "a rather long quantity name", units="rad/s")
    axis = plot.getAxis("left")
    axis.short_text = "q"
    yield axis  # the plot, which owns the axis, lives until the test ends (qtbot closes it)


def test_fitting_a_label_again_and_again_leaves_no_document_behind(axis):
    axis.labelString()
    before = _documents()
    for room in range(40, 240, 2):  # 100 fittings, each measuring several forms
        axis.label_room = lambda r=room: float(r)
        axis.labelString()
    assert _documents() - before <= 1  # at most the one measuring document, made once


def test_a_label_is_measured_as_its_own_document_lays_it_out(axis):
    """The measuring document is set as the label's (font, margin): the width of a form equals
    the width the label's own document gives it."""
    axis.label.setFont(QFont("DejaVu Sans", 17))
    html = "<span style='color: #222'>a rather long quantity name (rad/s)</span>"
    own = axis.label.document()
    saved = own.toHtml()
    own.setHtml(html)
    expected = own.size().width()
    own.setHtml(saved)
    assert axis._html_width(html) == pytest.approx(expected, abs=0.5)  # half a pixel


@pytest.mark.parametrize("short, room, expect", [("q", 1000.0, "a rather long quantity name (rad/s)"),
                                                 ("q", 60.0, "q (rad/s)"), ("", 60.0, ELLIPSIS)])
def test_a_label_takes_the_longest_form_that_fits(axis, short, room, expect):
    axis.short_text = short
    axis.label_room = lambda: room
    label = axis.labelString().replace("<br>", " ")
    assert expect in label and "(rad/s)" in label  # the units always whole
    assert isinstance(axis, WholeLabelAxis)


def test_a_plots_right_click_menu_is_built_at_the_first_right_click(qtbot):
    """Not with the plot (~13 ms of each of a window's nine plots); the same pyqtgraph menu once asked for, and
    none for a plot whose menu is switched off."""
    from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu

    widget = plot_widget()
    qtbot.addWidget(widget)
    view = widget.getPlotItem().getViewBox()
    assert view.menu is None and view.menuEnabled()
    assert isinstance(view.getMenu(None), ViewBoxMenu) and view.getContextMenus(None)
    other = plot_widget()
    qtbot.addWidget(other)
    other.getPlotItem().setMenuEnabled(False)
    assert other.getPlotItem().getViewBox().getMenu(None) is None
    assert other.getPlotItem().getViewBox().getContextMenus(None) == []
