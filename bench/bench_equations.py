"""Time to the equations: the four-bar in every formulation, a 6-link and a 10-link planar chain.

Each case runs cold in a fresh process (sympy's caches empty, fonts not loaded) and measures
  derive   the symbolic derivation (engine.symbolic.derive),
  page     laying out the page (LaTeX of every formula),
  screen   typesetting the first SCREEN formulas (what the panel shows first),
  all      typesetting every formula the panel typesets unasked (long ones wait for a click),
then "cached": the panel shown again on a model and formulation it has derived (the cache
lookup and swapping in the laid-out page, measured in the GUI under Qt's offscreen platform).

    python bench/bench_equations.py [--quick | --chains]   # the four-bar only | the chains only
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from eomlab.engine.methods import METHODS

SCREEN = 15
CASES = [("four_bar", m) for m in (*METHODS, "roberson_wittenburg")]
CASES += [("chain6", "lagrange"), ("chain6", "kane"), ("chain10", "lagrange"), ("chain10", "kane")]


def model_of(name: str):
    from eomlab.engine.presets import planar_chain, preset

    return planar_chain(int(name[5:])) if name.startswith("chain") else preset(name)


def cold(name: str, method: str) -> dict:
    from eomlab.engine.symbolic import derive
    from eomlab.engine.symbolic.page import build_page
    from eomlab.gui.equations_render import DEFERRED_CHARS, typeset

    from eomlab.engine.model import ModelError

    model = model_of(name)
    start = time.perf_counter()
    try:
        equations = derive(model, method)
    except ModelError as refusal:  # the size guard
        return {"refused": str(refusal), "seconds": time.perf_counter() - start}
    derived = time.perf_counter()
    page = build_page(equations, model.name)
    laid_out = time.perf_counter()
    formulas = [f for f in page.formulas() if len(f) <= DEFERRED_CHARS]
    for latex in formulas[:SCREEN]:
        typeset(latex)
    screen = time.perf_counter()
    for latex in formulas[SCREEN:]:
        typeset(latex)
    done = time.perf_counter()
    return {"derive": derived - start, "page": laid_out - derived, "screen": screen - start, "all": done - start,
            "formulas": len(page.formulas()), "deferred": len(page.formulas()) - len(formulas)}


def cached(name: str, method: str) -> float:
    """Seconds for the panel to show a page it has cached."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from eomlab.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(model_of(name).with_settings(method=method), None, run=False)
    window.show()
    view = window.equations_view
    view.show()
    while view.pending:
        app.processEvents()
        time.sleep(0.01)
    other = "lagrange" if method != "lagrange" else "udwadia_kalaba"
    view.dock.hide()  # the window's own reaction to a change of method is not the panel's
    window.settings_bar.set_setting("method", other)
    window.settings_bar.set_setting("method", method)
    app.processEvents()
    start = time.perf_counter()
    view.show()
    app.processEvents()
    seconds = time.perf_counter() - start
    assert not view.pending and view.shown is not None
    window.confirm_discard = lambda: True
    window.close()
    return seconds


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--cold":
        print(json.dumps(cold(sys.argv[2], sys.argv[3])))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--cached":
        print(json.dumps(cached(sys.argv[2], sys.argv[3])))
        return
    cases = CASES[:5] if "--quick" in sys.argv else CASES[5:] if "--chains" in sys.argv else CASES
    print("| model | method | derive s | page s | first screen s | all typeset s | formulas (deferred) | cached s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, method in cases:
        run = [sys.executable, __file__]
        result = json.loads(subprocess.run(run + ["--cold", name, method], capture_output=True, text=True,
                                           check=True).stdout.splitlines()[-1])
        if "refused" in result:
            print(f"| {name} | {method} | refused in {result['seconds']:.2f} s: {result['refused']} |||||| |")
            continue
        again = float(subprocess.run(run + ["--cached", name, method], capture_output=True, text=True,
                                     check=True).stdout.splitlines()[-1]) if name == "four_bar" and method != "roberson_wittenburg" \
            else float("nan")  # the window's method box offers the registry's formulations
        print(f"| {name} | {method} | {result['derive']:.1f} | {result['page']:.2f} | {result['screen']:.1f} | "
              f"{result['all']:.1f} | {result['formulas']} ({result['deferred']}) | {again:.3f} |", flush=True)


if __name__ == "__main__":
    main()
