"""Screenshots of the arrows (the README's, and a look before committing): open the window on a
preset, switch arrow kinds on, run a while, pause and save the window.

    xvfb-run -a -s "-screen 0 1920x1080x24" python tests/gui/arrows_shots.py PRESET OUT.png KIND [KIND ...] [--ms=2500]

KIND is one of gui/arrow_sets.KINDS (velocity, applied, constraint, omega, momentum).
"""
from __future__ import annotations

import json
import sys

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication

#: wall time the model runs before the picture, from its first samples (the first run forks once the window's
#: run modules are loaded: seconds on a loaded machine, where a clock from the start saw no sample and no arrow)
RUN_MS = 2500
START_WAIT_S = 60.0


def main(preset_name: str, path: str, kinds: list[str], run_ms: int = RUN_MS) -> None:
    QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication(sys.argv[:1])
    from eomlab.engine.presets import preset
    from eomlab.gui.main_window import MainWindow

    from gui_helpers import after_first_samples, isolated_settings

    window = MainWindow(preset(preset_name), None, run=True, settings=isolated_settings())
    window.confirm_discard = lambda: True
    window.resize(1920, 1050)
    window.show()
    for kind in kinds:
        window.arrows.set_enabled(kind, True)

    def shot() -> None:
        window.pause()
        app.processEvents()
        window.redraw.redraw_all()
        app.processEvents()
        saved = window.grab().save(path)
        print(json.dumps(dict(path=path, saved=saved, scene=window.scene.objectName(),
                              drawn={k: len(s.points) + len(s.couple_points) for k, s in window.arrows.sets.items()},
                              problems=window.arrows.problems)), flush=True)
        window.close()
        app.quit()

    after_first_samples(window, run_ms, shot, START_WAIT_S)
    app.exec()


if __name__ == "__main__":
    wall = [int(a.split("=", 1)[1]) for a in sys.argv[3:] if a.startswith("--ms=")]
    main(sys.argv[1], sys.argv[2], [a for a in sys.argv[3:] if not a.startswith("--")], *wall)
