"""Derive and typeset an equations page for the panel — in two child processes.

One renderer for every formula: LaTeX → MathML (latex2mathml) → SVG (ziamath, pure Python).
No Qt here: this module is what the panel's worker processes import. The work runs in processes
rather than threads of the window because Python's garbage collector runs in whichever thread
happens to allocate: sympy and ziamath allocate a lot, and a collection on a worker thread that
frees a closed window's Qt objects deadlocks against the GUI thread. A process also makes
cancelling a derivation immediate: it is terminated.

Two processes, so that the two cores work at once: the deriver sends the top of the page (what
no derivation changes: the general form, the model's coordinates) and then the symbolic page
(LaTeX only), or a page it derived in an earlier session (gui/equations/page_cache.py); the
typesetter typesets the formulas the panel sends it, one by one, in the order asked, forgets those
of a page the panel no longer wants, and between formulas works out the numbers at the current
state (a page of numeric matrices, shown while the deriver derives). Each imports its libraries as it starts (the window may start them early).
"""
from __future__ import annotations

import functools
import gc
import os
from collections import deque
from xml.etree import ElementTree

from eomlab.engine.model import Model, ModelError

#: typeset at this size (px); the panel scales the SVG with its font
TYPESET_PX = 18
#: ink of the typeset SVG; the panel swaps it for its palette's text colour
INK = "#010203"
#: longer formulas are typeset only when asked for (ziamath's time grows with a formula's length)
DEFERRED_CHARS = 4000

_fast_rows: list = []  # the row class registered with ziamath, once


def fast_rows():
    """ziamath's row class with its measuring pass skipped where it cannot matter; registered
    for <mrow> (and <math>, <mtd>, <mtr>, which ziamath lays out as rows) through ziamath's own
    hook: a node class declares the MathML tag it lays out (`Mnode.__init_subclass__(tag=…)`)
    and the last class declared for a tag is used.

    ziamath lays out every child of every row twice (once with `nostretch`, to learn how far to
    stretch fences, then for real), so typesetting time doubles with each level of nesting: a
    3 × 3 mass matrix took 20 s. A row without a stretchy operator among its children has
    nothing to stretch and skips the first pass (same SVG: tests/gui/equations/test_equations_view.py).
    ziamath 0.13, the latest release, has no option for this."""
    if not _fast_rows:
        from ziamath.nodes.mrow import Mrow

        class MeasuredOnceRow(Mrow, tag="mrow"):
            def _get_height_nostretch(self, line, **kwargs):
                if any(child.tag == "mo" and child.get("stretchy") != "false" for child in line):
                    return super()._get_height_nostretch(line, **kwargs)
                return kwargs.get("rowymin", 0.0), kwargs.get("rowymax", 0.0)

        _fast_rows.append(MeasuredOnceRow)
    return _fast_rows[0]


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

    fast_rows()
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


# --- the numbers (worked out by the typesetter) -----------------------------------------------

def numeric_snapshot(model: Model, method: str, state):
    """The numbers at `state` ((columns, row) of the window's run, or None: the start) as a page.
    Only the system and the formulation are built (`RunQuantities`: no integrator, so neither
    scipy.integrate nor a compiled kernel loads, 0.3–0.5 CPU s less than a Simulation); the start is
    the model's initial state made consistent with its constraints, as a run starts."""
    import numpy as np

    from eomlab.engine import symbolic
    from eomlab.engine.methods import METHODS, label
    from eomlab.engine.simulation import RunQuantities, consistent_initial_state

    own = method if method in METHODS else "lagrange"  # a view: Lagrange's numbers
    quantities = RunQuantities(model, method=own)
    system, formulation = quantities.system, quantities.formulation
    if state is None:
        t, (q, u) = 0.0, consistent_initial_state(system, [])
    else:
        value = dict(zip(state[0], np.asarray(state[1], float)))
        t = float(value["t"])
        q = np.array([value[n] for n in system.coordinate_names])
        u = np.array([value[n] for n in system.speed_names])
    evaluation = formulation.evaluate(t, formulation.qu_to_state(q, formulation.model_to_own(q, u)))
    rows = evaluation.rows
    return symbolic.page_data(symbolic.numeric_page(
        label(method), method, model.name, t, evaluation.dynamics.M, evaluation.dynamics.forcing,
        None if rows is None else rows.A, None if rows is None else rows.b))


# --- the deriver ----------------------------------------------------------------------------

def symbolic_page(model: Model, method: str):
    """Derive and lay out (`engine.symbolic.page.Page`); raises SymbolicTooLarge (a ModelError)
    for a model too large."""
    from eomlab.engine import symbolic

    return symbolic.build_page(symbolic.derive(model, method, parameters="numbers"), model.name)


def derive_answer(request, results) -> None:
    """(generation, model, method): a page derived before (gui/equations/page_cache.py: no sympy, no
    derivation), or the top of the page (its general part, the model's heading and coordinates:
    written before sympy loads) and then the symbolic page and its HTML export, or the reason it is
    refused. The numbers shown meanwhile are the typesetter's (`numbers_answer`): the two cores work
    at once."""
    generation, model, method = request
    from eomlab.engine import symbolic  # the package's names load on first use (page_top: no sympy)
    from eomlab.gui.equations import page_cache

    kept = page_cache.load(model, method)
    if kept is not None:
        html = kept.pop("html")
        results.put(("page", generation, dict(kept, html=None)))
        results.put(("html", generation, html))
        return
    top = symbolic.page_top(model, method)
    if top is not None:  # shown and typeset while sympy loads and derives
        results.put(("top", generation, symbolic.page_data(top, html=False)))
    _load_derivation_libraries()
    try:
        page = symbolic_page(model, method)
    except ModelError as error:  # SymbolicTooLarge among them: its message says why
        results.put(("refused", generation, str(error)))
        return
    except Exception as error:  # noqa: BLE001 - a sympy failure is shown, not raised
        results.put(("refused", generation, f"the derivation failed: {type(error).__name__}: {error}"))
        return
    # the page without its HTML export first: MathML of every formula (0.2 s for the four-bar's
    # Maggi page, 0.4 s for Gibbs–Appell's) would otherwise hold up the first screen
    data = symbolic.page_data(page, html=False)
    results.put(("page", generation, data))
    html = symbolic.html_document(page)
    page_cache.store(model, method, dict(data, html=html))
    results.put(("html", generation, html))


def _lower_priority() -> None:
    try:
        os.nice(5)  # the window and the simulation come first
    except (AttributeError, OSError):
        pass


@functools.cache
def _load_derivation_libraries() -> None:
    """sympy and every formulation, imported once, with the garbage collector paused, then frozen: the
    few hundred thousand objects they make live as long as the process, and the collections their import
    would trigger walk them again and again (sympy's import: 0.33 instead of 0.36 CPU s); frozen, no
    later collection walks them either."""
    from eomlab.engine import symbolic

    gc.disable()
    try:
        symbolic.load()
    finally:
        gc.freeze()
        gc.enable()


#: how long a deriver just started looks for a request already sent (the panel opened at once) (s)
ASKED_AT_START_S = 0.02


def serve_derivations(requests, results) -> None:
    """The deriver process: requests in, (kind, generation, value) out; None ends it. Started
    early (`Workers.prewarm`) it loads its libraries before the first request; started by a
    request it answers at once, the top of the page before sympy has loaded."""
    import queue

    _lower_priority()
    try:
        request = requests.get(timeout=ASKED_AT_START_S)
    except queue.Empty:
        _load_derivation_libraries()
        results.put(("ready", 0, "deriver"))
        request = requests.get()
    while request is not None:
        derive_answer(request, results)
        request = requests.get()


# --- the typesetter --------------------------------------------------------------------------

def numbers_answer(job, results) -> None:
    """("numbers", generation, model, method, state) → ("numbers", generation, page), or nothing when they
    cannot be had (they are a courtesy while the deriver derives)."""
    _, generation, model, method, state = job
    try:
        numbers = numeric_snapshot(model, method, state)
    except Exception:  # noqa: BLE001 - the page comes anyway; the numbers only fill the wait
        return
    results.put(("numbers", generation, numbers))


def typeset_answer(job, results) -> None:
    """("typeset", generation, kind, index, latex) → ("svg", generation, (kind, index, svg, note))."""
    _, generation, kind, index, latex = job
    try:
        results.put(("svg", generation, (kind, index, typeset(latex), "")))
    except TypesetError as error:
        results.put(("svg", generation, (kind, index, None, str(error))))


class Jobs:
    """The typesetter's to-do list: formulas in the order asked, and the numbers to work out when no
    formula waits; ("drop", generation, kind) forgets a page's formulas (kind None: all of that
    generation; "numbers": the numbers too), ("first", generation, kind, indices) moves those formulas
    to the front (what the panel shows now)."""

    def __init__(self):
        self.waiting: deque = deque()
        self.numbers: deque = deque()
        self.ended = False

    @property
    def idle(self) -> bool:
        return not (self.waiting or self.numbers)

    def take(self, message) -> None:
        if message is None:
            self.ended = True
        elif message[0] == "typeset":
            self.waiting.append(message)
        elif message[0] == "numbers":
            self.numbers.append(message)
        elif message[0] == "drop":
            _, generation, kind = message
            self.waiting = deque(job for job in self.waiting
                                 if not (job[1] == generation and kind in (None, job[2])))
            if kind in (None, "numbers"):
                self.numbers = deque(job for job in self.numbers if job[1] != generation)
        elif message[0] == "first":
            _, generation, kind, indices = message
            chosen = {(generation, kind, i) for i in indices}
            front = [job for job in self.waiting if job[1:4] in chosen]
            self.waiting = deque(front + [job for job in self.waiting if job[1:4] not in chosen])


def serve_typesetting(requests, results) -> None:
    """The typesetter process: typesets one formula at a time, reading every new message first; works
    out the numbers when no formula waits."""
    import queue

    _lower_priority()
    typeset("x")  # loads the fonts before the first request
    from eomlab.engine import simulation  # noqa: F401 - the numbers' engine (`numeric_snapshot`)

    results.put(("ready", 0, "typesetter"))
    jobs = Jobs()
    while not jobs.ended:
        if jobs.idle:
            jobs.take(requests.get())
        while True:
            try:
                jobs.take(requests.get_nowait())
            except queue.Empty:
                break
        if jobs.ended:
            break
        if jobs.waiting:
            typeset_answer(jobs.waiting.popleft(), results)
        elif jobs.numbers:
            numbers_answer(jobs.numbers.popleft(), results)
