"""Drawing a window: one QTimer redraws the mechanism and the plots at most 60 times a second.

Samples arrive whenever the workers send them (the session keeps them); this only marks the
picture stale. At each tick the scene shows every run's pose at the session's time cursor (the
same instant for all runs), and the plots redraw in turn while a run goes (`PLOTS_PER_TICK` per
tick: a plot costs milliseconds to paint, all six in one tick would hold up the scene's next frame;
every other tick when the mechanism itself took long to draw), every stale plot at once otherwise.
"""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer, Signal

from eomlab.gui.plots.plot_panel import PLOT_TITLES
from eomlab.gui.scene.scene2d import TRAIL_LENGTH
from eomlab.gui.runs.run_state import RunState

#: the redraw timer's period: 16 ms ≈ 60 Hz
REDRAW_MS = 16
#: while a run goes, this many plots redraw per tick, in turn (six plots → each about 10 Hz)
PLOTS_PER_TICK = 1
#: drawing the mechanism (with its arrows) took longer than this (CPU ms): the plots take their turn
#: every other tick only, so the frame still fits its 16.7 ms (a plot's refresh and paint is a large
#: share of a frame; bench/README.md, "The window")
SCENE_BUDGET_MS = 1.8
#: the compare panel's difference plot and cost table take their turn under this name
COMPARE_PLOT = "compare"


class FrameCount:
    """Frames drawn and distinct frames (a pose that differs from the one drawn before) since
    `restart`, over the wall seconds from the first of them: what the screen showed, not what
    arrived."""

    def __init__(self):
        self.restart()

    def restart(self) -> None:
        self.frames, self.distinct, self.start = 0, 0, None
        self._last = None

    def drawn(self, frame) -> None:
        if self.start is None:
            self.start = time.perf_counter()
        self.frames += 1
        last, self._last = self._last, frame
        if last is None or not (last is frame or (np.array_equal(last.origins, frame.origins)
                                                  and np.array_equal(last.rotations, frame.rotations))):
            self.distinct += 1

    def report(self) -> dict:
        seconds = 0.0 if self.start is None else time.perf_counter() - self.start
        return {"drawn": self.frames, "distinct": self.distinct, "seconds": round(seconds, 3)}


class Redraw(QObject):
    #: a tick drew the picture anew (new samples or a moved cursor): the timeline and the plots'
    #: cursor follow it, once a frame rather than once a batch
    drawn = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.frames_drawn = 0
        #: what the screen showed since the runs started: frames drawn, those whose pose differs
        #: from the frame before, over how many wall seconds (`--report`'s "frames")
        self.count = FrameCount()
        self.ticks = 0
        self.dirty = False
        self.plot_order = [*PLOT_TITLES, COMPARE_PLOT]
        self.stale_plots: set[str] = set()  # plots whose data changed since they were drawn
        self._next_plot = 0
        self._shown_time = None
        self.scene_ms = 0.0  # CPU time of the last drawing of the mechanism
        #: called at each tick before the picture (a recording draws its instants there, gui/actions/recording.py)
        self.before_draw = None
        self._plot_tick = 0  # the tick at which a plot last took its turn while a run went
        self.session.advanced.connect(self.mark_dirty)
        self.session.cursor_moved.connect(lambda _t: self.mark_dirty())
        self.session.runs_started.connect(self.mark_dirty)
        self.session.runs_started.connect(self.count.restart)
        # a plot shown again draws what it missed while hidden
        window.plots.shown_changed.connect(lambda _keys: self.stale_plots.update(self.plot_order))
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def mark_dirty(self) -> None:
        self.dirty = True

    def stop(self) -> None:
        self.timer.stop()

    def tick(self) -> None:
        """One tick of the timer (tests call it to draw at once)."""
        self.ticks += 1
        window = self.window
        if self.before_draw is not None:
            self.before_draw()
        self.session.settle_cursor()  # the batches since the last tick move the cursor once
        if self.dirty:
            self.dirty = False
            frames = self.session.frames_at_cursor()
            main = frames[0][1] if frames else None
            t = self.session.cursor_time()
            if main is not None:
                if t != self._shown_time:
                    self._shown_time = t
                    window.run_actions.show_time(t, window.model.settings.t_end)
                begin = time.thread_time()
                window.scene.show_frame(main)
                window.arrows.draw()
                self._show_trail(t)
                self.scene_ms = 1e3 * (time.thread_time() - begin)
                self._paint_now(window.scene)
                self.frames_drawn += 1
                self.count.drawn(main)
            window.compare_view.show_frames(frames)
            self.stale_plots.update(self.plot_order)
            self.drawn.emit()
        if not self.stale_plots:
            return
        due = self._due_plots()
        self.stale_plots.difference_update(due)
        keys = [key for key in due if key != COMPARE_PLOT]
        if keys:
            window.plots.refresh(keys)
        if COMPARE_PLOT in due:
            window.compare_view.redraw_plots()

    def draw_frames(self, t: float, frames) -> None:
        """The mechanism at instant t with these poses, (run, frame) per run, now, whatever instant
        the window shows (a recording's frame; the next tick draws the instant shown again)."""
        window = self.window
        main = frames[0][1] if frames else None
        if main is not None:
            window.scene.show_frame(main)
            window.arrows.draw()
            self._show_trail(t)
        window.compare_view.show_frames(frames)
        self.dirty = True

    @staticmethod
    def _paint_now(scene) -> None:
        """Paint the 2-D mechanism at once, before the plots' turn: each frame then reaches the
        screen the same few milliseconds after its tick, whatever the plot this tick costs (a plot
        drawn before the paint made the mechanism's frames uneven)."""
        if getattr(scene, "viewport", None) is not None and scene.isVisible():
            # the scene hands its changed items to the view (a queued call), which asks the window
            # for a paint (a posted request): both sent now, nothing else (a repaint() here would
            # paint once more when they are sent later)
            QCoreApplication.sendPostedEvents(scene.scene(), QEvent.MetaCall)
            QCoreApplication.sendPostedEvents(scene.window(), QEvent.UpdateRequest)

    def _show_trail(self, t: float) -> None:
        """The main run's last body, its mass centre over the latest samples up to `t`."""
        show_trail = getattr(self.window.scene, "show_trail", None)
        runs = self.session.runs
        if show_trail is None or not runs or runs[0].series is None or not runs[0].series.info.body_names:
            return
        series = runs[0].series
        body = series.info.body_names[-1]
        columns = [series.info.columns.index(f"{body}.{axis}") for axis in "xyz"]
        show_trail(series.buffer.tail_until(t, TRAIL_LENGTH, columns))

    def redraw_all(self) -> None:
        """Everything shown, now (a screenshot, a report)."""
        self.dirty = True
        self.stale_plots.update(self.plot_order)
        self.tick()  # the scene; and every plot shown unless a run goes
        rest = [key for key in self.plot_order if key in self.stale_plots and self._shown(key)]
        self.stale_plots.difference_update(rest)
        keys = [key for key in rest if key != COMPARE_PLOT]
        if keys:
            self.window.plots.refresh(keys)
        if COMPARE_PLOT in rest:
            self.window.compare_view.redraw_plots()

    def _due_plots(self) -> list[str]:
        if self.session.state != RunState.RUNNING:
            return [key for key in self.plot_order if key in self.stale_plots and self._shown(key)]
        if self.scene_ms > SCENE_BUDGET_MS and self.ticks - self._plot_tick < 2:
            return []  # a heavy picture this tick: the plots wait for the next
        self._plot_tick = self.ticks
        due = []
        for _ in range(len(self.plot_order)):
            key = self.plot_order[self._next_plot % len(self.plot_order)]
            self._next_plot += 1
            if key in self.stale_plots and self._shown(key):
                due.append(key)
                if len(due) == PLOTS_PER_TICK:
                    break
        return due

    def _shown(self, key: str) -> bool:
        """Whether a plot can be seen now (a closed dock's plots wait until it is shown)."""
        if key == COMPARE_PLOT:
            return self.window.compare_view.plots_visible()
        return self.window.plots.is_shown(key)
