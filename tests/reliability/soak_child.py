"""The soak test's child process (soak.py starts it): one window as the app sets it up, the cycle,
the memory samples, the report.

The window is set up as `eomlab gui` does (as the GUI monkey's child does: garbage collected on the
GUI thread, the painting kept there); the hooks and the GUI thread's watchdog are the monkey's
(monkey_child.Watch). The cycle runs on the GUI thread between short waits of the event loop; a
thread samples the memory and writes the per-period line and the report.
"""
from __future__ import annotations

import dataclasses
import faulthandler
import gc
import json
import os
import sys
import threading
import time
import traceback

from monkey_child import Watch, stall_bound
from soak import CYCLE, RESET_EVERY, SAMPLES_PER_PERIOD, WINDOW_SIZE, memory_verdict, period_summary, sample

MAX_PROBLEMS = 50  # kept in the report (the count goes on)
ADVANCE_PERIOD = 30.0  # periods this long or longer check that the chain advances (shorter: no time to)
T_END = 3600.0
START_WAIT_S = 60.0  # the soak's clock starts once the chain runs, or after this long  # the model's t_end: a recording (of t_end's length from the menu) outlasts every cycle


class Soak:
    """What the soak has seen so far; the report is written from it."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.lock = threading.Lock()
        self.periods: list[dict] = []
        self.cycles = 0
        self.recordings = 0
        self.empty_recordings = 0  # stopped before a frame came (short periods only)
        self.resets = 0
        self.compare_toggles = 0
        self.problems: list[dict] = []
        self.problem_count = 0
        self.longest_stall = 0.0
        self.started = time.monotonic()
        self.finished = False

    def problem(self, kind: str, text: str, **more) -> None:
        with self.lock:
            self.problem_count += 1
            at = round(time.monotonic() - self.started, 1)
            if len(self.problems) < MAX_PROBLEMS:
                self.problems.append({"kind": kind, "at_s": at, "text": text[-3000:], **more})
        print(f"[{at:7.0f} s] {kind}: {text.strip().splitlines()[-1][:300] if text.strip() else ''}", flush=True)

    def failure(self) -> str:
        if self.problems:
            first = self.problems[0]
            return f"{self.problem_count} problem(s), the first at {first['at_s']} s: {first['kind']}: " + \
                first["text"].strip().splitlines()[-1][:300]
        return memory_verdict(self.periods) if self.finished else ""

    def write(self) -> None:
        with self.lock:
            report = {"finished": self.finished, "seconds": self.spec["seconds"], "period_s": self.spec["period"],
                      "links": self.spec["links"], "window_size": list(WINDOW_SIZE),
                      "elapsed_s": round(time.monotonic() - self.started, 1), "cycles": self.cycles,
                      "recordings_written": self.recordings, "recordings_empty": self.empty_recordings,
                      "resets": self.resets,
                      "compare_toggles": self.compare_toggles, "longest_gui_stall_s": round(self.longest_stall, 3),
                      "problem_count": self.problem_count, "problems": list(self.problems),
                      "memory": list(self.periods)}
            report["failure"] = self.failure()
        partial = self.spec["report"] + ".part"
        with open(partial, "w") as fh:
            json.dump(report, fh, indent=1)
        os.replace(partial, self.spec["report"])

    def sampler(self, t0: float, deadline: float) -> None:
        """Every period / SAMPLES_PER_PERIOD: a sample; at each period's end its line and the report."""
        period, pid, taken, k = self.spec["period"], os.getpid(), [], 0
        while True:
            k += 1
            wake = t0 + k * period / SAMPLES_PER_PERIOD
            if wake > deadline + 1e-6:
                return
            time.sleep(max(0.0, wake - time.monotonic()))
            taken.append(sample(pid))
            if k % SAMPLES_PER_PERIOD == 0:
                summary = period_summary(k // SAMPLES_PER_PERIOD - 1, taken)
                taken = []
                with self.lock:
                    self.periods.append(summary)
                first = self.periods[0]
                print(f"[{time.monotonic() - t0:7.0f} s] period {summary['period']:3d}: window {summary['window_mb']:7.1f} MB"
                      f" (first {first['window_mb']:.1f}), with its runs' own pages {summary['total_mb']:7.1f} MB (first "
                      f"{first['total_mb']:.1f}), {summary['processes_max']} child processes; cycles {self.cycles}, "
                      f"recordings {self.recordings}, resets {self.resets}, problems {self.problem_count}, "
                      f"longest stall {self.longest_stall:.2f} s", flush=True)
                self.write()


def _chain(links: int):
    from eomlab.engine.presets import preset

    model = preset("planar_chain", n=links)
    return dataclasses.replace(model, settings=dataclasses.replace(model.settings, t_end=T_END))


class Cycle:
    """The steps on the window: File ▸ Record MP4 and its stop, compare on and off, Run ▸ Reset."""

    def __init__(self, window, soak: Soak, workdir: str):
        self.window, self.soak, self.workdir = window, soak, workdir
        self.path = ""
        self.shown = None  # the instant shown after compare mode went off (None after a reset)
        self.ended: list[tuple[str, object]] = []  # the recorder's finished/failed signals
        window.recording._ask_path = lambda *_a: self.path  # File ▸ Record MP4's save dialog, answered

    def do(self, step: str, cycle: int) -> None:
        window, recording = self.window, self.window.recording
        if step == "record":
            t = window.session.cursor_time()
            if self.shown is not None and t <= self.shown and self.soak.spec["period"] >= ADVANCE_PERIOD:
                self.soak.problem("run", f"the chain did not advance since compare mode went off in cycle "
                                         f"{cycle - 1} (t = {t:g} s then and now)")
            self.path = os.path.join(self.workdir, f"soak{cycle}.mp4")
            recording.mp4_action.trigger()
            if not recording.recording:
                self.soak.problem("recording", "File ▸ Record MP4 did not start a recording")
                return
            recording.recorder.finished.connect(lambda path, frames: self.ended.append(("finished", frames)))
            recording.recorder.failed.connect(lambda message: self.ended.append(("failed", message)))
        elif step in ("compare on", "compare off"):
            window.run_actions.act_compare.trigger()  # Ctrl+M's action
            if window.session.compare != (step == "compare on"):
                self.soak.problem("compare", f"{step}: the session's compare mode is {window.session.compare}")
            with self.soak.lock:
                self.soak.compare_toggles += 1
            if step == "compare off":
                self.shown = window.session.cursor_time()
        elif step == "stop recording":
            self._stop()
        elif step == "reset" and cycle % RESET_EVERY == 1:
            window.reset()  # Run ▸ Reset: back to t = 0, paused
            window.run()  # Run ▸ Run: the chain goes on running
            self.shown = None
            with self.soak.lock:
                self.soak.resets += 1

    def _stop(self) -> None:
        recording = self.window.recording
        if not recording.recording:
            self.soak.problem("recording", f"the recording ended before it was stopped: {self.ended}")
        else:
            self.ended.clear()
            recording.mp4_action.trigger()  # the same entry, now "Stop recording MP4"
            from PySide6.QtTest import QTest

            from eomlab.gui.actions.video import STOP_WAIT

            finish_by = time.monotonic() + STOP_WAIT + 2.0  # the window goes on while ffmpeg ends the file
            while not self.ended and time.monotonic() < finish_by:
                QTest.qWait(50)
            if recording.recording:
                self.soak.problem("recording", "stopping through File ▸ Stop recording MP4 left it recording")
            elif self.ended[:1] and self.ended[0][0] == "finished" and os.path.exists(self.path) and \
                    os.path.getsize(self.path) > 0:
                with self.soak.lock:
                    self.soak.recordings += 1
            elif self.ended == [("finished", 0)] and self.soak.spec["period"] < ADVANCE_PERIOD:
                with self.soak.lock:  # no frame yet: a short period gives the restarted runs no time
                    self.soak.empty_recordings += 1
            else:
                self.soak.problem("recording", f"no MP4 written: {self.ended or 'no signal'}; "
                                               f"{os.path.getsize(self.path) if os.path.exists(self.path) else 'no'}"
                                               " bytes on disk")
        if os.path.exists(self.path):
            os.remove(self.path)
        with self.soak.lock:
            self.soak.cycles += 1


def child_main(spec: dict) -> int:
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    faulthandler.enable()
    watch = Watch(spec["stacks"])
    soak = Soak(spec)
    from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from eomlab.gui.app import collect_garbage_on_the_gui_thread, keep_painting_on_the_gui_thread

    keep_painting_on_the_gui_thread()
    QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication([sys.argv[0]])
    collect_garbage_on_the_gui_thread(app)  # as `eomlab gui` (gui/app.py run_gui)
    watch.hook()
    from PySide6.QtTest import QTest

    from eomlab.gui.main_window import MainWindow

    settings = QSettings(os.path.join(spec["workdir"], "eomlab.ini"), QSettings.IniFormat)
    window = MainWindow(_chain(spec["links"]), None, run=True, settings=settings)
    gc.freeze()
    window.confirm_discard = lambda: True
    window.confirm_restore = lambda path: False
    shown = window.show_problem

    def show_problem(title, message, modal=False):  # a message box: the soak says what it said
        soak.problem("message", f"{title}: {message}")
        shown(title, message, modal)

    window.show_problem = show_problem
    window.resize(*WINDOW_SIZE)
    window.show()
    heartbeat = QTimer()
    heartbeat.timeout.connect(watch.tick)
    heartbeat.start(50)
    threading.Thread(target=watch.watchdog, daemon=True).start()
    QTest.qWait(1000)  # the window's first show and paint
    started = time.monotonic()  # and the chain's first samples (a loaded machine takes its time)
    while len(window.samples()[1]) < 2 and time.monotonic() < started + START_WAIT_S:
        QTest.qWait(100)
    watch.tick()
    watch.longest = watch.stalled = 0.0
    cycle = Cycle(window, soak, spec["workdir"])
    period = spec["period"]
    t0 = time.monotonic()
    soak.started = t0
    deadline = t0 + spec["seconds"]
    threading.Thread(target=soak.sampler, args=(t0, deadline), daemon=True).start()
    steps = [(c * period + f * period, c, step) for c in range(int(spec["seconds"] / period) + 1) for f, step in CYCLE]
    steps = [s for s in steps if s[0] < spec["seconds"]]
    while time.monotonic() < deadline or steps:  # a stalled GUI thread does the steps due late, not never
        now = time.monotonic() - t0
        while steps and steps[0][0] <= now:
            _at, c, step = steps.pop(0)
            try:
                cycle.do(step, c)
            except Exception:  # noqa: BLE001 - raised in the soak's own call into the window
                soak.problem("exception", f"cycle {c}, {step}: " + traceback.format_exc())
        QTest.qWait(100)
        _collect(watch, soak, window)
    if window.recording.recording:  # a run cut inside a cycle: the file finished, not counted
        window.recording.stop()
    QTest.qWait(200)
    _collect(watch, soak, window)
    time.sleep(max(0.0, deadline - time.monotonic()) + 0.2)  # the sampler's last period
    window.close()
    watch.stop = True
    soak.finished = True
    soak.write()
    failure = soak.failure()
    print(f"soak: {spec['seconds']:g} s, {soak.cycles} cycles, {soak.recordings} recordings written, "
          f"{soak.resets} resets; {failure or 'nothing found'}", flush=True)
    app.processEvents()
    os._exit(1 if failure else 0)  # the report is written; Python's teardown of Qt objects is not under test


def _collect(watch: Watch, soak: Soak, window) -> None:
    """The hooks' catches and the watchdog's stalls into the soak's problems; message boxes closed."""
    while watch.problems:
        kind, text = watch.problems.pop(0)
        soak.problem(kind, text)
    soak.longest_stall = max(soak.longest_stall, watch.longest)
    if watch.stalled:
        stacks = ""
        if os.path.exists(watch.stacks_path):
            with open(watch.stacks_path) as fh:
                stacks = fh.read()[-4000:]
        soak.problem("stall", f"the GUI thread did not answer for {watch.stalled:.2f} s of its own (bound {stall_bound():.2f} s "
                              f"at load {os.getloadavg()[0]:.1f}); " + watch.stall_words(), stacks=stacks)
        watch.stalled = 0.0
    for box in list(window.message_boxes):
        box.close()
