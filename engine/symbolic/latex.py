"""sympy objects as display LaTeX, with the model's own symbol names (θ_crank, θ̇_crank, λ_pin).

One printer for everything the equations page shows: `expression_latex` for one expression,
`display_latex` for what a page item shows (a matrix is split into its entries when it would be
too wide, a long sum is broken into aligned lines). Function arguments are printed in plain
parentheses (cos(θ), not \\left( … \\right)): the same look in TeX and far cheaper to typeset.
"""
from __future__ import annotations

import re

import sympy as sp

from eomlab.engine.symbolic.errors import operation_count
from eomlab.engine.symbolic.names_latex import subscript, symbol_latex, text_latex  # noqa: F401  (text_latex: for page and render)

#: a matrix whose LaTeX is longer than this is shown entry by entry
MATRIX_CHARS = 900
#: a sum whose LaTeX is longer than this is broken into lines of about this length
LINE_CHARS = 330
#: longer expressions are not printed (a page of symbols nobody reads); the note says so
EXPRESSION_CHARS = 12000

_FUNCTION_ARGUMENT = re.compile(r"\{\\left\(((?:(?!\\left|\\right).)*?) \\right\)\}")


def symbol_names(coordinates, speeds, constraint_names=()) -> dict[sp.Symbol, str]:
    """Every symbol of a derivation -> its LaTeX name (as sympy's `symbol_names` wants)."""
    names: dict[sp.Symbol, str] = {}
    for c in coordinates:
        for order, name in enumerate((c, f"{c}_dot", f"{c}_ddot")):
            names[sp.Symbol(name, real=True)] = symbol_latex(c, order)
    for s in speeds:
        if s.endswith("_dot"):
            continue
        for order, name in enumerate((s, f"{s}_dot")):
            names.setdefault(sp.Symbol(name, real=True), symbol_latex(s, order))
    for name in constraint_names:
        names[sp.Symbol(f"lambda_{name}", real=True)] = rf"\lambda{subscript([name])}"
    return names


def expression_latex(value, names: dict | None = None) -> str:
    """One sympy object as LaTeX, symbols as the model names them, function arguments in plain ()."""
    if isinstance(value, sp.MatrixBase) and value.rows * value.cols:
        return matrix_latex(entries_latex(value, names))
    text = sp.latex(value, symbol_names=names or {}, mat_delim="[", mat_str="matrix")
    while True:
        shorter = _FUNCTION_ARGUMENT.sub(r"(\1)", text)
        if shorter == text:
            return text
        text = shorter


def entries_latex(matrix: sp.MatrixBase, names) -> list[list[str]]:
    """Each entry's LaTeX, row by row."""
    return [[expression_latex(entry, names) for entry in matrix.row(i)] for i in range(matrix.rows)]


def matrix_latex(entries: list[list[str]]) -> str:
    """A matrix from its entries' LaTeX, as sympy prints one (mat_delim "[", mat_str "matrix"): a matrix
    too wide to read is shown entry by entry, and its entries are printed once for both."""
    rows = r"\\".join(" & ".join(row) for row in entries)
    return rf"\left[\begin{{matrix}}{rows}\end{{matrix}}\right]"


def _sum_lines(expr: sp.Expr, names) -> list[str] | None:
    """A long sum as lines of about LINE_CHARS, each after the first starting with its sign."""
    if not isinstance(expr, sp.Add):
        return None
    lines, current = [], ""
    for term in sp.Add.make_args(expr):
        negative = term.could_extract_minus_sign()
        body = expression_latex(-term if negative else term, names)
        piece = ("- " if negative else ("+ " if current or lines else "")) + body
        if current and len(current) + len(piece) > LINE_CHARS:
            lines.append(current)
            current = piece if piece.startswith(("+", "-")) else "+ " + piece
        else:
            current = f"{current} {piece}".strip()
    lines.append(current)
    return lines if len(lines) > 1 else None


def equation_latex(lhs: str, value, names=None, printed: str | None = None) -> str:
    """`lhs = value`, broken into aligned lines when the value is a long sum (`printed`: the value's
    LaTeX when already known)."""
    if isinstance(value, sp.Equality):
        lhs = expression_latex(value.lhs, names) if not lhs else lhs
        value, printed = value.rhs, None
    lines = _sum_lines(value, names) if isinstance(value, sp.Expr) else None
    if lines is None:
        text = printed if printed is not None else expression_latex(value, names)
        return f"{lhs} = {text}" if lhs else text
    # array rather than aligned: latex2mathml (the HTML and the panel) knows array only
    body = r" \\ & \quad {} ".join(lines)
    return rf"\begin{{array}}{{rl}} {lhs} & {{}} = {body} \end{{array}}"


def too_long(value) -> bool:
    return not isinstance(value, str) and operation_count(value) > EXPRESSION_CHARS // 4


def display_latex(lhs: str, value, names=None, entry_symbol: str = "") -> list[str]:
    """What a page shows for `lhs = value`: one formula, or one per nonzero entry of a matrix too
    wide to read (entries named `entry_symbol`_{ij}; vectors by one index)."""
    if isinstance(value, sp.Equality):
        return [equation_latex(expression_latex(value.lhs, names), value.rhs, names)]
    if not isinstance(value, sp.MatrixBase):
        return [equation_latex(lhs, value, names)]
    if value.rows * value.cols == 0:
        whole = expression_latex(value, names)
        return [f"{lhs} = {whole}" if lhs else whole]
    entries = entries_latex(value, names)
    whole = matrix_latex(entries)
    if len(whole) <= MATRIX_CHARS:
        return [f"{lhs} = {whole}" if lhs else whole]
    symbol = entry_symbol or "X"
    shown = []
    vector = value.cols == 1
    for i in range(value.rows):
        for j in range(value.cols):
            entry = value[i, j]
            if entry == 0:
                continue
            index = f"{i + 1}" if vector else f"{i + 1}{j + 1}"
            shown.append(equation_latex(f"{symbol}_{{{index}}}", entry, names, entries[i][j]))
    zeros = sum(1 for v in value if v == 0)
    if zeros:
        shown.append(rf"{symbol}_{{ij}} = 0 \ \text{{for the other {zeros} entries}}" if not vector
                     else rf"{symbol}_{{i}} = 0 \ \text{{for the other {zeros} entries}}")
    return shown
