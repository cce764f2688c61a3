"""The main windows of the GUI and reliability tests (each suite's conftest gives the settings store
and says whether a window refuses the recovery of unsaved edits without asking)."""
from __future__ import annotations


def window_maker(qtbot, settings_store, refuse_restore: bool):
    """Yield make(model, path=None, run=False, **kwargs): main windows on a model, shown; closed
    (their workers joined) after the test, asking nothing."""
    from eomlab.gui.main_window import MainWindow

    windows = []

    def make(model, path=None, run=False, **kwargs):
        window = MainWindow(model, path, run=run, settings=settings_store, **kwargs)
        window.confirm_discard = lambda: True
        if refuse_restore:
            window.confirm_restore = lambda recovery_path: False
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.confirm_discard = lambda: True
        window.close()
