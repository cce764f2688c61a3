"""Compare mode: the same model under several formulations at once, all shown at one instant.

The session runs one model per chosen formulation (`run_models`), in lock step (gui/runs/lock_step.py),
and its time cursor follows the slowest run; `CompareView` draws every run's pose at that cursor —
the others as translucent ghosts over the main scene, or one tile per run — and fills a dock
(gui/compare/compare_panel.py) with the difference of each run from a reference run and a table of what
each costs, integrates and drifts, all up to the same instant.

Every number comes from the engine's samples and stats; this module only lines them up.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDockWidget

from eomlab.engine.model import Model
from eomlab.gui.compare.compare_math import run_models
from eomlab.gui.compare.compare_identical import identical_groups, restyle_curve, widths
from eomlab.gui.single_shot import single_shot
from eomlab.gui.compare.compare_panel import ComparePanel
from eomlab.gui.compare.compare_scenes import Ghosts, TiledScenes
from eomlab.gui.plots.plot_panel import CURVE_WIDTH, STYLED_CURVE_WIDTH
from eomlab.gui.runs.run_state import RunState
from eomlab.gui.runs.session import Session


#: the compare column's width (pixels): the cost table's figures side by side
COMPARE_DOCK_WIDTH = 560


class CompareView(QObject):
    """Compare mode of one main window: its dock, the ghosts or tiles, and the run plans."""

    active_changed = Signal(bool)

    def __init__(self, session: Session, window):
        super().__init__(window)
        self.session = session
        self.main_scene = lambda: window.scene  # 2-D or 3-D, as the model needs
        self.plots = window.plots
        self._widened: set[str] = set()  # methods whose plot curves are drawn wider (identical runs)
        self.active = False
        self.panel = ComparePanel()
        self.panel.fill_own_settings(session.model)
        self.panel.set_reference(session.model.settings.method)
        self.dock = QDockWidget("Compare", window)
        self.dock.setObjectName("dock_compare")
        self.dock.setWidget(self.panel)
        self.dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        # the right column, full height: the cost table shows every method in full
        window.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.inspector_dock, self.dock)
        self.dock.setVisible(False)
        self._resize_docks = window.resizeDocks
        self._set_corner = window.setCorner
        self.ghosts = Ghosts(window.scene2d)
        self.tiles = TiledScenes()
        self.scene_stack = window.scene_stack
        self.scene_stack.addWidget(self.tiles)
        session.plan_compare = self.run_models
        session.runs_started.connect(self._on_runs_started)
        self.panel.changed.connect(self._restart)
        self.panel.reference_box.currentIndexChanged.connect(lambda _i: self.redraw_plots())
        self.panel.layout_box.currentIndexChanged.connect(lambda _i: self._show_layout())
        window.document.changed.connect(lambda model, *_: self._on_model_changed(model))

    # --- the runs --------------------------------------------------------------------------

    def run_models(self, model: Model) -> list[Model]:
        """The models the session runs in compare mode (the model's own method first)."""
        self.panel.lock_main(model.settings.method)
        return run_models(model, self.panel.chosen_methods(), self.panel.own_settings())

    def methods(self) -> list[str]:
        return [run.method for run in self.session.runs]

    def _on_runs_started(self) -> None:
        self.panel.clear()
        self.ghosts.clear()
        if self.session.compare:
            self.tiles.set_runs(self.session.model, self.methods())
        if self.session.compare != self.active:
            self.set_active(self.session.compare)
        else:
            self._show_layout()

    def _restart(self) -> None:
        if self.session.compare:
            self.session.start(running=self.session.state == RunState.RUNNING)

    def _on_model_changed(self, model: Model) -> None:
        self.panel.lock_main(model.settings.method)
        if self.panel.same_settings.isChecked():
            self.panel.fill_own_settings(model)
        self._show_layout()

    # --- showing ---------------------------------------------------------------------------

    def set_active(self, on: bool) -> None:
        self.active = bool(on)
        self.dock.setVisible(self.active)
        # compare mode: the right column runs the full height (the table shows every method in full)
        self._set_corner(Qt.BottomRightCorner, Qt.RightDockWidgetArea if self.active else Qt.BottomDockWidgetArea)
        if self.active:
            self.dock.raise_()  # in front of the inspector's tab
            # again once the window is shown: before that the docks' tab bar does not exist yet
            # and `--compare` left the table behind the Inspector tab
            single_shot(0, self, self._raise_if_active)
            self._resize_docks([self.dock], [COMPARE_DOCK_WIDTH], Qt.Horizontal)
        if not self.active:
            self.ghosts.clear()
            self.panel.clear()
        self._show_layout()
        self.active_changed.emit(self.active)

    def _raise_if_active(self) -> None:
        if self.active:
            self.dock.raise_()

    def tiled(self) -> bool:
        return self.session.compare and self.panel.layout_box.currentData() == "tiled"

    def _show_layout(self) -> None:
        if self.tiled():
            self.ghosts.clear()
        self.scene_stack.setCurrentWidget(self.tiles if self.tiled() else self.main_scene())

    def plots_visible(self) -> bool:
        return self.session.compare and self.dock.isVisible()

    def show_frames(self, frames) -> None:
        """Every run's pose at the cursor (`Session.frames_at_cursor`): tiles, or ghosts over
        the main 2-D scene."""
        if not self.session.compare:
            return
        by_method = [(run.method, frame) for run, frame in frames]
        if self.scene_stack.currentWidget() is self.tiles:
            self.tiles.show_frames(by_method)
        elif self.main_scene() is self.ghosts.scene:
            self.ghosts.show(by_method[1:])

    def redraw_plots(self) -> None:
        """The difference plot and the cost table, up to the cursor (at the plots' cadence)."""
        if not self.session.compare:
            return
        until = self.session.cursor_time()
        self.panel.show_differences(self.session.runs, until)
        groups = identical_groups(self.session.runs, until)
        self.panel.show_identical(groups)
        self._widen_identical(groups)
        self.panel.show_costs(self.session.runs, until)

    def _widen_identical(self, groups) -> None:
        """The main plots' curves of identical runs one inside the other (gui/compare/compare_identical.py)."""
        scale = self.plots.line_scale
        base = (CURVE_WIDTH if scale == 1.0 else STYLED_CURVE_WIDTH) * scale  # as the plots draw them
        wide = widths(groups, base)
        for run in self.session.runs:
            if run.series is None or (run.method not in wide and run.method not in self._widened):
                continue
            for curve in run.series.curves.values():
                restyle_curve(curve, run.method, wide.get(run.method, base), run.color)
        self._widened = set(wide)
