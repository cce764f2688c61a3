"""The equations panel's widgets: buttons, a state line, the page and the side-by-side view in tabs.

`equations_view.EquationsView` fills it; nothing here derives or typesets.
"""
from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from eomlab.engine.methods import SYMBOLIC_METHODS
from eomlab.gui.equations.equations_page import CompareView, PageView

#: what the panel offers: the registry's formulations and the tree view (symbolic only)


def _scroll(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(widget)
    return area


class EquationsPanel(QWidget):
    """The dock's contents: buttons, a state line, the page and the side-by-side view."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("equations_panel")
        self.state = QLabel("")
        self.state.setObjectName("equations_state")
        self.state.setWordWrap(True)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumHeight(8)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.copy_button = QPushButton("Copy as LaTeX")
        self.export_button = QPushButton("Export…")
        self.window_button = QPushButton("Own window")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.hide()
        buttons = QHBoxLayout()
        for button in (self.copy_button, self.export_button, self.window_button, self.cancel_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.scratch = PageView()  # numbers, messages
        self.compare = CompareView()
        self.left_box, self.right_box = QComboBox(), QComboBox()
        for box in (self.left_box, self.right_box):
            box.addItems(list(SYMBOLIC_METHODS))
        picks = QHBoxLayout()
        picks.addWidget(QLabel("Compare"))
        picks.addWidget(self.left_box)
        picks.addWidget(QLabel("with"))
        picks.addWidget(self.right_box)
        picks.addStretch(1)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addLayout(picks)
        side_layout.addWidget(_scroll(self.compare), 1)
        self.tabs = QTabWidget()
        self.scroll = _scroll(self.scratch)
        self.tabs.addTab(self.scroll, "Equations")
        self.tabs.addTab(side, "Side by side")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        layout.addWidget(self.busy)
        layout.addWidget(self.tabs, 1)
        self.set_exportable(False)

    @property
    def page(self) -> PageView:
        """The page on display."""
        return self.scroll.widget()

    def show_view(self, view: PageView) -> None:
        if self.scroll.widget() is not view:
            self.scroll.takeWidget()  # kept alive by its cache entry (or as the scratch page)
            self.scroll.setWidget(view)

    def set_exportable(self, ready: bool) -> None:
        self.copy_button.setEnabled(ready)
        self.export_button.setEnabled(ready)

    def set_busy(self, busy: bool, text: str = "") -> None:
        self.busy.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.state.setText(text)
