"""The GUI monkey's child process (gui_monkey.py starts it): one window, the actions, the invariants.

Writes each action to the log before doing it (so a crash leaves the list) and the outcome as JSON.
"""
from __future__ import annotations

import faulthandler
import gc
import json
import os
import random
import sys
import threading
import time
import traceback
import warnings

from gui_monkey import HANG_S, STALL_S, Outcome
from thread_time import run_queue_wait

WATCH_S = 0.05  # the watchdog looks at the GUI thread this often

#: Qt messages that say nothing about the program (the platform's chatter under Xvfb)
QT_NOISE = ("QStandardPaths", "XDG_RUNTIME_DIR", "QXcbConnection", "Could not connect to any X display",
            "propagateSizeHints", "This plugin does not support", "QOpenGLWidget", "requestActivate")


def stall_bound() -> float:
    """STALL_S on a machine with a core to spare; longer in proportion when the machine's load
    (processes wanting a core, over the last minute) exceeds its cores: the GUI thread then waits
    for a core, not for the program."""
    return STALL_S * max(1.0, os.getloadavg()[0] / len(os.sched_getaffinity(0)))  # the cores this process may use


class Watch:
    """What the hooks caught, and the watchdog of the GUI thread."""

    def __init__(self, stacks_path: str):
        self.problems: list[tuple[str, str]] = []  # (kind, text)
        self.beat = time.monotonic()
        self.longest = 0.0
        self.stalled = 0.0
        self.stall_cpu = 0.0  # the GUI thread's CPU seconds within that stall
        self.cpu = time.thread_time()  # tick runs on the GUI thread: its CPU time
        self.queued = run_queue_wait()  # and its seconds waiting for a core
        self.stall_gap = self.stall_queued = 0.0
        self.gui_thread = threading.get_native_id()  # made on the GUI thread
        self.states = {"runnable": 0, "asleep": 0}  # the watchdog's looks at the GUI thread since the last tick
        self.stall_states = dict(self.states)
        self.stacks_path = stacks_path
        self.stop = False

    def hook(self) -> None:
        from PySide6.QtCore import QtMsgType, qInstallMessageHandler

        sys.excepthook = lambda t, v, tb: self.problems.append(
            ("exception", "".join(traceback.format_exception(t, v, tb))))
        threading.excepthook = lambda a: self.problems.append(
            ("exception", "thread " + "".join(traceback.format_exception(a.exc_type, a.exc_value, a.exc_traceback))))
        sys.unraisablehook = lambda u: self.problems.append(
            ("exception", f"unraisable {u.exc_type.__name__}: {u.exc_value} in {u.object!r:.100}"))

        def on_warning(message, category, filename, lineno, file=None, line=None):
            if not issubclass(category, (DeprecationWarning, PendingDeprecationWarning, ImportWarning)):
                self.problems.append(("warning", f"{filename}:{lineno}: {category.__name__}: {message}"))

        warnings.showwarning = on_warning
        warnings.simplefilter("always")

        def on_qt(kind, context, text):
            if kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg) and \
                    not any(noise in text for noise in QT_NOISE):
                self.problems.append(("qt", f"Qt {kind.name}: {text}"))
                # and on standard error as well: Qt may end the process right after (xcb's "X11
                # connection broke": exit 1), and the parent then reports the child's output
                print(f"Qt {kind.name}: {text}", file=sys.stderr, flush=True)

        self._qt_handler = on_qt
        qInstallMessageHandler(on_qt)

    def watchdog(self) -> None:
        dumped = False
        while not self.stop:
            time.sleep(WATCH_S)
            gap = time.monotonic() - self.beat
            state = _thread_state(self.gui_thread)
            if state:
                self.states["runnable" if state == "R" else "asleep"] += 1
            if gap > stall_bound() and not dumped:
                with open(self.stacks_path, "w") as fh:
                    fh.write(f"GUI thread silent for {gap:.2f} s; every thread's stack:\n")
                    fh.flush()
                    faulthandler.dump_traceback(file=fh, all_threads=True)
                dumped = True
            if gap > HANG_S * stall_bound() / STALL_S:
                os._exit(3)
            if gap <= stall_bound():
                dumped = False

    def tick(self) -> None:
        now = time.monotonic()
        gap = now - self.beat
        cpu, queued = time.thread_time(), run_queue_wait()
        # the seconds the GUI thread stood ready in the kernel's run queue with no core free (other
        # processes' load, counted exactly) are the machine's, not the program's
        waited = queued - self.queued
        own = gap - waited
        self.longest = max(self.longest, own)
        if own > stall_bound() and own > self.stalled:
            self.stalled, self.stall_cpu, self.stall_states = own, cpu - self.cpu, dict(self.states)
            self.stall_gap, self.stall_queued = gap, waited
        self.beat, self.cpu, self.queued = now, cpu, queued
        self.states = {"runnable": 0, "asleep": 0}

    def stall_words(self) -> str:
        """How the GUI thread spent its longest stall: computing, ready to run but without a core
        (the machine's load), or asleep (waiting for a lock, a process, the X server)."""
        runnable = self.stall_states["runnable"] * WATCH_S
        return (f"silent {self.stall_gap:.2f} s, of which {self.stall_queued:.2f} s ready to run without a free "
                f"core (not counted); it computed {self.stall_cpu:.2f} s; the watchdog saw it runnable (computing "
                f"or waiting for a core) for about {runnable:.2f} s and asleep (a lock, a process, the X server) "
                f"for about {self.stall_states['asleep'] * WATCH_S:.2f} s")


def _thread_state(tid: int) -> str:
    """A thread's scheduling state from /proc ('R' running or runnable, 'S' asleep, 'D' in I/O…), '' if unknown."""
    try:
        with open(f"/proc/self/task/{tid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _model(name: str):
    if os.path.exists(name):
        from eomlab.engine.modelfile import load_model

        return load_model(name)
    from eomlab.engine.presets import preset

    return preset(name)


def _dismiss_dialogs(window) -> None:
    from PySide6.QtWidgets import QApplication, QDialog

    modal = QApplication.activeModalWidget()
    if modal is not None:
        modal.reject() if isinstance(modal, QDialog) else modal.close()
    for box in list(window.message_boxes)[:-2]:  # the window's non-modal notes: the last two stay
        box.close()


def _end_checks(window, baseline, workdir: str) -> str:
    """'' or what failed: the model saves and loads back; undoing everything gives `baseline`."""
    from eomlab.engine.modelfile import load_model, save_model

    path = os.path.join(workdir, "saved.eom.json")
    model = window.model
    try:
        save_model(model, path)
        loaded = load_model(path)
    except Exception as error:  # noqa: BLE001 - the invariant names it
        return f"save/load: {type(error).__name__}: {error}"
    if loaded != model:
        return "save/load: the model loaded back differs from the one saved"
    from PySide6.QtWidgets import QApplication

    stack = window.document.undo_stack
    while stack.canUndo():  # as Ctrl+Z pressed again and again: the window answers between the steps
        stack.undo()
        QApplication.processEvents()
    if window.model != baseline[0]:
        return "undo: undoing every edit does not give the original model"
    return ""


def child_main(spec: dict) -> int:
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    faulthandler.enable()
    watch = Watch(spec["stacks"])
    from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from eomlab.gui.app import collect_garbage_on_the_gui_thread, keep_painting_on_the_gui_thread

    keep_painting_on_the_gui_thread()
    QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication([sys.argv[0]])
    # the window as `eomlab gui` sets it up (gui/app.py run_gui): garbage collected on the GUI
    # thread only, and what lives as long as the process frozen out of the collector's sight. Without
    # these the child could pause where the program does not: a full collection mid-run over every
    # module's objects, or a collection on a run's worker thread (the deadlock gui/app.py names)
    collect_garbage_on_the_gui_thread(app)
    watch.hook()
    from eomlab.gui.main_window import MainWindow
    from monkey_actions import Actions, random_action

    settings = QSettings(os.path.join(spec["workdir"], "eomlab.ini"), QSettings.IniFormat)
    window = MainWindow(_model(spec["model"]), None, run=True, compare=spec["compare"], settings=settings)
    gc.freeze()
    window.confirm_discard = lambda: True
    window.confirm_restore = lambda path: False
    baseline = [window.model]
    load = window.document.load

    def loaded(model, path, description):  # a preset or file opened: its undo history starts there
        load(model, path, description)
        baseline[0] = window.model

    window.document.load = loaded
    window.show()
    watch.beat = time.monotonic()
    heartbeat = QTimer()
    heartbeat.timeout.connect(watch.tick)
    heartbeat.start(50)
    dismiss = QTimer()
    dismiss.timeout.connect(lambda: _dismiss_dialogs(window))
    dismiss.start(50)
    threading.Thread(target=watch.watchdog, daemon=True).start()
    actions = Actions(window, spec["workdir"])
    rng = random.Random(spec["seed"])
    given = spec["actions"]
    outcome = Outcome(spec["seed"], spec["model"], spec["compare"])
    deadline = time.monotonic() + spec["seconds"]
    log = open(spec["log"], "w")
    from PySide6.QtTest import QTest

    QTest.qWait(1000)  # the window's first show and paint are not a user's action
    watch.tick()
    watch.longest = watch.stalled = watch.stall_cpu = 0.0
    k = 0
    while (k < len(given)) if given is not None else time.monotonic() < deadline:
        action = given[k] if given is not None else random_action(rng)
        k += 1
        log.write(json.dumps({"action": action, "words": action[0]}) + "\n")
        log.flush()
        faulthandler.dump_traceback_later(HANG_S, exit=False)  # a hang inside one action shows its stack
        try:
            words = actions.do(action)
        except Exception:  # noqa: BLE001 - an exception in the monkey's own call into the window
            watch.problems.append(("exception", traceback.format_exc()))
            words = f"{action[0]} (raised)"
        faulthandler.cancel_dump_traceback_later()
        outcome.actions.append(action)
        outcome.done.append(words)
        QTest.qWait(15)
        if watch.problems or watch.stalled:
            break
    if not watch.problems and not watch.stalled:
        try:
            failed = _end_checks(window, baseline, spec["workdir"])
        except Exception:  # noqa: BLE001 - an undo raising: called from here, it never reaches the hooks
            failed = "undo everything raised: " + traceback.format_exc()
        QTest.qWait(50)
        if failed:
            watch.problems.append(("end", failed))
    outcome.longest_stall = watch.longest
    if watch.problems:
        outcome.kind, outcome.failure = watch.problems[0][0], watch.problems[0][1][-3000:]
    elif watch.stalled:
        outcome.kind, outcome.failure = "stall", (f"the GUI thread did not answer for {watch.stalled:.2f} s of its own (bound "
                                                  f"{stall_bound():.2f} s at load {os.getloadavg()[0]:.1f}); "
                                                  + watch.stall_words())
        with open(spec["stacks"]) as fh:
            outcome.stacks = fh.read()
    window.close()
    watch.stop = True
    with open(spec["result"], "w") as fh:
        json.dump(outcome.__dict__, fh)
    app.processEvents()
    os._exit(0)  # the outcome is written; Python's teardown of Qt objects is not under test here
