"""The equations panel: the window's model in its formulation, typeset, and two formulations side by side.

Two worker processes (`equations_workers`) derive and typeset; the panel polls them with a timer,
so the GUI thread never waits. The deriver first sends the top of the page (its general form and
the model's coordinates, written before sympy loads), shown at once, then the symbolic page, which
begins with that top (or at once a page derived in an earlier session); once the top is typeset the
typesetter works out the numbers at the current state, shown below it until the page comes; the panel
sends each page's formulas it has not typeset before to the typesetter, which works while the
deriver derives, the formulas on screen first. Finished
pages are cached per model and formulation (the same model shown again is instant); a change of
model or formulation ends the unfinished work (a running derivation's process is terminated:
sympy cannot be interrupted otherwise). The panel derives only while it is shown; it can float
as its own large window.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QFileDialog

from eomlab.gui.equations.equations_page import PageView
from eomlab.gui.equations.equations_panel import EquationsPanel
from eomlab.gui.equations.equations_render import DEFERRED_CHARS
from eomlab.gui.equations.equations_workers import Workers

#: how often the GUI thread looks for the workers' results (ms)
POLL_MS = 50
#: after a scroll, the formulas then on screen are typeset first (ms)
PRIORITY_MS = 150
#: typeset formulas kept by their LaTeX (the general forms recur on every model)
SVG_CACHE_SIZE = 3000
#: the floating window's share of the screen
WINDOW_SHARE = (0.62, 0.88)


@dataclass
class Entry:
    """One (model, method): its page once derived and the SVGs typeset so far."""

    page: object = None
    refused: str = ""
    svgs: dict = field(default_factory=dict)  # formula index -> (svg bytes or None, note)
    done: bool = False
    view: object = None  # its PageView once laid out (shown again at once)


class EquationsView(QObject):
    """The Equations dock of one main window; derives only while it is shown."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.workers = Workers()
        self.panel = EquationsPanel()
        self.dock = QDockWidget("Equations", window)
        self.dock.setObjectName("dock_equations")
        self.dock.setWidget(self.panel)
        self.dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                              | QDockWidget.DockWidgetClosable)
        window.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.inspector_dock, self.dock)
        self.dock.hide()
        self.poll_timer = QTimer(self)
        self.poll_timer.setInterval(POLL_MS)
        self.poll_timer.timeout.connect(self._collect)
        self.cache: dict[tuple, Entry] = {}
        self.svg_cache: dict[str, bytes] = {}
        self.pending: dict[int, tuple] = {}  # generation -> (model, method), while deriving or typesetting
        self.deriving: set[int] = set()  # generations the deriver has not answered yet
        self.waiting: dict[int, set] = {}  # generation -> (kind, formula index) sent to the typesetter
        self.ahead: dict[int, set] = {}  # generation -> LaTeX of the page's top being typeset ahead
        self.numbers_wanted: dict[int, tuple] = {}  # generation -> the numbers job, sent when the top comes
        self.generation = 0
        self.cancelled: list[tuple] = []  # keys whose derivation was ended (for tests and the record)
        self.numbers = None  # (key, page, svgs, generation): the numbers while the symbols are derived
        self.top = None  # (key, page, svgs, generation): the top of the page while the rest is derived
        self.priority_timer = QTimer(self)
        self.priority_timer.setSingleShot(True)
        self.priority_timer.setInterval(PRIORITY_MS)
        self.priority_timer.timeout.connect(self._on_screen_first)
        self.shown: tuple | None = None  # the key the page shows
        self.compared: tuple | None = None  # (left key, right key) the side-by-side view shows
        self.paired_for = ""  # the method the side-by-side pickers were last set for
        p = self.panel
        p.copy_button.clicked.connect(self.copy_latex)
        p.export_button.clicked.connect(self.export_dialog)
        p.window_button.clicked.connect(self.own_window)
        p.cancel_button.clicked.connect(self.cancel)
        p.left_box.currentTextChanged.connect(lambda *_: self.update())
        p.right_box.currentTextChanged.connect(lambda *_: self.update())
        p.tabs.currentChanged.connect(lambda *_: self.update())
        self.dock.visibilityChanged.connect(lambda visible: visible and self.update())
        window.document.changed.connect(lambda *_: self.update())
        window.installEventFilter(self)
        self.panel.scroll.verticalScrollBar().valueChanged.connect(lambda *_: self.priority_timer.start())
        window.destroyed.connect(lambda *_: self.workers.stop())

    def eventFilter(self, target, event) -> bool:
        if target is self.window and event.type() == QEvent.Close:
            self.workers.stop()
        return False

    # --- showing ---------------------------------------------------------------------------

    def show(self) -> None:
        self.dock.show()
        self.dock.raise_()
        self.update()

    def prewarm(self) -> None:
        """Start the worker processes now (they load sympy and the fonts), so that the panel, when
        asked for, only derives and typesets."""
        self.workers.prewarm()

    def toggle(self) -> None:
        self.dock.hide() if self.dock.isVisible() else self.show()

    def own_window(self) -> None:
        """Float the panel as a large window of its own (dock it again by double-clicking its title)."""
        screen = self.window.screen().availableGeometry()
        self.dock.setFloating(True)
        self.dock.resize(int(WINDOW_SHARE[0] * screen.width()), int(WINDOW_SHARE[1] * screen.height()))
        self.dock.move(screen.x() + screen.width() - self.dock.width(), screen.y())
        self.dock.show()

    @property
    def state(self) -> str:
        return self.panel.state.text()

    def _wanted(self) -> list[tuple]:
        """(model, method) keys of what should be on screen; the model with one fixed method
        setting, so a formulation's page is shared by every selected method."""
        model = self.window.model.with_settings(method="lagrange")
        if self.panel.tabs.currentIndex() == 1:
            return [(model, self.panel.left_box.currentText()), (model, self.panel.right_box.currentText())]
        return [(model, self.window.model.settings.method)]

    def update(self) -> None:
        """Show what is wanted from the cache, and ask the workers for what is missing."""
        if not self.dock.isVisible():
            return
        model = self.window.model
        if self.paired_for != model.settings.method:
            self.paired_for = model.settings.method
            self._default_comparison(model.settings.method)
        wanted = self._wanted()
        stale = [g for g, key in self.pending.items() if key not in wanted]
        if stale:
            self.cancel()
        for key in wanted:
            if key not in self.cache and key not in self.pending.values():
                self._request(key, numbers=self.panel.tabs.currentIndex() == 0)
        self._show()

    def _default_comparison(self, method: str) -> None:
        partner = {"lagrange": "maggi", "maggi": "kane", "kane": "maggi"}.get(method, "lagrange")
        for box, name in ((self.panel.left_box, method), (self.panel.right_box, partner)):
            box.blockSignals(True)
            box.setCurrentText(name)
            box.blockSignals(False)

    def _request(self, key: tuple, numbers: bool) -> None:
        self.generation += 1
        self.pending[self.generation] = key
        self.deriving.add(self.generation)
        self.waiting[self.generation] = set()
        self.cache[key] = Entry()
        model, method = key
        self.numbers = self.top = None
        if numbers:  # asked of the typesetter once the top is typeset (gui/equations/equations_render.py)
            self.numbers_wanted[self.generation] = ("numbers", self.generation, model, method, self._state())
        self.workers.deriver.submit((self.generation, model, method))
        self.workers.typesetter.start()
        self.poll_timer.start()

    def _state(self):
        """(columns, row) of the main run's latest sample, or None (the numbers are then at t = 0)."""
        try:
            columns, rows = self.window.samples()
        except Exception:  # noqa: BLE001 - no run yet: the start will do
            return None
        return (columns, rows[-1].copy()) if len(rows) else None

    def cancel(self) -> None:
        """End the unfinished work; finished pages stay cached."""
        if not self.pending:
            return
        if self.deriving:
            self.workers.stop_deriving()
        for generation, key in self.pending.items():
            self.workers.typesetter.tell(("drop", generation, None))
            self.cancelled.append(key)
            if not self.cache.get(key, Entry(done=True)).done:
                self.cache.pop(key, None)
        self.pending.clear()
        self.deriving.clear()
        self.waiting.clear()
        self.ahead.clear()
        self.numbers_wanted.clear()
        self.panel.set_busy(False, "derivation cancelled")

    # --- results ---------------------------------------------------------------------------

    def _collect(self) -> None:
        changed = False
        for kind, generation, value in self.workers.finished():
            key = self.pending.get(generation)
            if key is None:
                continue  # cancelled
            entry = self.cache[key]
            if kind == "svg":
                self._take_svg(generation, key, entry, *value)
                continue
            if kind == "numbers":
                self.numbers = (key, value, {}, generation)
                self._send(generation, "numbers", value, self.numbers[2])
                changed = True
                continue
            if kind == "top":
                self.top = (key, value, {}, generation)
                self._typeset_ahead(generation, value)
                numbers = self.numbers_wanted.pop(generation, None)
                if numbers is not None:  # the typesetter works them out after the top's formulas
                    self.workers.typesetter.submit(numbers)
                changed = True
                continue
            if kind == "page":  # the deriver goes on to its HTML export (still deriving)
                entry.page = value
                self.workers.typesetter.tell(("drop", generation, "numbers"))  # the page replaces them
                self.waiting[generation] = {job for job in self.waiting[generation] if job[0] != "numbers"}
                self._send(generation, "page", value, entry.svgs)
                changed = True
                continue
            if kind == "html":
                entry.page["html"] = value
            elif kind == "refused":
                entry.refused = value
                self.workers.typesetter.tell(("drop", generation, None))
                self.waiting[generation].clear()
            self.deriving.discard(generation)
            self._finish_if_done(generation, entry)
            changed = True
        if changed:
            self._show()
            self.priority_timer.start()
        if not self.pending:
            self.poll_timer.stop()

    def _send(self, generation: int, kind: str, page: dict, svgs: dict) -> None:
        """Typeset a page's formulas: those typeset before at once, long ones when asked, the rest
        by the typesetter in page order."""
        ahead = self.ahead.get(generation, set())
        for index, latex in enumerate(page["formulas"]):
            if latex in self.svg_cache:
                svgs[index] = (self.svg_cache[latex], "")
            elif len(latex) > DEFERRED_CHARS:
                svgs[index] = (None, "deferred")
            else:
                self.waiting[generation].add((kind, index))
                if latex not in ahead:  # else it comes as the general part's
                    self.workers.typesetter.submit(("typeset", generation, kind, index, latex))

    def _typeset_ahead(self, generation: int, top: dict) -> None:
        """The top of the page goes to the typesetter while the deriver derives: its SVGs are
        shown above the numbers and wait in the cache for the page."""
        self.ahead[generation] = ahead = set()
        for index, latex in enumerate(top["formulas"]):
            if latex in self.svg_cache:
                self.top[2][index] = (self.svg_cache[latex], "")
            elif len(latex) <= DEFERRED_CHARS and latex not in ahead:
                ahead.add(latex)
                self.workers.typesetter.submit(("typeset", generation, "top", (index, latex), latex))

    def _took_ahead(self, generation: int, key, entry: Entry, latex: str, svg, note) -> None:
        self.ahead.get(generation, set()).discard(latex)
        if svg is not None and len(self.svg_cache) < SVG_CACHE_SIZE:
            self.svg_cache[latex] = svg
        if self.top is not None and self.top[3] == generation:
            for index, formula in enumerate(self.top[1]["formulas"]):
                if formula == latex:
                    self.top[2][index] = (svg, note)
                    if self.shown is None and self.panel.tabs.currentIndex() == 0:
                        self.panel.scratch.set_svg("top", index, svg, note)
        for index, formula in enumerate(entry.page["formulas"] if entry.page else ()):
            if formula == latex:
                self._take_svg(generation, key, entry, "page", index, svg, note)

    def _take_svg(self, generation: int, key, entry: Entry, part: str, index, svg, note) -> None:
        if part == "top":
            return self._took_ahead(generation, key, entry, index[1], svg, note)
        jobs = self.waiting.get(generation, set())
        if (part, index) not in jobs:
            return  # dropped meanwhile
        jobs.discard((part, index))
        if part == "numbers" and (self.numbers is None or self.numbers[3] != generation):
            return self._finish_if_done(generation, entry)
        page = entry.page if part == "page" else self.numbers[1]
        if svg is not None and len(self.svg_cache) < SVG_CACHE_SIZE:
            self.svg_cache[page["formulas"][index]] = svg
        if part == "numbers":
            self.numbers[2][index] = (svg, note)
            self._deliver_number(index, svg, note)
        else:
            entry.svgs[index] = (svg, note)
            self._deliver(key, index, svg, note)
        self._finish_if_done(generation, entry)

    def _finish_if_done(self, generation: int, entry: Entry) -> None:
        """A generation ends when the deriver has answered and its formulas are typeset."""
        if generation in self.deriving or self.waiting.get(generation):
            return
        entry.done = True
        self.pending.pop(generation, None)
        self.waiting.pop(generation, None)
        self.ahead.pop(generation, None)
        self.numbers_wanted.pop(generation, None)
        self._show()  # the state line and the buttons (the page itself is unchanged)

    def _on_screen_first(self) -> None:
        """Ask the typesetter for the formulas now on screen before the rest."""
        entry = self.cache.get(self._wanted()[0])
        view = self.panel.page
        for generation, key in self.pending.items():
            if self.cache.get(key) is entry and entry is not None and entry.view is view:
                indices = view.on_screen("page", self.panel.scroll.viewport())
                self.workers.typesetter.tell(("first", generation, "page", indices))

    def _show(self) -> None:
        if self.panel.tabs.currentIndex() == 1:
            self._show_comparison()
        else:
            self._show_page()

    def _show_page(self) -> None:
        key = self._wanted()[0]
        entry = self.cache.get(key)
        shown = (key, id(entry.page) if entry else None, bool(entry and entry.refused))
        numbers = self.numbers is not None and self.numbers[0] == key and entry is not None
        top = self.top is not None and self.top[0] == key and entry is not None
        if shown == self.shown and not ((numbers or top) and entry.page is None):
            self._busy_state(entry)
            return
        scratch = self.panel.scratch
        scratch.clear()
        self.panel.show_view(scratch)
        self.shown = None
        if entry is None:
            return
        if entry.refused:
            scratch.add_message(entry.refused)
            self.shown = shown
        elif entry.page is not None:
            self.panel.show_view(self._view_of(entry))
            self.shown = shown
        else:
            self._show_meanwhile(scratch, top, numbers)
        self._busy_state(entry)

    def _show_meanwhile(self, scratch: PageView, top: bool, numbers: bool) -> None:
        """While the symbols are derived: the top of the page, and below it the numbers (under the
        page's title, which the top has shown)."""
        if top:
            scratch.add_page(self.top[1], "top")
            for index, (svg, note) in self.top[2].items():
                scratch.set_svg("top", index, svg, note)
        if numbers:
            page = self.numbers[1]
            if top:
                page = {**page, "blocks": [b for b in page["blocks"] if b[:1] != ("heading",) or b[2] != 1]}
            scratch.add_page(page, "numbers")
            for index, (svg, note) in self.numbers[2].items():
                scratch.set_svg("numbers", index, svg, note)

    def _view_of(self, entry: Entry) -> PageView:
        """The entry's page laid out, once: shown again it is only swapped in."""
        if entry.view is None:
            entry.view = PageView()
            entry.view.typeset_requested.connect(self._typeset_deferred)
            entry.view.add_page(entry.page, "page")
            for index, (svg, note) in entry.svgs.items():
                entry.view.set_svg("page", index, svg, note)
        return entry.view

    def _busy_state(self, entry) -> None:
        if entry is not None and not entry.done:
            self.panel.set_busy(True, "deriving the equations…" if entry.page is None else "typesetting…")
        else:
            self.panel.set_busy(False, "")
        self.panel.set_exportable(entry is not None and entry.page is not None)

    def _show_comparison(self) -> None:
        left, right = (self.cache.get(key) for key in self._wanted())
        keys = tuple(self._wanted())
        ready = left is not None and right is not None and left.page is not None and right.page is not None
        self._busy_state(left if left is None or not left.done else right)
        if not ready:
            if left and left.refused or right and right.refused:
                self.panel.compare.clear()
                self.panel.set_busy(False, (left.refused if left and left.refused else right.refused))
            return
        if self.compared == (keys, id(left.page), id(right.page)):
            return
        self.compared = (keys, id(left.page), id(right.page))
        self.panel.compare.show_rows(left.page, right.page)
        for side, entry in (("left", left), ("right", right)):
            for index, (svg, note) in entry.svgs.items():
                self.panel.compare.set_svg(side, index, svg, note)

    def _deliver(self, key, index, svg, note) -> None:
        wanted = self._wanted()
        entry = self.cache.get(key)
        if entry is not None and entry.view is not None:
            entry.view.set_svg("page", index, svg, note)
        if self.panel.tabs.currentIndex() == 1 and key in wanted:
            for side, other in zip(("left", "right"), wanted):
                if other == key:
                    self.panel.compare.set_svg(side, index, svg, note)

    def _deliver_number(self, index, svg, note) -> None:
        if self.shown is None and self.panel.tabs.currentIndex() == 0:
            self.panel.scratch.set_svg("numbers", index, svg, note)

    def _typeset_deferred(self, kind: str, index: int) -> None:
        key = self._wanted()[0]
        entry = self.cache.get(key)
        if entry is None or entry.page is None:
            return
        self.generation += 1
        self.pending[self.generation] = key
        self.waiting[self.generation] = {(kind, index)}
        self.workers.typesetter.submit(("typeset", self.generation, kind, index, entry.page["formulas"][index]))
        self.poll_timer.start()

    # --- output ----------------------------------------------------------------------------

    def current_page(self):
        entry = self.cache.get(self._wanted()[0])
        return entry.page if entry is not None else None

    def copy_latex(self) -> None:
        page = self.current_page()
        if page is not None:
            QGuiApplication.clipboard().setText(page["latex"])
            self.window.statusBar().showMessage("Copied the equations as LaTeX", 5000)

    def export(self, path: str) -> None:
        """The whole page as a standalone LaTeX file (.tex) or HTML with MathML (anything else);
        OSError if the HTML has not come from the deriver yet (it follows the page)."""
        page = self.current_page()
        text = page["latex"] if path.lower().endswith(".tex") else page["html"]
        if text is None:
            raise OSError(0, "the HTML is still being written, a moment after the page")
        partial = path + ".part"
        with open(partial, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path)

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export the equations", "equations.html",
                                              "HTML with MathML (*.html);;LaTeX (*.tex)")
        if path:
            try:
                self.export(path)
            except OSError as error:
                self.window.statusBar().showMessage(f"Could not write {path}: {error.strerror}", 8000)
                return
            self.window.statusBar().showMessage(f"Wrote the equations to {path}", 5000)
