"""Which plots the user chose, one choice per mode (normal, presentation), kept in QSettings, and
View ▸ Plots, the menu that changes it. What the plots then show is gui/plots/plot_panel.py's."""
from __future__ import annotations

from PySide6.QtWidgets import QMenu


class PlotChoice:
    def __init__(self, settings_store, titles: dict, defaults: dict, settings_key: str):
        self.settings_store = settings_store
        self.titles, self.defaults, self.settings_key = titles, defaults, settings_key
        self.actions: dict = {}  # plot key → its tick in the menu

    def chosen(self, mode: str) -> list[str]:
        """The plots chosen for `mode` (QSettings), whether or not they have data."""
        default = list(self.defaults[mode])
        if self.settings_store is None:
            return default
        value = self.settings_store.value(self.settings_key.format(mode=mode), None)
        if value is None:
            return default
        value = [value] if isinstance(value, str) else list(value)
        return [k for k in value if k in self.titles]

    def choose(self, mode: str, keys) -> None:
        keys = [k for k in self.titles if k in keys]
        if self.settings_store is not None:
            self.settings_store.setValue(self.settings_key.format(mode=mode), keys if keys else "")
            self.settings_store.sync()

    def menu(self, parent, mode, choose) -> QMenu:
        """A tick per plot (and "No plots") for the mode `mode()` gives; `choose(keys)` applies a choice."""
        menu = QMenu("Plots", parent)
        none = menu.addAction("No plots")
        none.triggered.connect(lambda: choose([]))
        menu.addSeparator()
        for key, title in self.titles.items():
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setObjectName(f"choose_plot_{key}")
            action.toggled.connect(
                lambda on, k=key: choose([c for c in self.chosen(mode()) if c != k] + ([k] if on else [])))
            self.actions[key] = action
        menu.aboutToShow.connect(lambda: self._tick(mode()))
        return menu

    def _tick(self, mode: str) -> None:
        chosen = self.chosen(mode)
        for key, action in self.actions.items():
            action.blockSignals(True)
            action.setChecked(key in chosen)
            action.blockSignals(False)
