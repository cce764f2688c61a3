"""Fixtures of the reliability suite: windows on Qt's offscreen platform that ask nothing."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


@pytest.fixture
def settings_store(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "config" / "eomlab.ini"), QSettings.IniFormat)


@pytest.fixture
def make_window(qtbot, settings_store):
    """Main windows on a model, closed (workers joined) after the test; no dialogs asked."""
    from eomlab.gui.main_window import MainWindow

    windows = []

    def make(model, path=None, run=False, **kwargs):
        window = MainWindow(model, path, run=run, settings=settings_store, **kwargs)
        window.confirm_discard = lambda: True
        window.confirm_restore = lambda recovery_path: False
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.confirm_discard = lambda: True
        window.close()
