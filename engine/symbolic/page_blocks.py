"""An equations page as plain data — headings, prose, formulas in LaTeX — and its top, without sympy.

The page's blocks (`Heading`, `Prose`, `Formula`, `Definition`, `Page`), the part of a page no model
changes (`general_page`), the top of a model's page written before anything is derived
(`page_top`: the general part, the model's heading and its coordinates — the same blocks the
derived page starts with), the page written out as LaTeX and HTML, and `page_data`, the page as
builtins for the window. Nothing here imports sympy: the panel's deriver sends the top of the page
before sympy has loaded (`page.build_page` makes the whole page from a derivation).
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

from eomlab.engine.symbolic.about import ROLES, about_of
from eomlab.engine.symbolic.names_latex import coordinates_latex


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


def general_page(method: str) -> Page | None:
    """The part of `method`'s page that no model changes (None for a formulation without an
    explanation): known before the derivation, so its formulas can be typeset meanwhile."""
    about = about_of(method)
    return None if about is None else Page(about.name, method, "", general_blocks(about))


def general_blocks(about) -> list:
    blocks = [Heading(about.name, 1), Prose(f"Source: {about.source}."), Heading("The general form", 2)]
    blocks += [Formula(latex, "", role) for role, latex in about.general]
    blocks.append(Prose("Where:"))
    blocks += [Definition(symbol, text) for symbol, text in about.symbols]
    blocks.append(Prose(about.difference))
    return blocks


def model_head(model_name: str, coordinates) -> list:
    """The heading of the model's part and its coordinates as a row."""
    blocks = [Heading(f"The model {model_name}" if model_name else "The model", 2)]
    if coordinates:
        blocks.append(Formula(coordinates_latex(coordinates), "Coordinates (as rows):"))
    return blocks


def page_top(model, method: str) -> Page | None:
    """The blocks `method`'s page for `model` starts with, before any derivation (None for a
    formulation without an explanation): the panel shows and typesets them while sympy loads
    and derives. The derived page (`page.build_page`) begins with exactly these blocks."""
    about = about_of(method)
    if about is None:
        return None
    return Page(about.name, method, model.name, general_blocks(about) + model_head(model.name, model.coordinate_names))



def number_latex(value: float) -> str:
    """A number to four significant digits, powers of ten as · 10^k (the numbers page, without sympy)."""
    value = float(value)
    if not math.isfinite(value):
        return r"\text{NaN}" if math.isnan(value) else ("-" if value < 0 else "") + r"\infty"
    text = f"{value:.4g}"
    mantissa, _, exponent = text.partition("e")
    return rf"{mantissa} \cdot 10^{{{int(exponent)}}}" if exponent else text


#: entries this small beside the matrix's largest are rounding left over, shown as 0 (4.441·10⁻¹⁶ beside 4)
ROUNDING = 1e-12


def number_matrix_latex(values) -> str:
    """A matrix (or a column: a 1-D array) of numbers in brackets."""
    rows = values if len(values) and hasattr(values[0], "__len__") else [[v] for v in values]
    finite = [abs(float(v)) for row in rows for v in row if math.isfinite(float(v))]
    floor = ROUNDING * max(finite, default=0.0)
    body = r" \\ ".join(" & ".join(number_latex(0.0 if abs(float(v)) <= floor else v) for v in row)
                          for row in rows)
    return rf"\left[\begin{{matrix}}{body}\end{{matrix}}\right]"


def numeric_page(title: str, method: str, model_name: str, t: float, M, forcing, A=None, b=None) -> Page:
    """M, the forcing, A and b as numbers (four digits) at one state, written without sympy: the panel
    shows them while sympy loads and derives."""
    page = Page(title, method, model_name, [Heading(title, 1), Heading(f"The numbers at t = {t:g} s", 2),
                                            Prose("The symbolic equations are being derived; meanwhile these are "
                                                  "the mass matrix, the forcing and the constraint rows at the "
                                                  "current state, in the velocities the method integrates.")])
    page.blocks.append(Formula(f"M = {number_matrix_latex(M)}", "", "mass"))
    page.blocks.append(Formula(f"f = {number_matrix_latex(forcing)}", "", "forcing"))
    if A is not None and len(A) and len(A[0]):
        page.blocks.append(Formula(f"A = {number_matrix_latex(A)}", "", "constraints"))
        page.blocks.append(Formula(f"b = {number_matrix_latex(b)}", "", "constraints"))
    return page


# --- side by side ----------------------------------------------------------------------------

#: at most this many formulas of one role per side, none longer than ROLE_CHARS (the rest are on
#: the full pages)
ROLE_FORMULAS = 2
ROLE_CHARS = 1000  # at least latex.MATRIX_CHARS: a matrix the page shows whole qualifies


def of_role(page: Page, role: str) -> list[Formula]:
    found = [b for b in page.blocks if isinstance(b, Formula) and b.role == role and len(b.latex) <= ROLE_CHARS]
    return found[:ROLE_FORMULAS]


def too_long_for_role(page: Page, role: str) -> list[tuple[str, int]]:
    """(caption, characters) of the formulas of `role` too long to set side by side: the page
    has such a term even when none of its formulas fits the row."""
    return [(b.caption, len(b.latex)) for b in page.blocks
            if isinstance(b, Formula) and b.role == role and len(b.latex) > ROLE_CHARS]


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
    roles = [(role, label, colour, [formulas.index(f.latex) for f in of_role(page, role)],
              too_long_for_role(page, role)) for role, (label, colour) in ROLES.items()]
    return {"title": page.title, "method": page.method, "model": page.model_name, "blocks": blocks,
            "formulas": formulas, "latex": latex_document(page), "html": html_document(page) if html else None,
            "roles": [r for r in roles if r[3] or r[4]]}
