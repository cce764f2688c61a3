"""Legends that never cover data: a plot's key is a row of text beside its title, above the data
area; in compare mode one shared row names the methods, each in its colour and dash pattern."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

from eomlab.gui.style.method_styles import method_ink, method_label, method_style

#: a pen's dash pattern as text
DASH_GLYPHS = {Qt.SolidLine: "━━", Qt.DashLine: "╸ ╸", Qt.DotLine: "┅┅", Qt.DashDotLine: "━·━",
               Qt.DashDotDotLine: "━··"}


def glyph(style) -> str:
    return DASH_GLYPHS.get(style, "━━")


def title_with_key(title: str, entries: list[tuple[str, str, object]], font: QFont, width: float,
                   ink: str = "#000") -> str:
    """HTML of a plot's title followed by as many (name, colour, dash style) entries as fit in
    `width` pixels; the rest are counted ("+3 more")."""
    # measured in bold with room to spare: a title wider than its plot would widen the plot item
    # past its widget and push the right edge (and a right axis) out of sight
    bold = QFont(font)
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    width *= 0.95
    used = metrics.horizontalAdvance(title + "    ")
    parts = []
    for i, (name, color, style) in enumerate(entries):
        text = f"{glyph(style)} {name}   "
        more = f"+{len(entries) - i - 1} more" if i < len(entries) - 1 else ""
        if used + metrics.horizontalAdvance(text + more) > width and parts:
            parts.append(f'<span style="color:{ink}">+{len(entries) - i} more</span>')
            break
        used += metrics.horizontalAdvance(text)
        parts.append(f'<span style="color:{color}">{glyph(style)}</span>'
                     f'<span style="color:{ink}">&nbsp;{escape(name)}</span>')
    key = "&nbsp;&nbsp;&nbsp;".join(parts)
    return f'<b style="color:{ink}">{escape(title)}</b>' + (f"&nbsp;&nbsp;&nbsp;&nbsp;{key}" if key else "")


def methods_key(methods: list[str]) -> str:
    """HTML of the shared compare-mode key: each method's name in a readable ink beside a sample
    of its curve colour and dashes. Only the gaps between methods may break a line."""
    parts = []
    for method in methods:
        color, style = method_style(method)
        name = escape(method_label(method)).replace(" ", "&nbsp;").replace("–", "–&#8288;")  # no break at a dash
        sample = escape(glyph(style)).replace(" ", "&nbsp;")
        parts.append(f'<span style="white-space:nowrap"><span style="color:{color}; font-weight:bold">'
                     f'{sample}</span>&nbsp;<span style="color:{method_ink(method)}; font-weight:bold">'
                     f'{name}</span></span>')
    return "&nbsp;&nbsp; &nbsp;&nbsp;".join(parts)
