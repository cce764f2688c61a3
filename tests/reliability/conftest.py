"""Fixtures of the reliability suite: windows on Qt's offscreen platform that ask nothing."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from window_fixtures import window_maker  # noqa: E402


@pytest.fixture
def settings_store(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "config" / "eomlab.ini"), QSettings.IniFormat)


@pytest.fixture
def make_window(qtbot, settings_store):
    """Main windows on a model, closed (workers joined) after the test; no dialogs asked."""
    yield from window_maker(qtbot, settings_store, refuse_restore=True)
