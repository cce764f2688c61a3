"""A formulation's equations as a page: headings and prose, and formulas in LaTeX.

The page is what the equations panel shows, what "Copy as LaTeX" copies and what
`eomlab equations --format latex|html` prints: `build_page` makes it from a derivation (the
formulation's general form, what its symbols are and what sets it apart come from
`about.ABOUTS`; then the model's own matrices and equations); `page.latex_document` and
`page.html_document` write it out. Prose is plain text; every formula is LaTeX from sympy's
printer (`latex.py`) or written by hand.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from eomlab.engine.symbolic.about import ABOUTS, ROLES, about_of
from eomlab.engine.symbolic.derived_equations import Equations, Item, Tex
from eomlab.engine.symbolic.errors import operation_count
from eomlab.engine.symbolic.latex import display_latex, expression_latex, symbol_names, text_latex, too_long


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2  # 1 page title, 2 part, 3 section


@dataclass(frozen=True)
class Prose:
    text: str


@dataclass(frozen=True)
class Formula:
    latex: str
    caption: str = ""  # prose shown above it
    role: str = ""  # about.ROLES key: what it corresponds to in other formulations


@dataclass(frozen=True)
class Definition:
    symbol: str  # LaTeX
    text: str  # prose


@dataclass
class Page:
    title: str
    method: str
    model_name: str
    blocks: list = field(default_factory=list)

    def formulas(self) -> list[str]:
        """Every formula's LaTeX, in page order (definitions' symbols included)."""
        return [b.latex if isinstance(b, Formula) else b.symbol for b in self.blocks
                if isinstance(b, (Formula, Definition))]


def _entry_symbol(tex: str) -> str:
    lhs = tex.split("=")[0].strip()
    simple = lhs.replace(r"\tilde", "").replace("{", "").replace("}", "").replace("\\", "").replace(" ", "")
    return lhs if len(simple) <= 2 else rf"\big({lhs}\big)"


def _item_blocks(item: Item, names) -> list:
    value = item.value
    if isinstance(value, Tex):
        return [Formula(str(value), item.label if item.label not in ("", "definition") else "", item.role)]
    if isinstance(value, str):
        return [Prose(value)]
    if too_long(value):
        return [Prose(f"{item.label.capitalize() or 'This expression'}: {operation_count(value)} operations, too "
                      "long to print; the JSON output carries it.")]
    entry = _entry_symbol(item.tex) if item.tex else rf"\mathrm{{{text_latex(item.symbol or 'X')}}}"
    shown = display_latex(item.tex, value, names, entry)
    first = [Formula(shown[0], item.label, item.role)]
    return first + [Formula(latex, "", item.role) for latex in shown[1:]]


def _general_part(eq: Equations) -> list:
    about = ABOUTS.get(eq.title)
    if about is None:
        return [Heading(eq.title, 1), Prose(f"Source: {eq.reference}.")]
    return _general_blocks(about)


def general_page(method: str) -> Page | None:
    """The part of `method`'s page that no model changes (None for a formulation without an
    explanation): known before the derivation, so its formulas can be typeset meanwhile."""
    about = about_of(method)
    return None if about is None else Page(about.name, method, "", _general_blocks(about))


def _general_blocks(about) -> list:
    blocks = [Heading(about.name, 1), Prose(f"Source: {about.source}."), Heading("The general form", 2)]
    blocks += [Formula(latex, "", role) for role, latex in about.general]
    blocks.append(Prose("Where:"))
    blocks += [Definition(symbol, text) for symbol, text in about.symbols]
    blocks.append(Prose(about.difference))
    return blocks


def _model_part(eq: Equations, model_name: str, names) -> list:
    blocks = [Heading(f"The model {model_name}" if model_name else "The model", 2)]
    q = sp.Matrix([sp.Symbol(c, real=True) for c in eq.coordinates])
    if q.rows:
        blocks.append(Formula(rf"q = {expression_latex(q.T, names)}", "Coordinates (as rows):"))
    if eq.parameters:
        blocks.append(Prose("The model's numbers are substituted exactly: "
                            + ", ".join(f"{s} = {v:g}" for s, v in eq.parameters.items()) + "."))
    for section in eq.sections:
        blocks.append(Heading(section.title, 3))
        for item in section.items:
            blocks += _item_blocks(item, names)
    return blocks


def build_page(eq: Equations, model_name: str = "") -> Page:
    names = symbol_names(eq.coordinates, eq.speeds, eq.constraint_names)
    page = Page(eq.title, eq.method, model_name)
    page.blocks = _general_part(eq) + _model_part(eq, model_name, names)
    return page


# --- the numbers at one state, while the symbols are derived ---------------------------------

def _number_matrix(values: np.ndarray) -> str:
    matrix = sp.Matrix(np.atleast_2d(values).tolist()).applyfunc(lambda v: sp.Float(float(v), 4))
    return expression_latex(matrix)


def numeric_page(title: str, method: str, model_name: str, t: float, M, forcing, A=None, b=None) -> Page:
    """M, the forcing, A and b as numbers (four digits) at one state."""
    page = Page(title, method, model_name, [Heading(title, 1), Heading(f"The numbers at t = {t:g} s", 2),
                                            Prose("The symbolic equations are being derived; meanwhile these are "
                                                  "the mass matrix, the forcing and the constraint rows at the "
                                                  "current state, in the velocities the method integrates.")])
    page.blocks.append(Formula(rf"M = {_number_matrix(M)}", "", "mass"))
    page.blocks.append(Formula(rf"f = {_number_matrix(np.reshape(forcing, (-1, 1)))}", "", "forcing"))
    if A is not None and np.size(A):
        page.blocks.append(Formula(rf"A = {_number_matrix(A)}", "", "constraints"))
        page.blocks.append(Formula(rf"b = {_number_matrix(np.reshape(b, (-1, 1)))}", "", "constraints"))
    return page


# --- side by side ----------------------------------------------------------------------------

#: at most this many formulas of one role per side, none longer than ROLE_CHARS (the rest are on
#: the full pages)
ROLE_FORMULAS = 2
ROLE_CHARS = 1000  # at least latex.MATRIX_CHARS: a matrix the page shows whole qualifies


def _of_role(page: Page, role: str) -> list[Formula]:
    found = [b for b in page.blocks if isinstance(b, Formula) and b.role == role and len(b.latex) <= ROLE_CHARS]
    return found[:ROLE_FORMULAS]


def _too_long_for_role(page: Page, role: str) -> list[tuple[str, int]]:
    """(caption, characters) of the formulas of `role` too long to set side by side: the page
    has such a term even when none of its formulas fits the row."""
    return [(b.caption, len(b.latex)) for b in page.blocks
            if isinstance(b, Formula) and b.role == role and len(b.latex) > ROLE_CHARS]


def corresponding(left: Page, right: Page) -> list[tuple[str, list[Formula], list[Formula]]]:
    """(role, left formulas, right formulas) for each role either page marks, in ROLES order."""
    rows = []
    for role in ROLES:
        mine, theirs = _of_role(left, role), _of_role(right, role)
        if mine or theirs:
            rows.append((role, mine, theirs))
    return rows


# --- writing it out --------------------------------------------------------------------------

def prose_latex(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("^", r"\^{}"), ("&", r"\&"),
                          ("%", r"\%"), ("#", r"\#"), ("{", r"\{"), ("}", r"\}"), ("$", r"\$")):
        text = text.replace(char, escaped)
    return text


def latex_body(page: Page) -> list[str]:
    lines = []
    for block in page.blocks:
        if isinstance(block, Heading):
            command = ("section*", "subsection*", "subsubsection*")[block.level - 1]
            lines.append(rf"\{command}{{{prose_latex(block.text)}}}")
        elif isinstance(block, Prose):
            lines.append(prose_latex(block.text) + "\n")
        elif isinstance(block, Definition):
            lines.append(rf"${block.symbol}$: {prose_latex(block.text)}" + "\n")
        else:
            mark = f"[{ROLES[block.role][0]}] " if block.role in ROLES else ""
            if block.caption or mark:
                lines.append(prose_latex(mark + block.caption))
            lines.append(rf"\[ {block.latex} \]")
    return lines


def latex_document(page: Page) -> str:
    """A standalone LaTeX file (pdflatex, amsmath): everything the page shows."""
    head = [rf"% {page.title} — model {page.model_name}" if page.model_name else f"% {page.title}",
            r"\documentclass[11pt]{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
            r"\usepackage{amsmath,amssymb}", r"\usepackage[a4paper,margin=2cm]{geometry}",
            r"\allowdisplaybreaks", r"\begin{document}"]
    return "\n".join(head + latex_body(page) + [r"\end{document}"]) + "\n"


HTML_STYLE = """body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.45}
math[display=block]{margin:.6em 0;overflow-x:auto;max-width:100%}
.role{border-left:4px solid var(--c);padding-left:.6em}.tag{color:var(--c);font-size:.85em;font-weight:bold}
.caption{color:#444;margin:.8em 0 .1em}"""


def mathml(latex: str, display: str = "block") -> str:
    import latex2mathml.converter

    return latex2mathml.converter.convert(latex, display=display)


def html_blocks(page: Page) -> list[str]:
    out = []
    for block in page.blocks:
        if isinstance(block, Heading):
            out.append(f"<h{block.level}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, Prose):
            out.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Definition):
            out.append(f"<p>{mathml(block.symbol, 'inline')}: {html.escape(block.text)}</p>")
        else:
            role = ROLES.get(block.role)
            caption = f'<p class="caption">{html.escape(block.caption)}</p>' if block.caption else ""
            if role:
                tag = f'<span class="tag">{html.escape(role[0])}</span>'
                out.append(f'<div class="role" style="--c:{role[1]}">{tag}{caption}{mathml(block.latex)}</div>')
            else:
                out.append(caption + mathml(block.latex))
    return out


def html_document(page: Page) -> str:
    """One HTML file, the mathematics as MathML: opens in a browser without LaTeX."""
    title = html.escape(f"{page.title} — {page.model_name}" if page.model_name else page.title)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><style>{HTML_STYLE}</style></head><body>\n"
            + "\n".join(html_blocks(page)) + "\n</body></html>\n")


# --- for the window: plain data (the window process never loads sympy) ------------------------

def page_data(page: Page, html: bool = True) -> dict:
    """The page as builtins: blocks as tuples, its formulas, its LaTeX and (`html`; else None)
    HTML documents, and for each role the page has (about.ROLES order) its label, colour, the
    formulas the side-by-side view shows and (caption, characters) of those too long to show
    there. The HTML converts every formula to MathML, up to half a second for a four-bar: the
    window's deriver sends it after the page (`html_document`)."""
    blocks = []
    for block in page.blocks:
        if isinstance(block, Heading):
            blocks.append(("heading", block.text, block.level))
        elif isinstance(block, Prose):
            blocks.append(("prose", block.text))
        elif isinstance(block, Definition):
            blocks.append(("definition", block.text))
        else:
            role = ROLES.get(block.role)
            blocks.append(("formula", block.caption, block.role if role else "", *(role or ("", ""))))
    formulas = page.formulas()
    roles = [(role, label, colour, [formulas.index(f.latex) for f in _of_role(page, role)],
              _too_long_for_role(page, role)) for role, (label, colour) in ROLES.items()]
    return {"title": page.title, "method": page.method, "model": page.model_name, "blocks": blocks,
            "formulas": formulas, "latex": latex_document(page), "html": html_document(page) if html else None,
            "roles": [r for r in roles if r[3] or r[4]]}
