"""The command line: `eomlab [gui] [MODEL]`, `eomlab run MODEL ...`, `eomlab equations MODEL ...`.

Bad input gives exit status 2 and one line on standard error naming the file, the field's path
and the problem; nothing else is written (CSV files are written atomically, after the run).
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile

import numpy as np

from .model import COORDINATES, INTEGRATORS, MAGGI_BASES, METHODS, ModelError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message):
        raise ModelError("command line", message)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="eomlab", description="Equations-of-Motion Lab")
    sub = p.add_subparsers(dest="command")
    run = sub.add_parser("run", help="integrate headless and write CSV")
    run.add_argument("model")
    run.add_argument("--method", choices=[*METHODS, "all"])
    run.add_argument("--coordinates", choices=COORDINATES)
    run.add_argument("--integrator", choices=INTEGRATORS)
    run.add_argument("--t-end", type=_positive)
    run.add_argument("--dt-out", type=_positive)
    run.add_argument("--rtol", type=_positive)
    run.add_argument("--atol", type=_positive)
    run.add_argument("--maggi-basis", choices=MAGGI_BASES, help="null-space basis of the Maggi equations")
    run.add_argument("--out")
    eq = sub.add_parser("equations", help="print the equations of motion")
    eq.add_argument("model")
    eq.add_argument("--method", choices=METHODS)
    eq.add_argument("--format", choices=("text", "latex", "json"), default="text")
    gui = sub.add_parser("gui", help="open the window")
    gui.add_argument("model", nargs="?")
    gui.add_argument("--run-for", type=_positive)
    gui.add_argument("--screenshot")
    gui.add_argument("--compare", action="store_true")
    return p


def format_csv(columns, rows: np.ndarray) -> str:
    out = io.StringIO()
    out.write(",".join(columns) + "\n")
    for row in rows:
        out.write(",".join(repr(float(x)) for x in row) + "\n")
    return out.getvalue()


def write_text_atomic(path: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".eomlab-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _load(path: str):
    from .modelfile import load_model

    return load_model(path)


def _run(args) -> int:
    from .simulation import Simulation

    model = _load(args.model)
    methods = list(METHODS) if args.method == "all" else [args.method or model.settings.method]
    outputs = []
    for method in methods:
        try:
            sim = Simulation(model, method=method, coordinates=args.coordinates, integrator=args.integrator,
                             t_end=args.t_end, dt_out=args.dt_out, rtol=args.rtol, atol=args.atol,
                             variant=args.maggi_basis)
        except ModelError as err:
            raise err.with_source(args.model) if err.source is None else err
        rows = sim.run()
        for note in sim.notes:
            print(f"{method}: {note}", file=sys.stderr)
        if sim.failure:
            print(f"{args.model}: {method}: {sim.failure} ({len(rows)} samples kept)", file=sys.stderr)
        outputs.append((method, format_csv(sim.columns, rows), sim.failure))
    if args.method == "all":
        base = args.out or os.path.splitext(os.path.basename(args.model))[0].replace(".eom", "") + ".csv"
        stem = base[:-4] if base.endswith(".csv") else base
        for method, text, _ in outputs:
            path = f"{stem}.{method}.csv"
            write_text_atomic(path, text)
            print(f"wrote {path}", file=sys.stderr)
    elif args.out:
        write_text_atomic(args.out, outputs[0][1])
    else:
        sys.stdout.write(outputs[0][1])
    return 1 if any(f for *_, f in outputs) else 0


def _equations(args) -> int:
    from .symbolic import equations_text

    model = _load(args.model)
    method = args.method or model.settings.method
    try:
        text = equations_text(model, method, fmt=args.format)
    except ModelError as err:
        raise err.with_source(args.model) if err.source is None else err
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _gui(args) -> int:
    from eomlab.gui.app import run_gui

    return run_gui(args.model, run_for=args.run_for, screenshot=args.screenshot, compare=args.compare)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if not argv or argv[0] not in ("run", "equations", "gui", "-h", "--help"):
            argv = ["gui", *argv]
        args = build_parser().parse_args(argv)
        if args.command == "run":
            return _run(args)
        if args.command == "equations":
            return _equations(args)
        return _gui(args)
    except ModelError as err:
        print(f"eomlab: {err.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
