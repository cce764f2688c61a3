"""`eomlab run MODEL`: integrate headless and write the samples (CSV, npz or parquet).

Samples are written as they are produced, so memory stays bounded however long the run. A file
appears whole when the run ends (written beside it, then renamed); a run that fails keeps (and
writes) its samples and exits 1. A progress bar shows on standard error when it is a terminal and
the run takes longer than a second.
"""
from __future__ import annotations

import math
import os
import sys
import time

from eomlab.engine.methods import METHODS
from eomlab.engine.model import COORDINATES, INTEGRATORS, MAGGI_BASES, ModelError
from eomlab.engine.sample_files import FORMATS, MissingPackage, open_writer, pyarrow_modules

from eomlab.commands.arguments import load, positive, with_source
from eomlab.commands.run_watch import RunWatch

PROGRESS_AFTER = 1.0  # s of wall time before a progress bar appears
PROGRESS_WIDTH = 30


def add_parser(sub) -> None:
    run = sub.add_parser("run", help="integrate headless and write the samples (CSV by default)",
                         description="Integrate a model without the window and write one row per output sample "
                         "(columns: t, coordinates, speeds, mass centres, T, V, E, drift_pos, drift_vel, "
                         "multipliers). Options override the model file's settings.")
    run.add_argument("model", help="a model file (*.eom.json)")
    run.add_argument("--method", choices=[*METHODS, "all"], help="formulation (default: settings.method); "
                     "'all' writes FILE.<method>.<format> for each")
    run.add_argument("--coordinates", choices=COORDINATES, help="joint (minimal for a tree) or absolute "
                     "(each body's own pose, joints as constraints); default: settings.coordinates")
    run.add_argument("--integrator", choices=INTEGRATORS, help="integrator (default: settings.integrator; "
                     "RK4 is fixed-step, the others adaptive)")
    run.add_argument("--t-end", type=positive, metavar="T", help="simulated seconds (default: settings.t_end)")
    run.add_argument("--dt-out", type=positive, metavar="D", help="seconds between samples (default: settings.dt_out)")
    run.add_argument("--dt", type=positive, metavar="H", help="RK4's fixed step in seconds (default: settings.dt)")
    run.add_argument("--rtol", type=positive, help="relative tolerance of the integrator (default: settings.rtol)")
    run.add_argument("--atol", type=positive, help="absolute tolerance of the integrator (default: settings.atol)")
    run.add_argument("--maggi-basis", choices=MAGGI_BASES, help="null-space basis of the Maggi equations")
    run.add_argument("--format", choices=FORMATS, help="csv (default; shortest round-trip decimals), npz (one "
                     "numpy array per column) or parquet (needs pyarrow); default from --out's extension")
    run.add_argument("--out", metavar="FILE", help="write here instead of standard output (needed for npz and "
                     "parquet)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--verbose", action="store_true", help="say which tree-dynamics path runs (compiled "
                     "pinocchio or numpy, and why) and what the run cost")


def output_format(args) -> str:
    if args.format:
        return args.format
    extension = os.path.splitext(args.out or "")[1].lower().lstrip(".")
    return extension if extension in FORMATS else "csv"


def output_paths(args, methods: list[str], fmt: str) -> list[str | None]:
    """One target per method: the --out path (None: standard output), or FILE.<method>.<fmt> for 'all'."""
    if args.method != "all":
        if args.out is None and fmt != "csv":
            raise ModelError("command line", f"--format {fmt} writes a file: give --out FILE.{fmt}")
        return [args.out]
    base = args.out or os.path.basename(args.model).replace(".eom.json", "").replace(".json", "") + f".{fmt}"
    stem, extension = os.path.splitext(base)
    stem = stem if extension.lower() in (".csv", ".npz", ".parquet") else base
    return [f"{stem}.{method}.{fmt}" for method in methods]


class ProgressBar:
    """`[#####     ]  45%  t = 4.5 / 10 s` on standard error, redrawn in place; silent unless stderr
    is a terminal and the run has taken longer than PROGRESS_AFTER."""

    def __init__(self, label: str, t_end: float, enabled: bool):
        self.label, self.t_end, self.enabled = label, t_end, enabled
        self.started = time.perf_counter()
        self.shown = False

    def update(self, t: float) -> None:
        elapsed = time.perf_counter() - self.started
        if not self.enabled or elapsed < PROGRESS_AFTER:
            return
        fraction = min(max(t / self.t_end, 0.0), 1.0)
        filled = int(round(fraction * PROGRESS_WIDTH))
        bar = "#" * filled + " " * (PROGRESS_WIDTH - filled)
        sys.stderr.write(f"\r{self.label}[{bar}] {100 * fraction:3.0f}%  t = {t:.4g} / {self.t_end:.4g} s  "
                         f"{elapsed:.1f} s")
        sys.stderr.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def run_one(args, model, method: str, target: str | None, fmt: str, watch: RunWatch) -> str | None:
    """Run one formulation, writing its samples to `target` as they come; its failure or None."""
    from eomlab.api import Run

    try:
        run = Run(model, method=method, coordinates=args.coordinates, integrator=args.integrator,
                  t_end=args.t_end, dt_out=args.dt_out, dt=args.dt, rtol=args.rtol, atol=args.atol,
                  maggi_basis=args.maggi_basis)
    except ModelError as err:
        raise with_source(err, args.model) from None
    for note in run.notes:
        print(f"{method}: {note}", file=sys.stderr)
    started_on = run.stats["dynamics_path"]
    if args.verbose:
        print(f"{method}: tree dynamics: {started_on}", file=sys.stderr)
    label = f"{method} " if args.method == "all" else ""
    progress = ProgressBar(label, run.t_end, enabled=not args.quiet and sys.stderr.isatty())
    try:
        writer = open_writer(fmt, target if target is not None else sys.stdout, run.columns)
    except OSError as err:
        raise ModelError("--out", f"cannot write {target}: {err.strerror or err}") from None
    try:
        with writer:
            written_until = -math.inf
            with watch.watching(run.simulation, f"{args.model}: {method}"):
                for batch in run:
                    writer.write(batch.rows)
                    written_until = batch.rows[-1, 0] if len(batch.rows) else written_until
                    progress.update(run.t)
            if watch.interrupted:  # the samples of the interrupted batch are still in the simulation
                kept = run.simulation.samples()
                writer.write(kept[kept[:, 0] > written_until])
    finally:
        progress.finish()
    if run.failure:
        print(f"{args.model}: {method}: {run.failure} ({writer.rows_written} samples kept)", file=sys.stderr)
    if args.verbose:
        print(f"{method}: {cost_line(run.stats, started_on)}", file=sys.stderr)
    if args.method == "all":
        print(f"wrote {target}", file=sys.stderr)
    return run.failure


def main(args) -> int:
    fmt = output_format(args)
    if fmt == "parquet":
        try:
            pyarrow_modules()
        except MissingPackage as missing:
            raise ModelError("--format", str(missing)) from None
    model = load(args.model)
    methods = list(METHODS) if args.method == "all" else [args.method or model.settings.method]
    targets = output_paths(args, methods, fmt)
    watch = RunWatch(sys.stderr)  # speaks when a run is slow; Ctrl+C stops it with its samples written
    failures = []
    for method, target in zip(methods, targets):
        failures.append(run_one(args, model, method, target, fmt, watch))
        if watch.interrupted:
            break
    return 130 if watch.interrupted else 1 if any(failures) else 0


def cost_line(stats: dict, started_on: str) -> str:
    """What --verbose says after a run: its cost, and the tree-dynamics path it ended on when that is
    not the one it started on (numba's compiled step takes over once its kernels are loaded)."""
    line = (f"{stats['rhs_evals']} right-hand sides, {stats['steps']} steps, {stats['wall_time']:.3g} s integrating "
            f"({stats['wall_per_sim_second']:.3g} s per simulated second)")
    ended_on = stats.get("dynamics_path", started_on)
    return line if ended_on == started_on else f"{line}; tree dynamics by the end: {ended_on}"
