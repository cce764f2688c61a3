"""Entry point of the window: `run_gui`, called by `eomlab` and `eomlab gui MODEL ...`."""
from __future__ import annotations

import gc
import os
import sys
import time

from eomlab.engine.model import ModelError


#: what the last scripted run (run_for/screenshot) showed: scene, samples, problem, t — for checks
last_run: dict = {}


def load_start_model(model_path: str | None):
    """The model to open: the file (a bad one raises its ModelError, naming the file) or the
    default preset."""
    if model_path:
        from eomlab.engine.modelfile import load_model

        try:
            return load_model(model_path)
        except ModelError as error:
            raise (error if error.source else error.with_source(model_path)) from None
        except OSError as error:
            raise ModelError("", f"cannot read the file: {error.strerror or error}", model_path) from error
    from eomlab.engine.presets import DEFAULT_PRESET, preset

    return preset(DEFAULT_PRESET)


def keep_painting_on_the_gui_thread() -> None:
    """Before the QApplication: Qt's raster engine splits large fills and blits (the views'
    backgrounds, cached axes) over a pool of threads and waits for them. With the run on the other
    of two cores, the GUI thread then waits for a core rather than painting on its own."""
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")


def collect_garbage_on_the_gui_thread(app) -> None:
    """No automatic collection, which may run on any thread: a collection on a worker thread could
    free Qt objects there while the GUI thread uses them (seen as a deadlock with gdb). A timer on
    the GUI thread collects instead, each second, as far as the counts call for."""
    from pyqtgraph.util.garbage_collector import GarbageCollector

    app._eomlab_gc = GarbageCollector(interval=1.0)


#: the equations panel's worker processes start this long after the window (ms)
PREWARM_MS = 3000
#: a scripted run's picture waits at most this much longer than run_for for every view's first frame
READY_WAIT_S = 60.0
READY_POLL_MS = 100


def shows_every_view(window) -> bool:
    """Whether a scripted run's picture would show motion: two samples or more, or a run that
    has ended (a bad model or a stop), and in compare mode every method's tile made and drawn."""
    from eomlab.gui.report import views
    from eomlab.gui.runs.run_state import RunState

    if len(window.samples()[1]) < 2 and window.session.state == RunState.RUNNING:
        return False
    shown = views(window)
    if window.session.compare and len(shown) < len(window.session.runs):
        return False  # a method's tile or overlay figure not drawn yet
    return all(view["t"] is not None for view in shown) and not window.compare_view.tiles.waiting


def run_gui(model_path: str | None = None, run_for: float | None = None, screenshot: str | None = None,
            compare: bool = False, presentation: bool = False, size: tuple[int, int] | None = None,
            report: str | None = None) -> int:
    """Open the window on `model_path` (default: the default preset), running at once.

    With `run_for` (seconds of wall time), `screenshot` (a PNG path) and/or `report` (a JSON path,
    gui/report.py) the window runs that long, saves a picture of the whole window and/or its layout
    report, closes and returns 0. `compare` runs every formulation at once; `presentation` opens in
    presentation mode; `size` (w, h) sizes the window. A bad model file raises its `ModelError`
    before any window opens.
    """
    model = load_start_model(model_path)

    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication

    keep_painting_on_the_gui_thread()
    if QApplication.instance() is None:
        # one GL share group for the whole process: pyqtgraph caches its shader programs
        # globally, and a second 3-D view (a later window) must be able to use them
        QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("eomlab")
    app.setOrganizationName("eomlab")
    collect_garbage_on_the_gui_thread(app)
    from eomlab.gui.main_window import MainWindow
    from eomlab.gui.single_shot import single_shot

    window = MainWindow(model, model_path, run=True, compare=compare)
    # what exists now (modules, sympy and scipy, the window) lives as long as the process: out of
    # the collector's sight, a full collection is short instead of a pause of a frame or more, which
    # the GarbageCollector above would otherwise spend on the GUI thread mid-run
    gc.freeze()
    if size is not None:
        window.resize(*size)
    window.show()
    if presentation:
        window.presentation.enter(size)
    scripted = run_for is not None or screenshot is not None or report is not None
    if not scripted:
        # the equations panel's processes load sympy and the fonts while the user looks at the
        # run, after the first frames are drawn, so that asking for the equations finds them ready
        single_shot(PREWARM_MS, window, window.equations_view.prewarm)
    if scripted:
        window.confirm_discard = lambda: True
        window.confirm_restore = None  # a scripted run neither asks nor touches recovery files
        saved: list[bool] = []

        def finish() -> None:
            columns, rows = window.samples()
            last_run.clear()
            last_run.update(scene=window.scene.objectName(), samples=len(rows), problem=window.last_error,
                            t=float(rows[-1, 0]) if len(rows) else 0.0)
            # hold the runs and take in the batches still queued, so the picture and the report
            # show one instant everywhere (a busy GUI thread can be a few batches behind)
            window.session.pause()
            app.processEvents()
            window.redraw.redraw_all()
            if screenshot:
                saved.append(window.grab().save(screenshot))
            if report:
                saved.append(write_report(window, report))
            window.close()
            app.quit()

        deadline = time.monotonic() + READY_WAIT_S

        def finish_when_ready() -> None:
            # run_for counts from the start; on a busy machine the first samples or the compare tiles
            # may come later than that: the picture waits for them (up to READY_WAIT_S more)
            if shows_every_view(window) or time.monotonic() > deadline:
                finish()
            else:
                single_shot(READY_POLL_MS, window, finish_when_ready)

        single_shot(int(1000 * (run_for or 0.0)), window, finish_when_ready)
    code = app.exec()
    if scripted:
        if not all(saved):
            print(f"eomlab: could not write {screenshot or report}", file=sys.stderr)
            return 1
        return 0
    return int(code)


def write_report(window, path: str) -> bool:
    """The window's layout report (gui/report.py) as JSON; False if the file cannot be written."""
    import json

    from eomlab.gui.report import layout_report

    try:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(layout_report(window), out, indent=1)
    except OSError:
        return False
    return True
