"""A mutation fuzzer for the command line: mutate the shipped models, run each mutant through
`eomlab.cli.main(["run", FILE, "--t-end", ...])` in a forked worker with a time bound, and judge
how it ended.

A mutant passes when `main` returns (no exception escapes) within the bound and
- exit 2: standard error is one line naming the file, nothing is written;
- exit 0 or 1: standard error holds no traceback and no warning, the CSV is written.

Mutations (1 to 3 per mutant, each at a random place of the document): a number swapped for an
extreme or tiny one (1e308, 5e-324, 2**63, 10**400, ...) or scaled by a power of ten, NaN and
±Infinity (as JSON's non-standard literals), a value swapped for another type, a key or item
dropped, a key written twice, an item duplicated, a value nested in an array or object.

Run it by hand for a while from several seeds:

    PYTHONPATH=$PWD python tests/reliability/cli_fuzzer.py --seconds 600 --seeds 1 2 3 --save /tmp/found
"""
from __future__ import annotations

import argparse
import io
import json
import math
import multiprocessing
import os
import pathlib
import random
import signal
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass

from project_paths import ROOT
ASSET_FILES = sorted((ROOT / "assets" / "models").glob("*.eom.json"))

T_END = "0.05"
# seconds of the worker's own CPU time per mutant: a run beyond it counts as a hang. CPU, not wall time: niced
# beside a GUI monkey at load 16 on 2 cores, mutants that refuse in 0.8 s of CPU took 20 s of wall time
TIME_BOUND = 20.0
WALL_BACKSTOP = 10.0  # a run blocked without computing (a lock, a pipe) is stopped after this many bounds of wall time

EXTREME_NUMBERS = [1e308, -1e308, 1.7976931348623157e308, 1e-308, -1e-308, 5e-324, 2.2250738585072014e-308,
                   2**63, -(2**63), 2**53 + 1, 10**400, 1e13, -9.81e12, 1e12, 1e-12, 0, -0.0, -1, 1e300, 1e-300]
NON_FINITE = [math.nan, math.inf, -math.inf]
OTHER_TYPES = ["", "1", "x", True, False, None, [], {}, [1, 2, 3], {"a": 1}, [[1, 0, 0], [0, 1, 0]], "NaN"]
SCALES = [1e-12, 1e-6, 1e-3, -1.0, 1e3, 1e6, 1e12]


def to_json(node, repeated: dict | None = None) -> str:
    """JSON text; NaN and Infinity as JavaScript's literals; `repeated` maps id(object) to
    (key, value) pairs written again after the object's own (a key that appears twice)."""
    repeated = repeated or {}
    if isinstance(node, dict):
        pairs = list(node.items()) + repeated.get(id(node), [])
        return "{" + ", ".join(f"{json.dumps(k)}: {to_json(v, repeated)}" for k, v in pairs) + "}"
    if isinstance(node, list):
        return "[" + ", ".join(to_json(v, repeated) for v in node) + "]"
    return json.dumps(node, allow_nan=True)


def _places(node, path=""):
    """(container, key, path) of every value in the document."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in list(items):
        where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key
        yield node, key, where
        yield from _places(value, where)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _scaled(number, factor: float):
    try:
        return number * factor
    except OverflowError:  # an integer like 10**400 from an earlier mutation: stays an integer
        return number * 10**12


def mutate(document, rng: random.Random, repeated: dict) -> str:
    """Apply one mutation to `document` in place (a repeated key goes into `repeated`, see
    `to_json`); returns what it did, for the report."""
    places = list(_places(document))
    numbers = [p for p in places if _is_number(p[0][p[1]])]
    kind = rng.choice(["extreme", "extreme", "extreme", "scale", "non_finite", "type", "drop", "duplicate_key",
                       "duplicate_item", "nest"])
    if kind in ("extreme", "scale", "non_finite") and numbers:
        container, key, where = rng.choice(numbers)
        old = container[key]
        new = {"extreme": lambda: rng.choice(EXTREME_NUMBERS), "non_finite": lambda: rng.choice(NON_FINITE),
               "scale": lambda: _scaled(old, rng.choice(SCALES))}[kind]()
        container[key] = new
        return f"{kind} {where}: {old!r} -> {new!r}"
    container, key, where = rng.choice(places)
    value = container[key]
    if kind == "drop" or (kind == "duplicate_item" and not isinstance(container, list)):
        del container[key]
        return f"drop {where}"
    if kind == "duplicate_item":
        container.insert(key, json.loads(to_json(value)))
        return f"duplicate item {where}"
    if kind == "duplicate_key" and isinstance(container, dict):
        copy = json.loads(to_json(value)) if rng.random() < 0.5 else rng.choice(OTHER_TYPES + EXTREME_NUMBERS)
        repeated.setdefault(id(container), []).append((key, copy))
        return f"duplicate key {where}"
    if kind == "nest":
        new = [value] if rng.random() < 0.5 else {"value": value}
        for _ in range(rng.choice([0, 0, 1, 30])):
            new = [new]
        container[key] = new
        return f"nest {where}"
    new = rng.choice(OTHER_TYPES + NON_FINITE)
    container[key] = new
    return f"type {where}: {value!r:.40} -> {new!r}"


@dataclass
class Mutant:
    seed: int
    index: int
    asset: str
    mutations: list[str]
    text: str


def mutants(seed: int, count: int | None = None):
    """Mutants of the shipped models, the same ones for the same seed."""
    rng = random.Random(seed)
    index = 0
    while count is None or index < count:
        asset = rng.choice(ASSET_FILES)
        document = json.loads(asset.read_text())
        repeated: dict = {}
        done = [mutate(document, rng, repeated) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
        yield Mutant(seed, index, asset.name, done, to_json(document, repeated))
        index += 1


# --- running one mutant ---------------------------------------------------------------------------


GRACE = 10.0  # CPU seconds a run may take to stop after Ctrl+C


class _TimeBound(BaseException):
    """Raised by the alarm when a run does not stop after Ctrl+C."""


class _Alarm:
    """At the time bound (CPU time, SIGPROF; or WALL_BACKSTOP times it in wall time, SIGALRM), press
    Ctrl+C (KeyboardInterrupt, as Python's SIGINT handler raises it); when that has not stopped the
    run GRACE seconds later, give up on it."""

    def __init__(self):
        self.interrupted = False

    def arm(self, seconds: float) -> None:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        signal.setitimer(signal.ITIMER_REAL, seconds * WALL_BACKSTOP)

    def __call__(self, signum, frame):
        if self.interrupted:
            raise _TimeBound()
        self.interrupted = True
        self.arm(GRACE)
        raise KeyboardInterrupt()


@dataclass
class Outcome:
    exit_code: int | None
    stderr: str
    escaped: str  # the traceback of an exception that escaped main, or ""
    seconds: float
    wrote: bool
    interrupted: bool = False  # the run went over the time bound and got Ctrl+C


def call_main(argv: list[str], bound: float = TIME_BOUND) -> tuple[int | None, str, str, float, bool]:
    """`eomlab.cli.main(argv)` in this process, standard streams captured, Ctrl+C at the time
    bound: (exit code, stderr, escaped traceback or "", CPU seconds, interrupted)."""
    from eomlab.cli import main

    err = io.StringIO()
    escaped, code = "", None
    alarm = _Alarm()
    previous = signal.signal(signal.SIGALRM, alarm), signal.signal(signal.SIGPROF, alarm)
    streams = sys.stdout, sys.stderr  # put back by hand: an alarm inside a redirect's exit left one swapped
    start = time.process_time()
    alarm.arm(bound)
    try:
        sys.stdout, sys.stderr = io.StringIO(), err
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # every warning, even one this worker has shown before
            code = main(argv)
    except _TimeBound:
        escaped = f"still running {GRACE:g} s after Ctrl+C at the time bound of {bound:g} s"
    except BaseException:  # noqa: BLE001 - anything escaping main is what we look for
        escaped = traceback.format_exc()
    finally:
        alarm.arm(0.0)
        signal.signal(signal.SIGALRM, previous[0])
        signal.signal(signal.SIGPROF, previous[1])
        sys.stdout, sys.stderr = streams
    return code, err.getvalue(), escaped, time.process_time() - start, alarm.interrupted


def run_mutant(text: str, directory: str, bound: float = TIME_BOUND, t_end: str = T_END) -> Outcome:
    """Run `eomlab run MUTANT --t-end T --out CSV` in this process, standard streams captured."""
    path = os.path.join(directory, "mutant.eom.json")
    out = os.path.join(directory, "mutant.csv")
    if os.path.exists(out):
        os.unlink(out)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    code, stderr, escaped, seconds, interrupted = call_main(["run", path, "--t-end", t_end, "--out", out], bound)
    return Outcome(code, stderr, escaped, seconds, os.path.exists(out), interrupted)


def judge(outcome: Outcome, bound: float = TIME_BOUND) -> str | None:
    """None when the mutant ended well, else what went wrong.

    A run still going at the time bound passes only when it said on standard error that it is
    slow (before the bound) and stopped on the Ctrl+C it then gets, writing what it had."""
    if outcome.escaped:
        return f"escaped main: {outcome.escaped.strip().splitlines()[-1]}"
    lines = outcome.stderr.splitlines()
    if outcome.interrupted:
        if outcome.exit_code != 130 or not outcome.wrote or not any("slow run" in ln for ln in lines):
            return (f"over the time bound of {bound:g} s: exit {outcome.exit_code}, CSV written: {outcome.wrote}, "
                    f"stderr {outcome.stderr[:300]!r}")
        return None
    if outcome.exit_code == 2:
        if len(lines) != 1 or not lines[0].startswith("eomlab: ") or "mutant.eom.json" not in lines[0]:
            return f"exit 2 with {len(lines)} lines on stderr: {outcome.stderr[:300]!r}"
        if outcome.wrote:
            return "exit 2 but the CSV was written"
        return None
    if outcome.seconds > bound:
        return f"took {outcome.seconds:.1f} s of CPU (bound {bound:g} s)"
    if outcome.exit_code not in (0, 1):
        return f"exit {outcome.exit_code}"
    noisy = [ln for ln in lines if "Traceback" in ln or "Warning" in ln or "warn(" in ln]
    if noisy:
        return f"exit {outcome.exit_code} with warnings: {noisy[0][:200]}"
    if outcome.exit_code == 1 and not any("samples kept" in ln for ln in lines):
        return f"exit 1 without a failure line: {outcome.stderr[:300]!r}"
    if not outcome.wrote:
        return f"exit {outcome.exit_code} and no CSV written"
    return None


# --- many mutants in a pool of forked workers ---------------------------------------------------


def _worker_init():
    global _WORKDIR
    _WORKDIR = tempfile.mkdtemp(prefix="eomlab-fuzz-")
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(item):
    mutant, bound = item
    outcome = run_mutant(mutant.text, _WORKDIR, bound)
    return mutant, outcome, judge(outcome, bound)


@dataclass
class Finding:
    mutant: Mutant
    outcome: Outcome
    problem: str


@dataclass
class Report:
    ran: int
    findings: list[Finding]
    slow: list[Mutant]  # over the time bound, but they said so and stopped on Ctrl+C


def fuzz(seeds, seconds: float | None = None, count: int | None = None, workers: int = 2,
         bound: float = TIME_BOUND, progress=None) -> Report:
    """Run mutants from each seed (round robin) for `seconds` or `count` mutants in total."""
    sources = [mutants(seed) for seed in seeds]

    def items():
        k = 0
        while count is None or k < count:
            yield next(sources[k % len(sources)]), bound
            k += 1

    report = Report(0, [], [])
    deadline = None if seconds is None else time.monotonic() + seconds
    # a fork server: workers start from a clean process (not from the test process and its Qt
    # threads) that has imported the engine once
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["eomlab.cli", "eomlab.commands.run_model", "eomlab.engine.simulation", __name__])
    with context.Pool(workers, initializer=_worker_init, maxtasksperchild=200) as pool:
        for mutant, outcome, problem in pool.imap_unordered(_work, items()):
            report.ran += 1
            if outcome.interrupted and not problem:
                report.slow.append(mutant)
                if progress:
                    progress(f"slow (spoke, stopped by Ctrl+C): seed {mutant.seed} #{mutant.index} {mutant.asset} "
                             f"{mutant.mutations}")
            if problem:
                report.findings.append(Finding(mutant, outcome, problem))
                if progress:
                    progress(f"seed {mutant.seed} #{mutant.index} {mutant.asset} {mutant.mutations}: {problem}")
            if deadline is not None and time.monotonic() > deadline:
                pool.terminate()
                break
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bound", type=float, default=TIME_BOUND)
    parser.add_argument("--save", metavar="DIR", help="write each failing mutant here")
    args = parser.parse_args(argv)
    start = time.monotonic()
    report = fuzz(args.seeds, seconds=args.seconds, workers=args.workers, bound=args.bound,
                  progress=lambda line: print(line, flush=True))
    findings = report.findings
    print(f"{report.ran} mutants from seeds {args.seeds} in {time.monotonic() - start:.0f} s: "
          f"{len(findings)} findings, {len(report.slow)} slow runs that said so and stopped on Ctrl+C")
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for f in findings:
            name = f"seed{f.mutant.seed}_{f.mutant.index}_{f.mutant.asset}"
            pathlib.Path(args.save, name).write_text(f.mutant.text)
            pathlib.Path(args.save, name + ".txt").write_text(
                f"{f.mutant.mutations}\n{f.problem}\nexit {f.outcome.exit_code}\n{f.outcome.stderr}\n{f.outcome.escaped}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
