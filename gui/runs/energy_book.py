"""Keeps each run's energy account (engine/run/energy_account.py) in step with the run's edits.

A run's first sample begins its first stretch. An edit that changes the model or the state (a
parameter, a drag while paused, a state set) begins a new one from the state after it, so the
drift plot and W start again there rather than booking the jump; a pull's spring (a drag while
the run goes) is a non-conservative force from "pull" to "release", and its ΔE is work. Whether the
model itself is conservative is the engine's word (`model_facts`). A drag is marked on the time
plots as a parameter change is (gui/editing/parameter_panel.py marks those).
"""
from __future__ import annotations

from PySide6.QtCore import QObject

from eomlab.engine.simulation import SAME_TIME, conservative
from eomlab.gui.runs.run_messages import EditKind

#: edits that change the model or the state: a new stretch, the jump of E is nobody's work
RESTARTS = (EditKind.SET_PARAMETER, EditKind.DRAG_TO)
#: models whose word is kept: every start (compare mode's, an edit's) brings new model objects, and
#: a word kept for each held them all (the soak test's window, issue 31); the few in use are kept
KEPT_MODELS = 16


class EnergyBook(QObject):
    def __init__(self, session, marks=None, parent=None):
        """`marks`: gui/plot_marks.PlotMarks, where a drag is marked (None: not marked)."""
        super().__init__(parent)
        self.session, self.marks = session, marks
        self._conservative: dict[int, tuple[object, bool]] = {}  # id(model) → (model, its word)
        self._pulling: set[int] = set()  # ids of the runs a pull's spring holds
        session.runs_started.connect(self._pulling.clear)
        session.advanced.connect(self.open_first_stretches)
        session.edited.connect(self.on_edited)

    def conservative(self, model) -> bool:
        known = self._conservative.get(id(model))
        if known is None or known[0] is not model:
            if len(self._conservative) >= KEPT_MODELS:
                self._conservative.clear()
            known = self._conservative[id(model)] = (model, conservative(model))
        return known[1]

    def _forced(self, run) -> bool:
        return id(run) in self._pulling or (run.model is not None and not self.conservative(run.model))

    def open_first_stretches(self) -> None:
        for run in self.session.runs:
            series = run.series
            if series is not None and not series.account.stretches and len(series.buffer):
                self._begin(run, series.buffer.view()[:1], None)

    def on_edited(self, run, kind: EditKind, t: float) -> None:
        series = run.series
        if series is None:
            return
        if kind == EditKind.CONTINUE_FROM:
            series.account.drop_after(t)
            self._pulling.discard(id(run))
            # an undone drag goes back to the state before it at the same instant: that stretch
            # starts again from the state the run now has there
            stretches, row = series.account.stretches, series.rows_until(t)[-1:]
            if stretches and len(row) and abs(stretches[-1].t0 - t) <= SAME_TIME \
                    and series.column(row, "E")[0] != stretches[-1].e0:
                self._begin(run, row, None)
            return
        if kind == EditKind.PULL:
            self._pulling.add(id(run))
        elif kind == EditKind.RELEASE:
            self._pulling.discard(id(run))
        elif kind not in RESTARTS:
            return
        rows = series.rows_until(t)[-2:]
        if not len(rows):
            return
        before = rows[0] if len(rows) == 2 and rows[0, 0] < rows[1, 0] else None
        self._begin(run, rows[-1:], before)
        if kind == EditKind.DRAG_TO and self.marks is not None and self.session.runs and run is self.session.runs[0]:
            self.marks.mark_change(t, "drag", key=("drag", round(t, 9)))

    def _begin(self, run, row, before) -> None:
        series = run.series
        energy, kinetic, potential = (series.column(row, c) for c in ("E", "T", "V"))
        if energy is None:
            return
        energy_before = float(series.column(before[None], "E")[0]) if before is not None else None
        series.account.begin(float(row[0, 0]), float(energy[0]), float(kinetic[0]), float(potential[0]),
                             self._forced(run), energy_before=energy_before)
