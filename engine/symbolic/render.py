"""`eomlab equations MODEL [--method M] [--format text|latex|html|json]`.

- text: headed by the formulation's name and its source; each item printed by sympy's unicode
  pretty printer, under its caption or, for a formula without one, its left-hand side's LaTeX
  written as Unicode text (pylatexenc: \\dot q → q̇, \\frac{a}{b} → a/b).
- latex: the equations page (`page.py`) as a standalone LaTeX document, the same the panel shows.
- html: the same page as one HTML file, the mathematics as MathML.
- json: {"coordinates", "speeds", "mass_matrix" (rows of expressions), "forcing"
  (mass_matrix · u̇ = forcing, in the formulation's own speeds), "latex", …}; expressions in
  SymPy syntax (`sympy.sympify` parses them back) with the file's numbers substituted.
"""
from __future__ import annotations

import json
import threading

import sympy as sp

from eomlab.engine.model import Model, ModelError

from eomlab.engine.symbolic.derived_equations import Equations, Item, Tex
from eomlab.engine.symbolic.derive import derive
from eomlab.engine.symbolic.errors import operation_count
from eomlab.engine.symbolic.latex import display_latex, symbol_names, text_latex as latex_text
from eomlab.engine.symbolic.page import build_page, html_document, latex_document

FORMATS = ("text", "latex", "html", "json")


def equations_text(model: Model, method: str | None = None, fmt: str = "text",
                   parameters: str = "numbers", cancel: threading.Event | None = None) -> str:
    """The model's equations of motion in one formulation, as text, LaTeX or JSON."""
    if fmt not in FORMATS:
        raise ModelError("", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    equations = derive(model, method, parameters=parameters, cancel=cancel)
    return render(equations, fmt, model.name)


def render(equations: Equations, fmt: str = "text", model_name: str = "") -> str:
    if fmt == "json":
        return to_json(equations, model_name)
    if fmt == "latex":
        return latex_document(build_page(equations, model_name))
    if fmt == "html":
        return html_document(build_page(equations, model_name))
    return to_text(equations, model_name)


# --- display names: θ, θ̇, θ̈, ω_x… instead of theta, theta_dot ------------------------------

GREEK = {name: sp.pretty(sp.Symbol(name), use_unicode=True) for name in (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega")}
DOT, DDOT = "\u0307", "\u0308"  # combining dot and diaeresis above


def _head_and_tags(name: str) -> tuple[str, str, list[str]]:
    """'upper_theta' -> ('θ', 'theta', ['upper']); 'top_wx' -> ('ω', 'omega', ['x', 'top'])."""
    parts = name.split("_")
    for i, part in enumerate(parts):
        if part in GREEK:
            return GREEK[part], "\\" + part, parts[:i] + parts[i + 1:]
    if len(parts) >= 2 and parts[-1] in ("wx", "wy", "wz"):
        return GREEK["omega"], "\\omega", [parts[-1][1], "_".join(parts[:-1])]
    return parts[-1], parts[-1], parts[:-1]


def display_names(eq: Equations) -> dict[sp.Symbol, tuple[str, str]]:
    """Each coordinate/speed symbol of `eq` -> (unicode name, LaTeX name)."""
    names: dict[sp.Symbol, tuple[str, str]] = {}
    bases = [(c, [c, f"{c}_dot", f"{c}_ddot"]) for c in eq.coordinates]
    bases += [(s, [s, f"{s}_dot"]) for s in eq.speeds if not s.endswith("_dot")]
    for base, family in bases:
        head, head_tex, tags = _head_and_tags(base)
        sub = ",".join(tags)
        sub_tex = ",".join(rf"\mathrm{{{latex_text(t)}}}" for t in tags)
        for order, name in enumerate(family):
            text = head + (DOT if order == 1 else DDOT if order == 2 else "") + (f"_{sub}" if sub else "")
            accent = ("", r"\dot", r"\ddot")[order]
            tex = (rf"{accent}{{{head_tex}}}" if accent else head_tex) + (f"_{{{sub_tex}}}" if sub else "")
            names[sp.Symbol(name, real=True)] = (text, tex)
    for name in eq.constraint_names:
        names[sp.Symbol(f"lambda_{name}", real=True)] = (
            f"{GREEK['lambda']}_{name}", rf"\lambda_{{\mathrm{{{latex_text(name)}}}}}")
    return names


def _for_display(value, names):
    if isinstance(value, str) or not names:
        return value
    mapping = {s: sp.Symbol(text) for s, (text, _) in names.items()}
    try:
        return value.xreplace(mapping)
    except AttributeError:
        return value


# --- text ------------------------------------------------------------------------------------

#: longer expressions are printed in one line (the 2-D pretty printer is slow and unreadable on them)
PRETTY_OPERATION_LIMIT = 250


#: longer expressions are not printed in text or LaTeX at all (JSON still carries them)
DISPLAY_OPERATION_LIMIT = 6000


def too_long(value) -> str | None:
    """A note instead of an expression nobody could read."""
    if isinstance(value, str):
        return None
    n = operation_count(value)
    return f"({n} operations: too long to print; see the JSON output)" if n > DISPLAY_OPERATION_LIMIT else None


def pretty(value, names=None) -> str:
    if isinstance(value, str):
        return value
    note = too_long(value)
    if note:
        return note
    shown = _for_display(value, names)
    if operation_count(value) > PRETTY_OPERATION_LIMIT:
        return sp.sstr(shown)
    return sp.pretty(shown, use_unicode=True, wrap_line=False)


def indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def to_text(eq: Equations, model_name: str = "") -> str:
    names = display_names(eq)
    lines = [f"{eq.title} — {eq.reference}"]
    if model_name:
        lines.append(f"model: {model_name}")
    lines.append(f"coordinates q: {', '.join(eq.coordinates) or 'none'}")
    lines.append(f"velocities: {', '.join(eq.speeds) or 'none'}")
    if eq.parameters:
        lines.append("parameters: " + ", ".join(f"{s} = {v:g}" for s, v in eq.parameters.items()))
    for section in eq.sections:
        lines += ["", section.title, "─" * min(len(section.title), 78)]
        for item in section.items:
            lines.append(_text_item(item, names))
    return "\n".join(lines) + "\n"


def _text_item(item: Item, names) -> str:
    if isinstance(item.value, Tex):
        return f"  {item.label + ': ' if item.label else ''}{unicode_text(item.value)}"
    if isinstance(item.value, str):
        return f"  {item.label}: {item.value}"
    caption = item.label or unicode_text(item.tex)
    if not caption:
        return indent(pretty(item.value, names))
    return f"  {caption}:\n{indent(pretty(item.value, names))}"


def unicode_text(tex: str) -> str:
    """LaTeX as Unicode text for a terminal (q̇, ∂T/∂q, ⟺)."""
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text").latex_to_text(tex).strip() if tex else ""


# --- LaTeX of one item (JSON) ----------------------------------------------------------------

def latex_item(item: Item, names=None) -> str:
    if isinstance(item.value, str):
        return str(item.value) if type(item.value) is not str else ""
    return r" \\ ".join(display_latex(item.tex, item.value, names))


# --- JSON ------------------------------------------------------------------------------------

def expression_string(value) -> str:
    return sp.sstr(value)


def matrix_rows(matrix: sp.Matrix) -> list[list[str]]:
    return [[expression_string(matrix[i, j]) for j in range(matrix.cols)] for i in range(matrix.rows)]


def vector_entries(matrix: sp.Matrix) -> list[str]:
    return [expression_string(v) for v in matrix]


def json_value(value):
    if isinstance(value, str):
        return value
    if isinstance(value, sp.MatrixBase):
        return matrix_rows(value) if value.cols > 1 else vector_entries(value)
    return expression_string(value)


def to_json(eq: Equations, model_name: str = "") -> str:
    names = symbol_names(eq.coordinates, eq.speeds, eq.constraint_names)
    used = sorted({str(s) for m in (eq.mass_matrix, eq.forcing) for s in m.free_symbols})
    document = {
        "model": model_name,
        "method": eq.method,
        "title": eq.title,
        "reference": eq.reference,
        "coordinates": eq.coordinates,
        "speeds": eq.speeds,
        "accelerations": [str(a) for a in eq.accelerations],
        "mass_matrix": matrix_rows(eq.mass_matrix),
        "forcing": vector_entries(eq.forcing),
        "symbols": used,
        "parameters": {str(s): v for s, v in eq.parameters.items()},
        "constraints": None if eq.constraint_matrix is None else {
            "names": eq.constraint_names,
            "A": matrix_rows(eq.constraint_matrix),
            "b": vector_entries(eq.constraint_rhs)},
        "items": {item.symbol: json_value(item.value)
                  for section in eq.sections for item in section.items if item.symbol},
        "sections": [{"title": s.title, "items": [
            {"label": it.label, "latex": latex_item(it, names), "value": json_value(it.value)} for it in s.items]}
            for s in eq.sections],
        "latex": latex_document(build_page(eq, model_name)),
    }
    return json.dumps(document, indent=1, ensure_ascii=False)
