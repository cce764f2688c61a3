"""The Analyze menu: the linearized model's modes moving on the mechanism (Analyze ▸ Modes) and its
eigenvalues against a parameter (Analyze ▸ Stability), from engine.linearize."""
from __future__ import annotations


class AnalysisPanels:
    """The Modes and Stability panels of a window, each built when first asked for: each holds plots
    and tables (about 60 ms of CPU apiece), which a window that never opens them need not build."""

    def __init__(self, window):
        self.window = window
        self._modes = self._stability = None

    @property
    def modes(self):
        if self._modes is None:
            from eomlab.gui.analysis.modes import ModesPanel

            self._modes = ModesPanel(self.window)
        return self._modes

    @property
    def stability(self):
        if self._stability is None:
            from eomlab.gui.analysis.stability_dialog import StabilityPanel

            self._stability = StabilityPanel(self.window)
        return self._stability


def fill_menu(window, menu) -> AnalysisPanels:
    """Put Modes and Stability into `menu` (the main window's Analyze menu); each opens its dock."""
    panels = AnalysisPanels(window)
    menu.addAction(window.action("Modes…", lambda: panels.modes.open(),
                                 tip="linearize about the initial state and show each mode moving"))
    menu.addAction(window.action("Stability…", lambda: panels.stability.open(),
                                 tip="the eigenvalues against a parameter, and where a real part crosses zero"))
    return panels
