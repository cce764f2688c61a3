"""Child process of test_presentation (and the README's screenshots): open the window on a
model, enter presentation mode, save a light and a dark screenshot and print what the fonts were.

    xvfb-run -a -s "-screen 0 1920x1080x24" python tests/gui/presentation_shots.py MODEL LIGHT.png DARK.png [compare]
"""
from __future__ import annotations

import json
import sys

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import QApplication

#: wall time the model runs before the first picture, and between the two
RUN_MS, SETTLE_MS = 2500, 800


def main(model_path: str, light: str, dark: str, compare: bool) -> None:
    QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication(sys.argv[:1])
    import pyqtgraph as pg

    from eomlab.gui.app import load_start_model
    from eomlab.gui.main_window import MainWindow

    from gui_helpers import isolated_settings

    window = MainWindow(load_start_model(model_path), model_path, run=True, compare=compare, settings=isolated_settings())
    window.confirm_discard = lambda: True
    window.show()
    report = {}

    def shot(theme: str, path: str) -> None:
        window.plots.refresh()
        app.processEvents()
        plots = [p for p in window.findChildren(pg.PlotWidget) if p.isVisible()]
        axes = [p.getPlotItem().getAxis(side) for p in plots for side in ("left", "bottom")]
        report[theme] = dict(
            path=path, saved=window.grab().save(path), size=[window.width(), window.height()],
            label_px=[axis.label.font().pixelSize() for axis in axes],
            tick_px=[axis.style["tickFont"].pixelSize() if axis.style["tickFont"] else -1 for axis in axes],
            time_label_px=window.run_actions.time_label.fontInfo().pixelSize())

    def first() -> None:
        shot("light", light)
        window.presentation.set_theme("dark")
        QTimer.singleShot(SETTLE_MS, second)

    def second() -> None:
        shot("dark", dark)
        print(json.dumps(report), flush=True)
        window.close()
        app.quit()

    QTimer.singleShot(200, window.presentation.enter)
    QTimer.singleShot(RUN_MS, first)
    app.exec()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "compare")
