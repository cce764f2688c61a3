"""A formulation's equations as a page: headings and prose, and formulas in LaTeX.

The page is what the equations panel shows, what "Copy as LaTeX" copies and what
`eomlab equations --format latex|html` prints: `build_page` makes it from a derivation (the
formulation's general form, what its symbols are and what sets it apart come from
`about.ABOUTS`; then the model's own matrices and equations); `latex_document` and
`html_document` write it out. Prose is plain text; every formula is LaTeX from sympy's
printer (`latex.py`) or written by hand. The blocks, the writing out and the top of a page
(written before sympy loads) are in `page_blocks`.
"""
from __future__ import annotations


from eomlab.engine.symbolic.about import ABOUTS, ROLES
from eomlab.engine.symbolic.derived_equations import Equations, Item, Tex
from eomlab.engine.symbolic.errors import operation_count
from eomlab.engine.symbolic.latex import display_latex, symbol_names, text_latex, too_long
from eomlab.engine.symbolic.page_blocks import (  # noqa: F401  (the page's names, as before the split)
    ROLE_CHARS, ROLE_FORMULAS, Definition, Formula, Heading, Page, Prose, general_blocks, html_document,
    latex_document, mathml, model_head, numeric_page, of_role, page_data)


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
    return general_blocks(about)


def _model_part(eq: Equations, model_name: str, names) -> list:
    blocks = model_head(model_name, eq.coordinates)
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

# --- side by side ----------------------------------------------------------------------------

def corresponding(left: Page, right: Page) -> list[tuple[str, list[Formula], list[Formula]]]:
    """(role, left formulas, right formulas) for each role either page marks, in ROLES order."""
    rows = []
    for role in ROLES:
        mine, theirs = of_role(left, role), of_role(right, role)
        if mine or theirs:
            rows.append((role, mine, theirs))
    return rows
