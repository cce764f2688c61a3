"""Which coordinates the plots draw: the motion plot's (a menu of ticks) and the phase portrait's (a list),
with their labels, in the row above the plots.

Until the user picks, the motion plot shows the first three coordinates and, once samples are in, the three
that move most (and the phase portrait the one that moves most); from then on the choice is the user's. A
choice is kept while a new run has the same coordinates. The menu offers the run's speeds too (a cardan
shaft's output speed), below the coordinates.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QMenu, QToolButton

from eomlab.gui.plots.plot_data import moving_first, plottable_coordinates

#: at most this many coordinates are drawn at once in the motion plot
MAX_MOTION_CURVES = 8
#: the motion plot's coordinates until the user or the motion picks
FIRST_SHOWN = 3


class CoordinateChoice:
    """The motion plot's coordinates (`chosen`) and the phase portrait's (`phase_name`); `changed` is called
    when the user changes either (the panel draws its curves again)."""

    def __init__(self, changed: Callable[[], None]):
        self.changed = changed
        self.chosen: list[str] = []
        self.by_user = False  # the user (or the motion, once) has picked: the choice stands
        self.speeds: list[str] = []
        self.motion_label = QLabel("Motion:")
        self.button = QToolButton(text="Coordinates ▾")
        self.button.setPopupMode(QToolButton.InstantPopup)
        self.menu = QMenu(self.button)
        self.button.setMenu(self.menu)
        self.phase_label = QLabel("Phase portrait of:")
        self.phase_combo = QComboBox()
        self.phase_combo.setMinimumContentsLength(12)
        self.phase_combo.currentIndexChanged.connect(lambda _index: self.changed())

    def add_to(self, row: QHBoxLayout) -> None:
        row.addWidget(self.motion_label)
        row.addWidget(self.button)
        row.addSpacing(16)
        row.addWidget(self.phase_label)
        row.addWidget(self.phase_combo)

    def show_for(self, shown_plots: list[str]) -> None:
        """Each control only beside a plot that is shown."""
        for widget, key in ((self.motion_label, "motion"), (self.button, "motion"),
                            (self.phase_label, "phase"), (self.phase_combo, "phase")):
            widget.setVisible(key in shown_plots)

    @property
    def phase_name(self) -> str:
        return self.phase_combo.currentText()

    def offer(self, info, model) -> None:
        """The coordinates of a run's columns (`info`: a RunSeries' info; None: no run); keeps the choice when
        they are the same."""
        names = plottable_coordinates(info, model) if info is not None else []
        self.speeds = list(info.speed_names) if info is not None else []
        offered = self._with_speeds(names)
        if not self.chosen or any(n not in offered for n in self.chosen):
            self.chosen = names[:min(FIRST_SHOWN, len(names))]
            self.by_user = False
        self._fill_menu(names)
        self.phase_combo.blockSignals(True)
        previous = self.phase_combo.currentText()
        self.phase_combo.clear()
        # a phase portrait pairs a coordinate with its own rate (not with a body rate)
        with_rates = [n for n in names if f"{n}_dot" in self.speeds]
        self.phase_combo.addItems(with_rates or names)
        if previous in names:
            self.phase_combo.setCurrentText(previous)
        self.phase_combo.blockSignals(False)

    def choose(self, name: str, shown: bool) -> None:
        """The user ticks (or unticks) `name` in the menu."""
        self.by_user = True
        if shown and name not in self.chosen:
            self.chosen = (self.chosen + [name])[-MAX_MOTION_CURVES:]
        elif not shown and name in self.chosen:
            self.chosen.remove(name)
        self.changed()

    def choose_moving(self, main, data: np.ndarray, model) -> bool:
        """Once samples are in (`data`: the main run's rows): the coordinates that move, and a phase portrait
        of the one that moves most. True when the choice changed."""
        names = plottable_coordinates(main.info, model)
        picked = moving_first(main, data, names, min(FIRST_SHOWN, len(names)))
        self.by_user = True  # chosen once; the user's choices stand from now on
        changed = picked != self.chosen
        self.chosen = picked
        phase_names = [self.phase_combo.itemText(i) for i in range(self.phase_combo.count())]
        best = moving_first(main, data, phase_names, 1) if phase_names else []
        if best and best[0] != self.phase_combo.currentText():
            self.phase_combo.blockSignals(True)
            self.phase_combo.setCurrentText(best[0])
            self.phase_combo.blockSignals(False)
            changed = True
        if changed:
            self._fill_menu(names)
        return changed

    def _with_speeds(self, names: list[str]) -> list[str]:
        """`names` and then the run's speeds not among them."""
        return list(names) + [n for n in self.speeds if n not in names]

    def _fill_menu(self, names: list[str]) -> None:
        self.menu.clear()
        for i, name in enumerate(self._with_speeds(names)):
            if i == len(names) and i:
                self.menu.addSeparator()
            action = self.menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name in self.chosen)
            action.toggled.connect(lambda on, n=name: self.choose(n, on))
