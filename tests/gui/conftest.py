"""GUI tests run on Qt's offscreen platform; tests marked `xvfb` start their own process on a
real X display (an existing DISPLAY, or a fresh Xvfb through xvfb-run) and are skipped without."""
from __future__ import annotations

import gc
import itertools
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from window_fixtures import window_maker  # noqa: E402
from gui_helpers import x_display_command



def pytest_collection_modifyitems(config, items):
    if x_display_command() is None:
        skip = pytest.mark.skip(reason="needs an X display: no DISPLAY and no xvfb-run")
        for item in items:
            if "xvfb" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def collect_garbage_on_the_gui_thread():
    """As gui/app.py has it: no automatic collection, which may run on any thread (numba's loader, a
    run's worker) and free Qt objects there while the GUI thread uses them. The suite once hung
    so: the loader's collection destroyed an earlier test's QObject, holding Qt's connection lock
    while it waited for the GIL, which the GUI thread held while it waited for that lock.
    Garbage is collected here, on the GUI thread, after each test."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        collect_what_the_test_left()


#: every this many tests the frozen objects are collected too (cycles that died after being frozen)
FULL_COLLECTION_EVERY = 25
_tests_collected = itertools.count(1)


def collect_what_the_test_left() -> None:
    """The objects allocated since the last collection; the survivors are then frozen (gc.freeze), so
    that the next test's collection does not walk them again: a worker's heap grows to a few hundred
    thousand objects (sympy, scipy, numba, the windows of earlier tests), and a full collection of it
    after each test cost 0.1–1 s, about a fifth of the suite's time. Everything is collected every
    FULL_COLLECTION_EVERY tests, so a cycle that died after its freeze is freed too."""
    if next(_tests_collected) % FULL_COLLECTION_EVERY == 0:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


@pytest.fixture
def session(qapp):
    """A session on the simple pendulum; its runs (gui_helpers.run_with_samples) have no real worker."""
    from eomlab.engine.presets import preset
    from eomlab.gui.runs.session import Session

    s = Session(preset("simple_pendulum"))
    yield s
    s.runs = []  # none of the runs has a worker to stop


@pytest.fixture
def settings_store(tmp_path):
    return QSettings(str(tmp_path / "eomlab.ini"), QSettings.IniFormat)


@pytest.fixture
def make_window(qtbot, settings_store):
    """Build a main window on a model; closed (and its workers joined) after the test."""
    yield from window_maker(qtbot, settings_store, refuse_restore=False)


@pytest.fixture
def runs_end_at_t_end(monkeypatch):
    """The window's runs end at the model's t_end (they go on past it until paused otherwise)."""
    from eomlab.gui.runs.session import Session

    monkeypatch.setattr(Session, "go_on_past_t_end", False)
