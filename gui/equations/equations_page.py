"""Widgets that show an equations page: prose as labels (the window's font, so presentation mode
enlarges it), each formula as its typeset SVG scaled with that font, and a side-by-side grid of
two formulations whose corresponding terms share a row, a colour and a label.

Nothing here typesets: the SVGs come from the worker (`equations_render`). A formula waiting
for its SVG shows a short note, never its LaTeX source.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontInfo, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from eomlab.gui.equations.equations_render import INK, TYPESET_PX
from eomlab.gui.single_shot import single_shot

#: the SVG is drawn at this many times the window's font size over the typesetting size
FORMULA_SCALE = 1.35
#: a definition's symbol is at most this wide (wider ones scroll)
DEFINITION_PX = 420
#: headings: this much larger than the body text
HEADING_SCALE = {1: 1.45, 2: 1.2, 3: 1.05}


def font_px(widget: QWidget) -> int:
    return max(8, QFontInfo(widget.font()).pixelSize())


class FormulaView(QWidget):
    """One typeset formula, drawn from its SVG at the window's font size in the palette's ink."""

    def __init__(self, svg: bytes, parent=None):
        super().__init__(parent)
        self.svg = svg
        self.renderer = QSvgRenderer()
        self.ink = None
        self.recolour()

    def recolour(self) -> None:
        ink = self.palette().color(self.foregroundRole()).name()
        if ink != self.ink:
            self.ink = ink
            self.renderer.load(self.svg.replace(INK.encode(), ink.encode()))
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        scale = FORMULA_SCALE * font_px(self) / TYPESET_PX
        size = self.renderer.defaultSize()
        return QSize(round(size.width() * scale), round(size.height() * scale))

    minimumSizeHint = sizeHint

    def paintEvent(self, _event) -> None:
        hint = self.sizeHint()
        with QPainter(self) as painter:
            self.renderer.render(painter, QRectF(0, 0, hint.width(), hint.height()))

    def changeEvent(self, event) -> None:
        if event.type() in (event.Type.FontChange, event.Type.PaletteChange):
            self.recolour()
        super().changeEvent(event)


class FormulaSlot(QScrollArea):
    """Where a formula goes: a note until its SVG arrives; scrolls sideways when it is wider than
    the panel."""

    typeset_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.NoFrame)
        self.setWidgetResizable(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.fit_width = False  # as wide as its formula (a definition's symbol), up to DEFINITION_PX
        self.formula: FormulaView | None = None
        self.note = QLabel("typesetting…")
        self.note.setObjectName("formula_note")
        self.setWidget(self.note)
        self._fit()

    def show_svg(self, svg: bytes) -> None:
        self.formula = FormulaView(svg)
        self.formula.setFont(self.font())
        self.formula.resize(self.formula.sizeHint())
        self.setWidget(self.formula)
        self._fit()

    def show_note(self, text: str, deferred: bool = False) -> None:
        if deferred:
            button = QPushButton(text)
            button.clicked.connect(self.typeset_requested)
            self.setWidget(button)
        else:
            self.setWidget(QLabel(text))
        self._fit()

    def _fit(self) -> None:
        inner = self.widget()
        if inner is None:
            return
        inner.setAutoFillBackground(False)  # the page's background, not the scroll area's
        hint = inner.sizeHint()
        inner.resize(hint)
        if self.fit_width:
            self.setMinimumWidth(min(max(hint.width() + 4, 140), DEFINITION_PX))
        bar = self.horizontalScrollBar().sizeHint().height() if hint.width() > self.viewport().width() else 0
        self.setFixedHeight(hint.height() + bar + 2)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            single_shot(0, self, self._fit)  # after the formula has the new font too


def _take_all(layout) -> None:
    """Empty a layout at once: its widgets are hidden now and deleted later (Qt deletes them when
    control returns to the event loop; until then they would still be on the page)."""
    while layout.count():
        widget = layout.takeAt(0).widget()
        if widget is not None:
            widget.hide()
            widget.deleteLater()


def _label(text: str, object_name: str = "equations_prose") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.PlainText)
    label.setWordWrap(True)
    label.setObjectName(object_name)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    return label


def _scaled(base: QFont, level: int) -> QFont:
    """Bold, `HEADING_SCALE[level]` times `base` (level 0: the size of the text)."""
    font = QFont(base)
    font.setBold(True)
    if font.pixelSize() > 0:  # presentation mode sets pixel sizes
        font.setPixelSize(round(font.pixelSize() * HEADING_SCALE.get(level, 1.0)))
    else:
        font.setPointSizeF(font.pointSizeF() * HEADING_SCALE.get(level, 1.0))
    return font


def _heading(text: str, level: int, base: QFont, object_name: str = "equations_heading") -> QLabel:
    """A bold label; its font follows the page's (`follow_font`), as a label with a font or a style
    sheet of its own would not."""
    label = _label(text, object_name)
    label.setProperty("heading_level", level)
    label.setFont(_scaled(base, level))
    return label


def follow_font(container: QWidget) -> None:
    """Headings, role tags and formulas sized again from the container's font (presentation mode
    changes it). The formulas are told too: under X11 a floating panel's scroll areas kept the old
    font in their viewports."""
    font = container.font()
    for label in container.findChildren(QLabel):
        level = label.property("heading_level")
        if level is not None:
            label.setFont(_scaled(font, level))
    for slot in container.findChildren(FormulaSlot):
        slot.setFont(font)
        if slot.widget() is not None:
            slot.widget().setFont(font)


def _role_frame(role: str, label: str, colour: str, inner: QWidget, tagged: bool = True) -> QWidget:
    """A formula marked with its role: a coloured bar and (`tagged`) the role's name in that colour."""
    frame = QFrame()
    frame.setObjectName("role_frame")
    frame.setProperty("role", role)
    frame.setStyleSheet(f"QFrame#role_frame {{ border-left: 4px solid {colour}; }}")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(8, 0, 0, 0)
    layout.setSpacing(0)
    if tagged:
        tag = _heading(label, 0, inner.font(), "role_tag")
        tag.setStyleSheet(f"color: {colour};")
        layout.addWidget(tag)
    layout.addWidget(inner)
    return frame


class PageView(QWidget):
    """A page's blocks, top to bottom; `slots[kind][i]` holds the page's i-th formula."""

    typeset_requested = Signal(str, int)  # kind, formula index

    def __init__(self, parent=None):
        super().__init__(parent)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setAlignment(Qt.AlignTop)
        self.layout_.setSpacing(6)
        self.slots: dict[str, list[FormulaSlot]] = {}

    def clear(self) -> None:
        _take_all(self.layout_)
        self.slots = {}

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            follow_font(self)

    def _add(self, widget: QWidget) -> None:
        """Put a block on the page, shown now: a widget added to a visible parent is otherwise
        shown only by a queued call, after the page says it is complete."""
        self.layout_.addWidget(widget)
        widget.show()

    def add_page(self, page: dict, kind: str) -> None:
        """Lay out a page (`engine.symbolic.page_blocks.page_data`): headings, prose, and a slot per formula."""
        slots = self.slots.setdefault(kind, [])
        for block in page["blocks"]:
            if block[0] == "heading":
                self._add(_heading(block[1], block[2], self.font()))
            elif block[0] == "prose":
                self._add(_label(block[1]))
            else:
                slot = self._slot(kind, len(slots))
                slots.append(slot)
                if block[0] == "definition":
                    self._add(self._definition(slot, block[1]))
                else:
                    self._add(self._formula_block(slot, *block[1:]))

    def add_message(self, text: str) -> None:
        self._add(_label(text, "equations_message"))

    def on_screen(self, kind: str, viewport: QWidget) -> list[int]:
        """Indices of the formulas still waiting for their SVG that `viewport` (the scroll area's,
        an ancestor of this page) shows now."""
        area = viewport.rect()
        return [i for i, slot in enumerate(self.slots.get(kind, []))
                if slot.formula is None and QRect(slot.mapTo(viewport, QPoint(0, 0)), slot.size()).intersects(area)]

    def _slot(self, kind: str, index: int) -> FormulaSlot:
        slot = FormulaSlot()
        slot.typeset_requested.connect(lambda: self.typeset_requested.emit(kind, index))
        return slot

    @staticmethod
    def _definition(slot: FormulaSlot, text: str) -> QWidget:
        """A symbol and what it is, side by side."""
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(12, 0, 0, 0)
        slot.setSizePolicy(QSizePolicy.Minimum, QSizePolicy.Fixed)
        slot.fit_width = True
        slot.setMinimumWidth(140)
        layout.addWidget(slot, 0)
        layout.addWidget(_label(text), 1)
        return row

    @staticmethod
    def _formula_block(slot: FormulaSlot, caption: str, role: str, label: str, colour: str) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        if caption:
            layout.addWidget(_label(caption, "formula_caption"))
        layout.addWidget(slot)
        return _role_frame(role, label, colour, box) if role else box

    def set_svg(self, kind: str, index: int, svg: bytes | None, note: str) -> None:
        slots = self.slots.get(kind, [])
        if index >= len(slots):
            return
        if svg is not None:
            slots[index].show_svg(svg)
        elif note == "deferred":
            slots[index].show_note("A long expression: show it typeset (takes a few seconds)", deferred=True)
        else:
            slots[index].show_note(f"This formula could not be typeset ({note}); Copy as LaTeX has it.")


def _too_long_note(long: list, side: str) -> QLabel:
    """What stands in a side-by-side row for a term too long to set there: its name, its length
    and where it is written out in full (the left side is the window's own formulation)."""
    caption = next((c for c, _n in long if c), "")
    chars = sum(n for _c, n in long)
    where = "on the Equations tab" if side == "left" else "on its own page (choose it as the formulation)"
    name = f"{caption[:1].upper()}{caption[1:]}: " if caption else ""
    return _label(f"{name}too long to set beside the other ({chars:,} characters); written out in full {where}.",
                  "equations_prose")


def _absent_note(role: str, found: dict) -> str:
    """What a side shows in a row its page has no term for: Kane's and Gibbs–Appell's governing
    equations are their equations free of multipliers, so that row points to the one below."""
    if role == "general" and "reduced" in found:
        return f"its governing equation is the one under “{found['reduced'][0]}” below"
    return "no term of this kind"


class CompareView(QWidget):
    """Two formulations side by side: one row per corresponding term, in the role's colour."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setAlignment(Qt.AlignTop)
        self.grid.setHorizontalSpacing(24)
        self.slots: list[tuple[str, int, int, FormulaSlot]] = []  # (side, formula index, role row, slot)

    def clear(self) -> None:
        _take_all(self.grid)
        self.slots = []

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            follow_font(self)

    def show_rows(self, left: dict, right: dict) -> None:
        """One row per role either page marks (`page_data`'s roles), its formulas left and right."""
        self.clear()
        self._put(_heading(left["title"], 2, self.font()), 0, 0)
        self._put(_heading(right["title"], 2, self.font()), 0, 1)
        mine = {role: (label, colour, indices, long) for role, label, colour, indices, long in left["roles"]}
        theirs = {role: (label, colour, indices, long) for role, label, colour, indices, long in right["roles"]}
        order = list(mine) + [role for role in theirs if role not in mine]
        line = 1
        for role in order:
            label, colour, *_ = mine.get(role) or theirs[role]
            tag = _heading(label, 0, self.font(), "role_tag")
            tag.setStyleSheet(f"color: {colour}; border-bottom: 2px solid {colour};")
            tag.setProperty("role", role)
            self._put(tag, line, 0, 1, 2)
            line += 1
            for column, (side, found) in enumerate((("left", mine), ("right", theirs))):
                cell = QWidget()
                layout = QVBoxLayout(cell)
                layout.setContentsMargins(0, 0, 0, 0)
                indices, long = found.get(role, ("", "", [], []))[2:]
                for index in indices:
                    slot = FormulaSlot()
                    layout.addWidget(_role_frame(role, label, colour, slot, tagged=False))
                    self.slots.append((side, index, line, slot))
                if not indices and long:  # the term is there, only too long for a row
                    layout.addWidget(_role_frame(role, label, colour, _too_long_note(long, side), tagged=False))
                if role not in found:
                    layout.addWidget(_label(_absent_note(role, found), "equations_prose"))
                self._put(cell, line, column, top=True)
            line += 1

    def _put(self, widget: QWidget, *position, top: bool = False) -> None:
        """Into the grid (`top`: aligned to the top of its cell), shown now (as PageView._add)."""
        if top:
            self.grid.addWidget(widget, *position, Qt.AlignTop)
        else:
            self.grid.addWidget(widget, *position)
        widget.show()

    def set_svg(self, side: str, index: int, svg: bytes | None, note: str) -> None:
        for slot_side, slot_index, _row, slot in self.slots:
            if slot_side == side and slot_index == index:
                if svg is not None:
                    slot.show_svg(svg)
                else:
                    slot.show_note("long: see the full page" if note == "deferred" else "could not be typeset")
