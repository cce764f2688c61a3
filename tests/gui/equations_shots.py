"""Screenshots of the equations panel as its own window (normal and presentation fonts):

    xvfb-run -a -s "-screen 0 1920x1080x24" python tests/gui/equations_shots.py MODEL METHOD OUT.png [presentation] [compare]
"""
from __future__ import annotations

import sys
import time

from PySide6.QtWidgets import QApplication


def main(model_path: str, method: str, out: str, presentation: bool, compare: bool) -> None:
    app = QApplication(sys.argv[:1])
    from eomlab.gui.app import load_start_model
    from eomlab.gui.main_window import MainWindow

    model = load_start_model(model_path).with_settings(method=method)
    from gui_helpers import isolated_settings

    window = MainWindow(model, model_path, run=False, settings=isolated_settings())
    window.confirm_discard = lambda: True
    window.showMaximized()
    if presentation:
        window.presentation.enter()
    view = window.equations_view
    view.show()
    if compare:
        view.panel.tabs.setCurrentIndex(1)
    view.own_window()
    start = time.perf_counter()
    while time.perf_counter() - start < 120:
        app.processEvents()
        time.sleep(0.02)
        if not view.pending and time.perf_counter() - start > 2:
            break
    print(f"settled after {time.perf_counter() - start:.1f} s; state: {view.state!r}")
    for _ in range(20):
        app.processEvents()
        time.sleep(0.02)
    view.dock.grab().save(out)
    window.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], "presentation" in sys.argv[4:], "compare" in sys.argv[4:])
