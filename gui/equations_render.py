"""Derive and typeset a model's equations for the equations panel — in a child process.

No Qt here: this module is what the panel's worker process imports. The work runs in its own
process rather than a thread of the window because Python's garbage collector runs in whichever
thread happens to allocate: sympy and ziamath allocate a lot, and a collection on a worker thread
that frees a closed window's Qt objects deadlocks against the GUI thread (seen in the tests).
A process also makes cancelling immediate: it is terminated.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from eomlab.engine.model import Model, ModelError

#: the longest LaTeX item we hand to ziamath; longer ones (big matrices take it many seconds)
#: are shown as text
MAX_TYPESET_CHARS = 1500


@dataclass
class ShownItem:
    label: str
    latex: str
    svg: bytes | None  # None: ziamath could not typeset it, show `text`
    text: str


@dataclass
class ShownEquations:
    """A derivation typeset for display."""

    title: str
    reference: str
    latex: str  # the whole document, for "Copy as LaTeX"
    sections: list[tuple[str, list[ShownItem]]] = field(default_factory=list)


def typeset(latex: str, color: str = "#000000") -> bytes | None:
    """SVG 1.1 of one LaTeX formula, or None when ziamath cannot set it."""
    if len(latex) > MAX_TYPESET_CHARS:
        return None
    try:
        import ziamath

        ziamath.config.svg2 = False  # Qt's SVG renderer reads SVG 1.1 (no <symbol>/<use> of SVG 2)
        svg = ziamath.Latex(latex, size=16, color=color).svg()
    except Exception:  # noqa: BLE001 - any failure to typeset falls back to text
        return None
    return svg.encode("utf-8")


def prepare(model: Model, method: str, color: str = "#000000", typesetter=None) -> ShownEquations:
    """Derive and typeset; raises SymbolicTooLarge (a ModelError) for a model too large."""
    from eomlab.engine import symbolic  # the symbolic entry point (sympy: loaded here, in the worker)

    typesetter = typesetter or typeset
    equations = symbolic.derive(model, method, parameters="numbers")
    names = symbolic.display_names(equations)
    shown = ShownEquations(equations.title, equations.reference, symbolic.render(equations, "latex", model.name))
    for section in equations.sections:
        items = []
        for item in section.items:
            latex = symbolic.latex_item(item, names)
            text = item.value if isinstance(item.value, str) else symbolic.pretty(item.value, names)
            items.append(ShownItem(item.label, latex, typesetter(latex, color), text))
        shown.sections.append((section.title, items))
    return shown


def outcome(model: Model, method: str, color: str, typesetter=None) -> tuple[str, object]:
    """("derived", ShownEquations) or ("refused", the reason)."""
    try:
        return "derived", prepare(model, method, color, typesetter)
    except ModelError as error:  # SymbolicTooLarge among them: its message says why
        return "refused", str(error)
    except Exception as error:  # noqa: BLE001 - a sympy failure is shown, not raised
        return "refused", f"the derivation failed: {type(error).__name__}: {error}"


def serve(requests, results, plain_text: bool = False) -> None:
    """The worker process: (generation, model, method, color) in, (kind, generation, value) out;
    None ends it. `plain_text` skips ziamath (the panel's fallback, and its test)."""
    no_typesetting = (lambda latex, color: None) if plain_text else None
    while True:
        request = requests.get()
        if request is None:
            return
        generation, model, method, color = request
        kind, value = outcome(model, method, color, no_typesetting)
        results.put((kind, generation, value))
