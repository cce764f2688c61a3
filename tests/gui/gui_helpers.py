"""Small helpers shared by the GUI tests."""
from __future__ import annotations

import numpy as np

from eomlab.gui.runner import AS_FAST_AS_POSSIBLE


def main_samples(window) -> np.ndarray:
    return window.samples()[1]


def wait_for_samples(qtbot, window, count: int, timeout: int = 20000) -> np.ndarray:
    qtbot.waitUntil(lambda: len(main_samples(window)) >= count or bool(window.last_error), timeout=timeout)
    assert not window.last_error, window.last_error
    return main_samples(window)


def run_fast(window) -> None:
    window.set_speed(AS_FAST_AS_POSSIBLE)
    window.run()


def relative_energy_drift(window) -> float:
    columns, rows = window.samples()
    energy = rows[:, columns.index("E")]
    scale = max(abs(energy[0]), rows[0, columns.index("T")] + abs(rows[0, columns.index("V")]), 1e-12)
    return float(np.max(np.abs(energy - energy[0])) / scale)


def isolated_settings():
    """A QSettings in a fresh temporary folder: a script the tests start never reads or writes the
    developer's settings (arrows switched on, plots chosen)."""
    import os
    import tempfile

    from PySide6.QtCore import QSettings

    return QSettings(os.path.join(tempfile.mkdtemp(prefix="eomlab-settings-"), "eomlab.ini"), QSettings.IniFormat)
