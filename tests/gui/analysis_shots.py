"""Child process for the README's pictures of Analyze ▸ Modes (a mode moving, presentation mode) and
Analyze ▸ Stability (the eigenvalues against a parameter):

    xvfb-run -a -s "-screen 0 1920x1080x24" python tests/gui/analysis_shots.py MODEL modes MODE PICTURE.png
    xvfb-run -a -s "-screen 0 1920x1080x24" python tests/gui/analysis_shots.py MODEL stability NAME=A:B:N PICTURE.png
"""
from __future__ import annotations

import json
import sys

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import QApplication

ANIMATE_MS = 1300


def main(model_path: str, what: str, arg: str, picture: str) -> None:
    QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication(sys.argv[:1])
    from eomlab.gui.app import load_start_model
    from eomlab.gui.main_window import MainWindow

    from gui_helpers import isolated_settings

    window = MainWindow(load_start_model(model_path), model_path, run=False, settings=isolated_settings())
    window.confirm_discard = lambda: True
    window.resize(1920, 1080)
    window.show()
    result = {}

    def modes() -> None:
        window.presentation.enter()
        window.modes_panel.open()
        window.modes_panel.amplitude.setValue(int(arg.split(":")[1]) if ":" in arg else 30)
        window.modes_panel.table.selectRow(int(arg.split(":")[0]))
        QTimer.singleShot(ANIMATE_MS, finish)

    def stability() -> None:
        window.stability_panel.open()
        window.stability_panel.dock.setFloating(True)
        window.stability_panel.dock.resize(1400, 800)
        name, _, spec = arg.partition("=")
        window.stability_panel.parameter.setCurrentText(name)
        window.stability_panel.range.setText(spec)
        window.stability_panel.compute()
        window.stability_panel.wait()
        QTimer.singleShot(300, finish)

    def finish() -> None:
        app.processEvents()
        panel = window.modes_panel
        shown = window.stability_panel.dock if what == "stability" else window
        result.update(saved=shown.grab().save(picture), status=window.stability_panel.status.text(),
                      modes=panel.table.rowCount(), summary=panel.summary.text(),
                      animating=panel.timer.isActive())
        print(json.dumps(result), flush=True)
        window.close()
        app.quit()

    QTimer.singleShot(300, modes if what == "modes" else stability)
    app.exec()


if __name__ == "__main__":
    main(*sys.argv[1:5])
