"""The Analyze menu: the linearized model's modes moving on the mechanism (Analyze ▸ Modes) and its
eigenvalues against a parameter (Analyze ▸ Stability), from engine.linearize."""
from __future__ import annotations


def fill_menu(window, menu) -> None:
    """Put Modes and Stability into `menu` (the main window's Analyze menu); each opens its dock."""
    from eomlab.gui.analysis.modes import ModesPanel
    from eomlab.gui.analysis.stability_dialog import StabilityPanel

    window.modes_panel = ModesPanel(window)
    window.stability_panel = StabilityPanel(window)
    menu.addAction(window.action("Modes…", window.modes_panel.open,
                                 tip="linearize about the initial state and show each mode moving"))
    menu.addAction(window.action("Stability…", window.stability_panel.open,
                                 tip="the eigenvalues against a parameter, and where a real part crosses zero"))
