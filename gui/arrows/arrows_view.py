"""View ▸ Arrows: velocity, force and momentum arrows over the mechanism at the displayed instant.

The toggles (one per kind of gui/arrows/arrow_sets.py) and the arrow-length control live in the menu;
the arrows are drawn after the scene at each redraw tick (gui/redraw.py), at the sample of the
pose the scene shows (the session's cursor: compare mode and any scrubbing stay consistent).
The quantities come from the engine: those the main run's process sent with its latest batches,
or the run's `RunView` (engine/run/run_view.py), which reads any kept sample row. Scales follow the largest magnitudes
seen in the run so far (a high quantile of them), rounded; the legend of units sits in the 2-D scene's
title row (outside the view, so never over the mechanism) or in the 3-D view's lower left.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSlider, QWidget, QWidgetAction

from eomlab.engine.model import ModelError, is_planar
from eomlab.gui.runs.sent_quantities import SentQuantities
from eomlab.gui.arrows.arrow_sets import (COUPLE_UNIT, KINDS, ArrowSet, Scales, arrow_sets, couple_key,
                                   moving_and_spinning, readers_of, scale_text)
from eomlab.gui.arrows.arrows_draw import FlatArrows, SpaceArrows
from eomlab.gui.runs.run_state import RunState

#: the arrow-length control: a factor from 1/4 to 4, in steps of 2^(1/4)
LENGTH_STEPS = 8
#: the 3-D legend keeps this far from the view's edges (px)
LEGEND_MARGIN = 10
#: QSettings keys: the kinds shown (a list of KINDS keys) and the arrow-length step
KINDS_KEY = "arrows/kinds"
LENGTH_KEY = "arrows/length_step"


class Arrows(QObject):
    """The arrows of one window: `menu` for View ▸ Arrows, `draw()` after each scene frame."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.enabled: list[str] = []
        self.scales = Scales()
        self.sets: dict = {}  # what was drawn last, in world coordinates (tests read it)
        self.problems: dict = {}
        self._quantities = None
        self._quantities_key = None
        self._model_facts = (None, None)  # (model, (planar, its bodies with mass / with inertia))
        self._sample_key = None  # the sample `sets` were computed at: a repaint of it reuses them
        self._painters: dict = {}
        self._legends: dict = {}
        self._title = None  # (text, font px) of the 2-D scene's title row while it holds the legend
        self._seen_t = None  # the time of the sample the scales saw last
        self.menu = QMenu("Arrows", window)
        self.actions = {}
        for kind, (text, *_rest) in KINDS.items():
            action = self.menu.addAction(text)
            action.setObjectName(f"arrows_{kind}")
            action.setCheckable(True)
            action.toggled.connect(lambda on, k=kind: self.set_enabled(k, on))
            self.actions[kind] = action
        self.menu.addSeparator()
        self.length_slider = self._length_control()
        self.menu.addAction("Rescale from the shown instant on", self.rescale)
        self.session.runs_started.connect(self.rescale)
        self.session.runs_started.connect(self._ask_the_runs)  # (the model may have changed)
        self._restore_settings()

    def _restore_settings(self) -> None:
        """The kinds and the length the user chose last time (QSettings, as the plots' choice)."""
        store = getattr(self.window, "settings_store", None)
        if store is None:
            return
        kinds = store.value(KINDS_KEY, [])
        kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
        try:
            step = int(store.value(LENGTH_KEY, 0))
        except (TypeError, ValueError):
            step = 0
        # both read before either is set: setting one saves both
        self.set_length_step(max(-LENGTH_STEPS, min(LENGTH_STEPS, step)))
        for kind in [k for k in KINDS if k in kinds]:
            self.set_enabled(kind, True)

    def _save_settings(self) -> None:
        store = getattr(self.window, "settings_store", None)
        if store is None:
            return
        store.setValue(KINDS_KEY, [k for k in KINDS if k in self.enabled] or "")
        store.setValue(LENGTH_KEY, self.length_slider.value())
        store.sync()

    def _mark_dirty(self) -> None:
        redraw = getattr(self.window, "redraw", None)  # none yet while the window is built
        if redraw is not None:
            redraw.mark_dirty()

    def _length_control(self) -> QSlider:
        holder = QWidget(self.menu)
        row = QHBoxLayout(holder)
        row.setContentsMargins(24, 4, 12, 4)
        row.addWidget(QLabel("Arrow length"))
        slider = QSlider(Qt.Horizontal)
        slider.setObjectName("arrow_length")
        slider.setRange(-LENGTH_STEPS, LENGTH_STEPS)
        slider.setValue(0)
        slider.setToolTip("Longer or shorter arrows (×1/4 … ×4); the legend gives the units per pixel")
        self.length_label = QLabel("×1")
        slider.valueChanged.connect(self.set_length_step)
        row.addWidget(slider)
        row.addWidget(self.length_label)
        action = QWidgetAction(self.menu)
        action.setDefaultWidget(holder)
        self.menu.addAction(action)
        return slider

    # --- commands --------------------------------------------------------------------------------

    def set_enabled(self, kind: str, on: bool) -> None:
        if on and kind not in self.enabled:
            self.enabled.append(kind)
        elif not on and kind in self.enabled:
            self.enabled.remove(kind)
        if self.actions[kind].isChecked() != on:
            self.actions[kind].setChecked(on)
        self._ask_the_runs()
        self._save_settings()
        self._mark_dirty()

    def set_length_step(self, step: int) -> None:
        """Arrow length × 2^(step/4) (the slider's value)."""
        self.scales.factor = 2.0 ** (step / 4.0)
        self.length_label.setText(f"×{self.scales.factor:.2g}")
        if self.length_slider.value() != step:
            self.length_slider.setValue(step)
        self._save_settings()
        self._mark_dirty()

    def rescale(self) -> None:
        """Scales from the magnitudes seen from now on (a fresh run does this)."""
        self.scales.clear()
        self._seen_t = None
        self._mark_dirty()

    # --- drawing ------------------------------------------------------------------------------------

    def draw(self) -> None:
        """The arrows at the sample of the pose the scene shows (called after the scene drew it)."""
        scene = self.window.scene
        painter = self._painter_for(scene)
        legend = self._legend_for(scene)
        frame = getattr(scene, "frame", None)
        row = self._row_at(frame) if self.enabled else None
        if row is None:
            painter.clear()
            self.hide_legends()
            self.sets, self.problems, self._sample_key = {}, {}, None
            return
        model = self.session.model
        planar_model, bodies = self._facts_of(model)
        planar = planar_model and scene is self.window.scene2d
        run = self.session.runs[0]
        sample = (row.tobytes(), id(run.view), id(run.models), run.method, planar)
        if sample != self._sample_key:  # a new sample (or model, method, view): the engine computes
            self._sample_key, self.sets, self.problems = sample, {}, {}
        wanted = [kind for kind in self.enabled if kind not in self.sets]  # a repaint reuses what it has
        if wanted:
            quantities, problem = self._reader_at(model, run, row, wanted, planar)
            if quantities is None and problem is None:  # the run sends them from its next batch on
                self._sample_key = None
            elif quantities is None:
                self.problems.update({kind: problem for kind in wanted})
                self.sets.update({kind: ArrowSet() for kind in wanted})
            else:
                sets, problems = arrow_sets(quantities, row, frame, bodies, planar, wanted)
                self.sets.update(sets)
                self.problems.update(problems)
        if len(self.sets) > len(self.enabled):  # a kind switched off
            self.sets = {kind: s for kind, s in self.sets.items() if kind in self.enabled}
            self.problems = {kind: p for kind, p in self.problems.items() if kind in self.enabled}
        if row[0] != self._seen_t:  # each sample counts once towards the scales (not each repaint),
            # weighted by the simulated time since the last (a scrub backwards counts one output step)
            step = row[0] - self._seen_t if self._seen_t is not None and row[0] > self._seen_t else None
            weight = step if step is not None else self.session.model.settings.dt_out
            self._seen_t = row[0]
            for kind, arrow_set in self.sets.items():
                self.scales.see(kind, arrow_set.vectors, weight)
                self.scales.see(couple_key(kind), arrow_set.couples, weight)
        look = getattr(self.window, "presentation", None)  # presentation mode: thicker, larger
        painter.restyle(look.line_scale() if look is not None else 1.0)
        painter.draw(self.sets, self.scales)
        self._show_legend(legend, painter, scene)

    def _facts_of(self, model) -> tuple[bool, tuple]:
        """(whether the model is planar, `moving_and_spinning` of it), once per model."""
        if self._model_facts[0] is not model:
            self._model_facts = (model, (is_planar(model), moving_and_spinning(model)))
        return self._model_facts[1]

    def _row_at(self, frame) -> np.ndarray | None:
        """The main run's sample row of the pose `frame` (the one at or before its time)."""
        runs = self.session.runs
        if frame is None or not runs or runs[0].series is None:
            return None
        rows = runs[0].series.buffer.tail_until(frame.t + 1e-9, 1)
        return rows[0] if len(rows) else None

    def _ask_the_runs(self) -> None:
        """Have the runs compute what the arrows read at each batch's last sample (gui/runs/run_thread.py):
        the engine's part of the arrows then costs the window nothing while a run goes."""
        self.session.want_quantities(sorted(readers_of(self.enabled, is_planar(self.session.model))))

    def _reader_at(self, model, run, row: np.ndarray, kinds, planar: bool):
        """(what the arrows read at `row`, why nothing): the values the run's own process sent with
        one of its latest batches when they are this row's and hold every kind; (None, None) while
        a run goes that has not sent them yet (asked for a moment ago: nothing to draw this frame,
        and the window builds no engine of its own: pinocchio's Data is nv³ in size); else the engine's reader."""
        readers = readers_of(kinds, planar)
        sent = run.sent_quantities.get(float(row[0]))
        if sent is not None and readers <= sent.keys():
            return SentQuantities(sent), ""
        if self.session.state == RunState.RUNNING and self.session.following:
            latest = next(reversed(run.sent_quantities.values()), {})
            if not readers <= latest.keys():
                return None, None
        return self._quantities_for(model)

    def _quantities_for(self, model):
        """The engine's reader of the main run's rows (its `RunView`): each row with the parameters in
        force at its time (asked again when the runs, their history or the method change)."""
        run = self.session.runs[0]
        key = (id(run.view), id(run.models), run.method)
        if key != self._quantities_key:
            self._quantities_key = key
            try:
                self._quantities, self._problem = run.view.quantities(), ""
                columns = run.series.info.columns  # the rows' layout must be the reader's
                if tuple(columns[self._quantities.state_columns[0]]) != tuple(self._quantities.system.coordinate_names):
                    self._quantities, self._problem = None, "the run's coordinates differ from the model's"
            except (ModelError, ArithmeticError, ValueError) as err:
                self._quantities, self._problem = None, str(err)
        return self._quantities, self._problem

    def _painter_for(self, scene):
        """This scene's painter; the other scene's arrows are cleared (the view switched)."""
        key = id(scene)
        if key not in self._painters:
            if scene is self.window.scene2d:
                self._painters[key] = FlatArrows(scene)
                # a pan or zoom while paused: arrows keep their pixel lengths, the legend stays true
                scene.getPlotItem().getViewBox().sigRangeChangedManually.connect(
                    lambda *_args: self.window.redraw.mark_dirty())
            else:
                self._painters[key] = SpaceArrows(scene)
                scene.installEventFilter(self)  # the camera turned or zoomed: see eventFilter
        for other, painter in self._painters.items():
            if other != key:
                painter.clear()
        for other, legend in self._legends.items():
            if other != key:
                legend.hide()
        if scene is not self.window.scene2d and self._title is not None:
            self._title = None
            self.window.scene2d.getPlotItem().setTitle(None)
        return self._painters[key]

    def eventFilter(self, watched, event) -> bool:
        """A wheel or drag in the 3-D view moves the camera: redraw the arrows at their pixel lengths."""
        if self.enabled and event.type() in (QEvent.Wheel, QEvent.MouseMove):
            self.window.redraw.mark_dirty()
        return False

    def _legend_for(self, scene) -> QLabel:
        key = id(scene)
        if key not in self._legends:
            legend = QLabel(scene)  # a child widget: screenshots and recordings show it
            legend.setObjectName("arrow_legend")
            legend.setTextFormat(Qt.RichText)
            legend.setAttribute(Qt.WA_TransparentForMouseEvents)
            self._legends[key] = legend
        return self._legends[key]

    # --- the legend -----------------------------------------------------------------------------------

    def legend_lines(self, pixels: float) -> list[str]:
        """One entry per kind shown: its colour, its name, its scale (or why it shows nothing)."""
        lines = []
        for kind in [k for k in KINDS if k in self.enabled]:
            _menu, name, colour, unit = KINDS[kind]
            arrow_set = self.sets.get(kind)
            if kind in self.problems:
                lines.append(f"<span style='color:{colour}'>━━➤</span> {name}: <i>{self.problems[kind]}</i>")
                continue
            scale = scale_text(self.scales.per_pixel(kind, pixels), unit)
            if arrow_set is not None and len(arrow_set.couples):
                scale += f"; couples {scale_text(self.scales.per_pixel(couple_key(kind), pixels), COUPLE_UNIT)}"
                scale += " of arc" if self.window.scene is self.window.scene2d else ""
            lines.append(f"<span style='color:{colour}'>━━➤</span> {name} &nbsp; {scale}")
        return lines

    def _show_legend(self, legend: QLabel, painter, scene) -> None:
        """2-D: the legend is the plot's title row, above the view (never over the mechanism);
        3-D: a label in the view's lower left (the clock has the upper left)."""
        look = getattr(self.window, "presentation", None)
        # the window's font (24 px and more in presentation), at least the 3-D clock's size
        font_px = max(14, round(scene.height() / 42), look.font_px() if look is not None else 0)
        lines = self.legend_lines(painter.drawn_pixels)  # the view's size the arrows were drawn for
        if scene is self.window.scene2d:
            self._show_title(scene, lines, font_px)
            return
        text = "<br>".join(lines)
        if legend.property("font_px") != font_px:  # a style sheet costs milliseconds: only when it changes
            legend.setProperty("font_px", font_px)
            legend.setStyleSheet(f"QLabel {{ background: rgba(255, 255, 255, 215); color: #202020; "
                                 f"border: 1px solid #bbb; border-radius: 4px; padding: 4px 8px; "
                                 f"font-size: {font_px}px; }}")
            legend.setText("")
        if legend.text() != text:
            legend.setText(text)
            legend.adjustSize()
        place = QPoint(LEGEND_MARGIN, scene.height() - legend.height() - LEGEND_MARGIN)
        if legend.pos() != place:
            legend.move(place)
        if not legend.isVisible():
            legend.show()
            legend.raise_()

    def _show_title(self, scene, lines: list[str], font_px: int) -> None:
        """The 2-D legend in the title row: two kinds a line, the row as tall as its lines."""
        rows = ["&nbsp;&nbsp;&nbsp;&nbsp;".join(lines[i:i + 2]) for i in range(0, len(lines), 2)]
        text = "<br>".join(rows)
        key = (text, font_px, str(pg.getConfigOption("foreground")))  # a theme change restyles it
        if key == self._title:
            return
        self._title = key
        plot = scene.getPlotItem()
        if not rows:
            plot.setTitle(None)
            return
        plot.setTitle(text, size=f"{font_px}px")
        height = int(len(rows) * font_px * 1.45 + 8)
        plot.titleLabel.setMaximumHeight(height)
        plot.layout.setRowFixedHeight(0, height)

    def hide_legends(self) -> None:
        for legend in self._legends.values():
            legend.hide()
        if self._title is not None:
            self._title = None
            self.window.scene2d.getPlotItem().setTitle(None)
