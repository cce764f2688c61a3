"""Time to the equations: the four-bar in every formulation, a 6-link and a 10-link planar chain.

Each case runs in a fresh process, through the panel's own two worker processes
(gui/equations/equations_workers.py: the deriver and the typesetter, spawned as the panel spawns them):
  ready    the workers' start (spawn, sympy and the fonts loaded); 0 when prewarmed,
  top      asking → the top of the page back from the deriver (the general form, the model's
           coordinates: written before sympy loads; the panel shows it at once, above the numbers),
  top typeset  asking → the top's formulas typeset,
  page     asking → the symbolic page back from the deriver (derivation and LaTeX of every formula),
  screen   asking → the first SCREEN formulas of the page typeset,
  all      asking → every formula typeset except the longest, which wait for a click;
"cold" spawns the workers when asked (a window whose panel is opened at once), "warm" asks after
they are ready (the window starts them a few seconds after it opens); "cached" is the panel shown
again on a model and formulation it has derived (measured in the GUI, Qt's offscreen platform);
"cold, derived before" is a cold run whose page was derived in an earlier session (the disk cache,
gui/equations/page_cache.py). Every other run starts with an empty disk cache: the page is derived.
Every process reads its byte code from one folder filled by an untimed run first (as an installed
eomlab has its .pyc files). Times are wall clock; the CPU seconds of the derivation (in the deriver) are in "derive CPU", and
the deriver's CPU seconds from its spawn to the top and to the page (a cold run) beside them: on a
loaded machine the workers, at nice 5, wait for a core, and the CPU seconds say what an idle one
would take. The numbers are asked at the model's start, as a window with no run yet asks them.

    python bench/bench_equations.py [--quick | --chains] [--runs 5] [--cold] [--methods kane,maggi]
        # the four-bar only | the chains only; medians of 5 runs; the cold columns only (each cold
        # run ends at the first screen); these formulations only
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from eomlab.engine.methods import METHODS

SCREEN = 15
FORMULATIONS = (*METHODS, "roberson_wittenburg")
CASES = [("four_bar", m) for m in FORMULATIONS]
CHAIN_METHODS = ("lagrange", "kane", "roberson_wittenburg")
CASES += [("chain6", m) for m in CHAIN_METHODS] + [("chain10", m) for m in CHAIN_METHODS]


def model_of(name: str):
    from eomlab.engine.presets import planar_chain, preset

    return planar_chain(int(name[5:])) if name.startswith("chain") else preset(name)


def derive_cpu(name: str, method: str) -> float:
    """CPU seconds of derive + page (the deriver's work up to the page; its HTML export follows
    the page), in this process."""
    from eomlab.engine.symbolic import build_page, derive, page_data

    model = model_of(name)
    start = time.process_time()
    page_data(build_page(derive(model, method), model.name), html=False)
    return time.process_time() - start


def _cpu(worker) -> float:
    """CPU seconds (user + system) a worker process has used so far (Linux /proc; nan elsewhere)."""
    try:
        with open(f"/proc/{worker.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, AttributeError, IndexError, ValueError):
        return float("nan")


def _wait(workers, until, timeout=600.0) -> list:
    messages, start = [], time.perf_counter()
    while not until(messages):
        messages += workers.finished()
        if time.perf_counter() - start > timeout:
            raise TimeoutError
        time.sleep(0.005)
    return messages


def pipeline(name: str, method: str, warm: bool, to_screen: bool = False) -> dict:
    """The panel's pipeline: the deriver sends the top of the page and then the page; the typesetter
    typesets the top's formulas, works out the numbers, typesets theirs and then the page's, in page order
    (`to_screen`: up to the first screen; "all" is then that moment)."""
    from eomlab.gui.equations.equations_render import DEFERRED_CHARS
    from eomlab.gui.equations.equations_workers import Workers

    workers = Workers()
    model = model_of(name)
    start = time.perf_counter()
    if warm:
        workers.prewarm()
        _wait(workers, lambda _: workers.ready == {"deriver", "typesetter"})
    ready = time.perf_counter() - start
    asked = time.perf_counter()
    workers.deriver.submit((1, model, method))
    workers.typesetter.start()
    ahead: set = set()  # the top of the page, typeset while the deriver derives (as the panel does)
    done: set = set()  # LaTeX typeset
    answers: list = []  # the page, or the refusal
    top: list = []  # the top's formulas
    at: dict = {}  # "top": the top came (the panel shows it), "top typeset": its formulas typeset
    cpu: dict = {}  # the same moments in CPU seconds of the two workers (deriver, typesetter)

    def mark(what: str) -> None:
        at[what] = time.perf_counter() - asked
        cpu[what] = (_cpu(workers.deriver), _cpu(workers.typesetter))

    def took(got) -> None:
        for message in got:
            if message[0] == "svg":
                done.add(message[2][1])  # jobs are indexed by their LaTeX here
                if top and "top typeset" not in at and set(top) <= done:
                    mark("top typeset")
            elif message[0] == "top":  # shown at once; its formulas typeset first
                mark("top")
                top.extend(latex for latex in message[2]["formulas"] if len(latex) <= DEFERRED_CHARS)
                for latex in top:
                    if latex not in ahead:
                        ahead.add(latex)
                        workers.typesetter.submit(("typeset", 1, "top", latex, latex))
                workers.typesetter.submit(("numbers", 1, model, method, None))  # worked out after the top
            elif message[0] == "numbers":  # shown while deriving: the panel typesets them next
                for latex in message[2]["formulas"]:
                    workers.typesetter.submit(("typeset", 1, "numbers", latex, latex))
            elif message[0] in ("page", "refused"):
                answers.append(message)
        got.clear()  # each message once

    _wait(workers, lambda got: took(got) or bool(answers))
    answer = answers[-1]
    mark("page")
    page_at = at["page"]
    if answer[0] == "refused":
        workers.stop()
        return {"refused": answer[2], "page": page_at}
    formulas = answer[2]["formulas"]
    sent = [latex for latex in formulas if len(latex) <= DEFERRED_CHARS]
    for latex in dict.fromkeys(sent):  # page order, each formula once
        if latex not in ahead:
            workers.typesetter.submit(("typeset", 1, "page", latex, latex))
    first = set(sent[:SCREEN])

    def typeset(got):
        took(got)
        if "screen" not in at and first <= done:
            mark("screen")
        return set(sent) <= done or (to_screen and "screen" in at)

    _wait(workers, typeset)
    workers.stop()
    return {"ready": ready if warm else None, "top": at.get("top"), "top typeset": at.get("top typeset"),
            "page": page_at, "screen": at["screen"], "all": time.perf_counter() - asked,
            "formulas": len(formulas), "deferred": len(formulas) - len(sent), "cpu": cpu}


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


#: the children's byte code: one folder for the whole bench, filled by an untimed run first (`main`)
BYTECODE = os.environ.get("PYTHONPYCACHEPREFIX") or tempfile.mkdtemp(prefix="eomlab-bench-pycache-")
if "PYTHONPYCACHEPREFIX" not in os.environ:
    atexit.register(shutil.rmtree, BYTECODE, ignore_errors=True)


def _child(*args, pages: str | None = None) -> str:
    """This script in a fresh process; its equations page cache (gui/equations/page_cache.py) is `pages`,
    else a new empty folder: the page is derived, as the first time ever. Its byte code is read from and
    written to BYTECODE, as an installed eomlab has its .pyc files (PYTHONDONTWRITEBYTECODE, which this
    kind of machine sets, would have every process, the workers too, compile eomlab's sources again)."""
    with tempfile.TemporaryDirectory(prefix="eomlab-bench-pages-") as empty:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(EOMLAB_CACHE_DIR=pages or empty, PYTHONPYCACHEPREFIX=BYTECODE)
        result = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True, env=env)
    return result.stdout.splitlines()[-1]


def from_disk(name: str, method: str, repeats: int) -> float:
    """Median seconds from asking to the page back, cold workers, the page derived in an earlier
    session (the disk cache filled by one run first)."""
    with tempfile.TemporaryDirectory(prefix="eomlab-bench-pages-") as pages:
        _child("--fill", name, method, pages=pages)
        runs = [json.loads(_child("--pipeline", name, method, "cold", "screen", pages=pages)) for _ in range(repeats)]
    return _median(runs, "page")


def _median(runs: list[dict], key: str, part: int | None = None) -> float:
    """The median over the runs of run[key] (run["cpu"][key][part] with `part`: 0 deriver, 1 typesetter)."""
    values = [run[key] if part is None else run["cpu"][key][part] for run in runs]
    return statistics.median(float("nan") if v is None else v for v in values)


def _cold_columns(runs: list[dict]) -> str:
    """top shown, top typeset, page, first screen (wall s), and the deriver's CPU s to the top and
    to the page: medians over the runs."""
    return (f"{_median(runs, 'top'):.2f} | {_median(runs, 'top typeset'):.2f} | {_median(runs, 'page'):.1f} | "
            f"{_median(runs, 'screen'):.1f} | {_median(runs, 'top', 0):.2f} / {_median(runs, 'page', 0):.2f}")


def main() -> None:
    if len(sys.argv) in (5, 6) and sys.argv[1] == "--pipeline":
        print(json.dumps(pipeline(sys.argv[2], sys.argv[3], sys.argv[4] == "warm", "screen" in sys.argv[5:])))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--derive":
        print(json.dumps(derive_cpu(sys.argv[2], sys.argv[3])))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--fill":  # the page derived and kept on disk, as a session would
        from eomlab.gui.equations.equations_render import derive_answer

        derive_answer((1, model_of(sys.argv[2]), sys.argv[3]), type("Drop", (), {"put": print})())
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--cached":
        print(json.dumps(cached(sys.argv[2], sys.argv[3])))
        return
    cases = CASES[:len(FORMULATIONS)] if "--quick" in sys.argv else \
        CASES[len(FORMULATIONS):] if "--chains" in sys.argv else CASES
    repeats = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 1
    cold_only = "--cold" in sys.argv  # and each cold run ends at the first screen
    if "--methods" in sys.argv:
        chosen = sys.argv[sys.argv.index("--methods") + 1].split(",")
        cases = [(name, method) for name, method in cases if method in chosen]
    _child("--pipeline", "four_bar", "kane", "cold", "screen")  # untimed: fills BYTECODE
    print(f"load average at start: {os.getloadavg()[0]:.1f} / {os.getloadavg()[1]:.1f} / {os.getloadavg()[2]:.1f}; "
          f"medians of {repeats}")
    print("| model | method | derive CPU s | cold: top shown s | cold: top typeset s | cold: page s | "
          "cold: first screen s | cold: deriver CPU s to top / page | warm: page s | warm: first screen s | "
          "warm: all typeset s | formulas (deferred) | cached s | cold, derived before: page s | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, method in cases:
        cold = [json.loads(_child("--pipeline", name, method, "cold", *(["screen"] if cold_only else [])))
                for _ in range(repeats)]
        if "refused" in cold[0]:
            print(f"| {name} | {method} | refused in {cold[0]['page']:.2f} s: {cold[0]['refused']} |||||||||||| "
                  f"{os.getloadavg()[0]:.1f} |", flush=True)
            continue
        if cold_only:
            print(f"| {name} | {method} | – | {_cold_columns(cold)} | – | – | – | {cold[0]['formulas']} "
                  f"({cold[0]['deferred']}) | – | {from_disk(name, method, repeats):.2f} | {os.getloadavg()[0]:.1f} |",
                  flush=True)
            continue
        cpu = statistics.median(float(_child("--derive", name, method)) for _ in range(repeats))
        warm = [json.loads(_child("--pipeline", name, method, "warm")) for _ in range(repeats)]
        again = statistics.median(float(_child("--cached", name, method)) for _ in range(repeats)) \
            if name == "four_bar" and method in METHODS else float("nan")  # the window's method box: the registry's
        print(f"| {name} | {method} | {cpu:.2f} | {_cold_columns(cold)} | {_median(warm, 'page'):.1f} | "
              f"{_median(warm, 'screen'):.1f} | {_median(warm, 'all'):.1f} | {warm[0]['formulas']} "
              f"({warm[0]['deferred']}) | {again:.3f} | {from_disk(name, method, repeats):.2f} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
