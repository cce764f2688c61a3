"""`eomlab run MODEL`: integrate headless and write CSV.

CSV files are written atomically, after the run; a run that fails keeps (and writes) its samples, exit 1.
"""
from __future__ import annotations

import io
import os
import sys
import tempfile

import numpy as np

from eomlab.engine.methods import METHODS
from eomlab.engine.model import COORDINATES, INTEGRATORS, MAGGI_BASES, ModelError

from .arguments import load, positive, with_source


def add_parser(sub) -> None:
    run = sub.add_parser("run", help="integrate headless and write CSV")
    run.add_argument("model", help="a model file (*.eom.json)")
    run.add_argument("--method", choices=[*METHODS, "all"], help="formulation (default: settings.method); "
                     "'all' writes FILE.<method>.csv for each")
    run.add_argument("--coordinates", choices=COORDINATES, help="joint (minimal for a tree) or absolute")
    run.add_argument("--integrator", choices=INTEGRATORS, help="integrator (default: settings.integrator)")
    run.add_argument("--t-end", type=positive, metavar="T", help="simulated seconds")
    run.add_argument("--dt-out", type=positive, metavar="D", help="seconds between samples")
    run.add_argument("--rtol", type=positive, help="relative tolerance of the integrator")
    run.add_argument("--atol", type=positive, help="absolute tolerance of the integrator")
    run.add_argument("--maggi-basis", choices=MAGGI_BASES, help="null-space basis of the Maggi equations")
    run.add_argument("--out", metavar="FILE.csv", help="write here instead of standard output")


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


def main(args) -> int:
    from eomlab.engine.simulation import Simulation

    model = load(args.model)
    methods = list(METHODS) if args.method == "all" else [args.method or model.settings.method]
    outputs = []
    for method in methods:
        try:
            sim = Simulation(model, method=method, coordinates=args.coordinates, integrator=args.integrator,
                             t_end=args.t_end, dt_out=args.dt_out, rtol=args.rtol, atol=args.atol,
                             variant=args.maggi_basis)
        except ModelError as err:
            raise with_source(err, args.model) from None
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
