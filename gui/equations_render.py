"""Typeset an equations page for the panel — in a child process.

One renderer for every formula: LaTeX → MathML (latex2mathml) → SVG (ziamath, pure Python).
No Qt here: this module is what the panel's worker process imports. The work runs in its own
process rather than a thread of the window because Python's garbage collector runs in whichever
thread happens to allocate: sympy and ziamath allocate a lot, and a collection on a worker thread
that frees a closed window's Qt objects deadlocks against the GUI thread. A process also makes
cancelling immediate: it is terminated.

The worker answers a request in three steps, each sent as soon as it is ready: the numbers at
the current state (a page of numeric matrices), the symbolic page (LaTeX only, cheap), then the
page's formulas typeset one by one, in page order.
"""
from __future__ import annotations

import os
from xml.etree import ElementTree

from eomlab.engine.model import Model, ModelError

#: typeset at this size (px); the panel scales the SVG with its font
TYPESET_PX = 18
#: ink of the typeset SVG; the panel swaps it for its palette's text colour
INK = "#010203"
#: longer formulas are typeset only when asked for (a wall of symbols takes ziamath ~1 s per 1000)
DEFERRED_CHARS = 4000


def _install_speedup() -> None:
    """ziamath measures every child of every row twice (once to size stretchy fences, once for
    real), so typesetting time doubles with each level of nesting: a 3 × 3 mass matrix took 20 s.
    A row without a stretchy operator among its children needs no measuring pass: skip it there
    (same output: tests/gui/test_equations_view.py)."""
    from ziamath.nodes.mrow import Mrow

    if getattr(Mrow, "_eomlab_fast", False):
        return
    measure = Mrow._get_height_nostretch

    def measure_if_stretchy(self, line, **kwargs):
        if any(child.tag == "mo" and child.get("stretchy") != "false" for child in line):
            return measure(self, line, **kwargs)
        return kwargs.get("rowymin", 0.0), kwargs.get("rowymax", 0.0)

    Mrow._get_height_nostretch = measure_if_stretchy
    Mrow._eomlab_fast = True
    Mrow._eomlab_original = measure


def missing_glyphs(mathml: str) -> set[str]:
    """Characters of the formula that the math font has no glyph for (they would show as boxes)."""
    from ziamath.zmath import Math

    font = Math("<math><mi>x</mi></math>").font
    root = ElementTree.fromstring(mathml)
    text = "".join(node.text or "" for node in root.iter() if node.tag.split("}")[-1] in ("mi", "mo", "mn", "mtext"))
    return {char for char in text if not char.isspace() and font.glyphindex(char) == 0}


class TypesetError(ValueError):
    pass


def typeset(latex: str) -> bytes:
    """SVG 1.1 of one LaTeX formula in the ink INK; TypesetError if it cannot be set (or would
    show a missing glyph)."""
    import latex2mathml.converter
    import ziamath

    _install_speedup()
    ziamath.config.svg2 = False  # Qt's SVG renderer reads SVG 1.1 (no <symbol>/<use> of SVG 2)
    try:
        mathml = latex2mathml.converter.convert(latex, display="block")
        missing = missing_glyphs(mathml)
        if missing:
            raise TypesetError(f"no glyph for {''.join(sorted(missing))!r}")
        root = ElementTree.fromstring(mathml)
        root.attrib["mathcolor"] = INK
        svg = ziamath.Math(root, size=TYPESET_PX).svg()
    except TypesetError:
        raise
    except Exception as error:  # noqa: BLE001 - any failure of the typesetter is reported as one
        raise TypesetError(f"{type(error).__name__}: {error}") from None
    return svg.encode("utf-8")


# --- the worker process ---------------------------------------------------------------------

def numeric_snapshot(model: Model, method: str, state):
    """The numbers at `state` ((columns, row) of the window's run, or None: the start) as a page."""
    import numpy as np

    from eomlab.engine import symbolic  # the symbolic entry point (sympy: loaded here, in the worker)
    from eomlab.engine.methods import label
    from eomlab.engine.simulation import Simulation

    simulation = Simulation(model, method=method if method != "roberson_wittenburg" else "lagrange")
    columns, row = (simulation.columns, simulation.samples()[0]) if state is None else state
    value = dict(zip(columns, np.asarray(row, float)))
    system, formulation = simulation.system, simulation.formulation
    t = float(value["t"])
    q = np.array([value[n] for n in system.coordinate_names])
    u = np.array([value[n] for n in system.speed_names])
    evaluation = formulation.evaluate(t, formulation.qu_to_state(q, formulation.model_to_own(q, u)))
    rows = evaluation.rows
    title = label(method) if method != "roberson_wittenburg" else "Roberson–Wittenburg"
    return symbolic.page_data(symbolic.numeric_page(
        title, method, model.name, t, evaluation.dynamics.M, evaluation.dynamics.forcing,
        None if rows is None else rows.A, None if rows is None else rows.b))


def symbolic_page(model: Model, method: str):
    """Derive and lay out (plain data, `page_data`); raises SymbolicTooLarge (a ModelError) for a
    model too large."""
    from eomlab.engine import symbolic

    return symbolic.page_data(symbolic.build_page(symbolic.derive(model, method, parameters="numbers"), model.name))


def _typeset_all(page, generation: int, kind: str, results, known=frozenset()) -> None:
    """Every formula in page order; those the panel already has (`known`) only by name."""
    for index, latex in enumerate(page["formulas"]):
        if latex in known:
            results.put(("svg", generation, (kind, index, None, "known")))
            continue
        if len(latex) > DEFERRED_CHARS:
            results.put(("svg", generation, (kind, index, None, "deferred")))
            continue
        _typeset_one(latex, generation, kind, index, results)


def _typeset_one(latex: str, generation: int, kind: str, index: int, results) -> None:
    try:
        results.put(("svg", generation, (kind, index, typeset(latex), "")))
    except TypesetError as error:
        results.put(("svg", generation, (kind, index, None, str(error))))


def answer(request, results) -> None:
    """One request: (generation, model, method, state, what, known) with `what` ⊆ {"numbers",
    "symbols"} and `known` the formulas the panel has typeset before, or ("typeset", generation,
    kind, index, latex) for a deferred formula."""
    if request[0] == "typeset":
        _, generation, kind, index, latex = request
        _typeset_one(latex, generation, kind, index, results)
        results.put(("done", generation, None))
        return
    generation, model, method, state, what, known = request
    if "numbers" in what:
        try:
            numbers = numeric_snapshot(model, method, state)
        except Exception:  # noqa: BLE001 - the numbers are a courtesy while deriving; skip if they fail
            numbers = None
        if numbers is not None:
            results.put(("numbers", generation, numbers))
            _typeset_all(numbers, generation, "numbers", results, known)
    if "symbols" not in what:
        return
    try:
        page = symbolic_page(model, method)
    except ModelError as error:  # SymbolicTooLarge among them: its message says why
        results.put(("refused", generation, str(error)))
        return
    except Exception as error:  # noqa: BLE001 - a sympy failure is shown, not raised
        results.put(("refused", generation, f"the derivation failed: {type(error).__name__}: {error}"))
        return
    results.put(("page", generation, page))
    _typeset_all(page, generation, "page", results, known)
    results.put(("done", generation, None))


def serve(requests, results) -> None:
    """The worker process: requests in, (kind, generation, value) out; None ends it."""
    try:
        os.nice(5)  # the window and the simulation come first
    except (AttributeError, OSError):
        pass
    while True:
        request = requests.get()
        if request is None:
            return
        answer(request, results)
