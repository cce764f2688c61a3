"""`eomlab sweep MODEL --vary NAME=A:B:N ... --measure M ... -o OUT.parquet`: many runs of one model.

MODEL is a model file, or a JSON sweep file (an object with "model", "vary", "measure", ...);
options on the command line add to or override the file. Results go to a Parquet dataset folder
chunk by chunk (see eomlab.engine.sweep.store); progress and an ETA on standard error.
"""
from __future__ import annotations

import json
import os
import sys

from eomlab.engine.model import ModelError

from eomlab.commands.arguments import positive


def add_parser(sub) -> None:
    p = sub.add_parser("sweep", help="many runs of one model: vary initial states, parameters, formulations, "
                       "tolerances; measure each run; write a Parquet table")
    p.add_argument("model", help="a model file (*.eom.json) or a JSON sweep file")
    p.add_argument("--vary", action="append", default=[], metavar="NAME=VALUES",
                   help="a coordinate, speed, model field (bodies[1].mass, gravity) or setting (method, "
                   "coordinates, integrator, rtol, atol, tol) and its values: A:B:N, A,B,C, or A:B with --mode random")
    p.add_argument("--measure", action="append", default=[], metavar="M",
                   help="final, final:NAME, flip_time:NAME, energy_drift, constraint_drift, rhs_evals, wall_time, "
                   "end:EXPR, max:EXPR")
    p.add_argument("--mode", choices=("grid", "list", "random"), help="every combination (default), the i-th "
                   "values together, or random samples")
    p.add_argument("--samples", type=int, help="random mode: number of runs")
    p.add_argument("--seed", type=int, help="random mode: seed (default 0)")
    p.add_argument("--t-end", type=positive, metavar="T", help="simulated seconds per run (default: the model's)")
    p.add_argument("-o", "--output", metavar="OUT.parquet", help="Parquet dataset folder to write")
    p.add_argument("--resume", action="store_true", help="finish the interrupted sweep in OUT.parquet.partial")
    p.add_argument("--overwrite", action="store_true", help="replace an existing OUT.parquet")
    p.add_argument("--workers", type=int, metavar="N", help="LocalCluster processes (default: one per core; "
                   "0 runs in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--chunk-size", type=int, metavar="N", help="runs per chunk (default: about 4 chunks per worker)")
    p.add_argument("--no-batch", action="store_true", help="run every run singly (for comparison)")
    p.add_argument("--plot", metavar="PICTURE.png", help="draw the result: a map for two varied values, a curve "
                   "for one, a work-precision diagram when tol/rtol varies")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _arguments(args) -> dict:
    """The sweep's settings: the sweep file's, then the command line's."""
    from eomlab.engine.sweep.sweep_function import load_sweep_file

    settings: dict = {"vary": {}, "measure": []}
    if _is_sweep_file(args.model):
        settings.update(load_sweep_file(args.model))
    else:
        settings["model"] = args.model
    vary = dict(settings["vary"])
    for item in args.vary:
        name, sep, values = item.partition("=")
        if not sep or not name.strip():
            raise ModelError("--vary", f"expected NAME=VALUES, got {item!r}")
        vary[name.strip()] = values
    settings["vary"] = vary
    settings["measure"] = list(settings["measure"]) + list(args.measure)
    for key in ("mode", "samples", "seed", "t_end", "output", "chunk_size"):
        value = getattr(args, key)
        if value is not None:
            settings[key] = value
    if not settings.get("output"):
        raise ModelError("-o", "give the output folder: -o OUT.parquet")
    if settings.get("chunk_size") is not None and settings["chunk_size"] < 1:
        raise ModelError("--chunk-size", "must be at least 1")
    if args.workers is not None and args.workers < 0:
        raise ModelError("--workers", "must be 0 or more")
    return settings


def _is_sweep_file(path: str) -> bool:
    if path.endswith(".eom.json") or not path.endswith(".json"):
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            head = json.load(fh)
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and "vary" in head and "bodies" not in head


class _Progress:
    """A progress bar with an ETA on standard error (tqdm), counted in runs."""

    def __init__(self, total: int, done: int, quiet: bool):
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=done, unit="run", file=sys.stderr, disable=quiet, dynamic_ncols=True,
                        smoothing=0.1)

    def chunk(self, k, columns, notes) -> None:
        self.bar.update(len(columns["run"]))

    def close(self) -> None:
        self.bar.close()


def main(args) -> int:
    from eomlab.engine.sweep.sweep_function import prepare, run_sweep
    from eomlab.engine.sweep.distribute import connect

    settings = _arguments(args)
    spec = prepare(settings["model"], settings["vary"], settings["measure"], settings.get("mode", "grid"),
                   int(settings.get("samples") or 0), int(settings.get("seed") or 0), settings.get("t_end"))
    output = settings["output"]
    if args.plot:
        from eomlab.sweep_plot import check_plot

        check_plot(spec, args.plot)
    client = connect(args.scheduler) if args.scheduler else None  # an unreachable scheduler: before any file
    progress = None
    try:
        done = _done_runs(output, args.resume, spec)
        progress = _Progress(spec.n_runs, done, args.quiet)
        table = run_sweep(spec, output, resume=args.resume, overwrite=args.overwrite, workers=args.workers,
                          client=client, chunk_size=settings.get("chunk_size"), batched=not args.no_batch,
                          on_chunk=progress.chunk, on_notes=_print_notes)
    finally:
        if progress is not None:
            progress.close()
        if client is not None:
            client.close()
    failed = int((table["failure"] != "").sum())
    print(f"wrote {output}: {len(table)} runs" + (f", {failed} stopped early (see the failure column)" if failed else ""),
          file=sys.stderr)
    if args.plot:
        from eomlab.sweep_plot import plot_sweep

        plot_sweep(spec, table, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _print_notes(notes: list[str]) -> None:
    for note in notes:
        print(f"sweep: {note}", file=sys.stderr)


def _done_runs(output: str, resume: bool, spec) -> int:
    """Runs already in an interrupted sweep's folder (the progress bar starts there)."""
    partial = os.path.abspath(output) + ".partial"
    if not (resume and os.path.isdir(partial)):
        return 0
    try:
        import pyarrow.parquet as pq

        return sum(pq.read_metadata(os.path.join(partial, f)).num_rows for f in os.listdir(partial)
                   if f.startswith("part-") and f.endswith(".parquet"))
    except (OSError, ValueError):
        return 0
