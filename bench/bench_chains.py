"""Benchmarks of eomlab on planar chains and constrained systems (measurement, never a test).

    .venv/bin/python bench/bench_chains.py            # full run (3 to 7 minutes here)
    .venv/bin/python bench/bench_chains.py --quick    # reduced set (under 2 minutes)
    .venv/bin/python bench/bench_chains.py --profile  # cProfile of the RHS (10, 100 links; 20 absolute), printed only
    .venv/bin/python bench/bench_chains.py --constrained  # section 3 and its targets only, printed only
    .venv/bin/python bench/bench_chains.py --chains-only --sizes 50 [--spatial]  # section 1 only, printed only

Prints the tables and writes them, with the machine they were measured on, into bench/README.md
(``--no-readme`` to only print). Sections:

1. planar chains of uniform rods in joint coordinates (kane, lagrange): time from reading the
   ``.eom.json`` file to the first integrated step, the cost of one right-hand side (BLAS limited
   to one thread / default threads, other core idle / busy) and the real-time factor (DOP853).
2. the same chains derived with sympy.physics.mechanics' KanesMethod + lambdify(cse=True).
3. constrained systems, all the formulations side by side.
4. the targets from the issues, each marked met / not met.
"""
from __future__ import annotations
import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time

import numpy as np
from threadpoolctl import ThreadpoolController

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench_common import Report, chain_model, fmt_time, machine_info, machine_section, make_config, one_thread  # noqa: E402
from bench_constrained import constrained_section, limit_overheads, render_constrained, render_targets, targets  # noqa: E402
from bench_joint_chains import chains_section, render_chains  # noqa: E402
from bench_sympy import render_sympy, sympy_section, sympy_worker  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402



# --- profile --------------------------------------------------------------------------------


def profile(top=10):
    cases = [(10, "kane", "joint"), (100, "kane", "joint"), (20, "kane", "absolute"), (20, "lagrange", "absolute")]
    for n, method, coords in cases:
        sim = Simulation(chain_model(n), method=method, coordinates=coords)
        y = np.array(sim.stepper.y, copy=True)
        fn = sim.formulation.derivative
        reps = max(20, 2000 // n)
        with one_thread():
            fn(0.0, y)
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(reps):
                fn(0.0, y)
            pr.disable()
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(top)
        print(f"=== cProfile, {reps} RHS of the {n}-link chain ({method}, {coords} coordinates, 1 thread), "
              "sorted by own time ===")
        print(out.getvalue())
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("cumulative").print_stats(top)
        print("--- the same, sorted by cumulative time ---")
        print(out.getvalue())


# --- main -----------------------------------------------------------------------------------

README_HEAD = """# bench/ — eomlab performance measurements

`bench_chains.py` measures; it never asserts (its sections: `bench_joint_chains.py`, `bench_sympy.py`,
`bench_constrained.py`, shared parts in `bench_common.py`). Run it from the repository root:

    .venv/bin/python bench/bench_chains.py            # full run, 3 to 7 minutes here, rewrites this file
    .venv/bin/python bench/bench_chains.py --quick    # reduced set (n = 2, 5, 10, 100; sympy n = 2, 5), under 2 minutes
    .venv/bin/python bench/bench_chains.py --no-readme            # print only
    .venv/bin/python bench/bench_chains.py --sympy-limit 60       # stop a sympy derivation after 60 s
    .venv/bin/python bench/bench_chains.py --profile              # cProfile of the RHS (10, 100 links; 20 absolute), printed only
    .venv/bin/python bench/bench_chains.py --constrained          # section 3 (every formulation) and its targets, printed only
    .venv/bin/python bench/bench_chains.py --chains-only --sizes 50 [--spatial]  # section 1 at n = 50 (--spatial: the general 3-D kinematics forced)
    make bench                                                    # the full run through the Makefile

The models: planar chains of n uniform rods (1 kg, 1 m, `preset("planar_chain", n, kind="rod")`) with **every**
joint at 0.5 rad (relative to the previous link; note that `angles=0.5` in the preset turns only the first joint),
released at rest, gravity −y. Model files are written to a temporary directory first and read back with
`load_model`. The machine may be shared with other work: the load average below says how busy it was. Timings are
wall-clock (`time.perf_counter`); right-hand sides take the best of many short timeit repeats, which is robust to
the occasional preemption; the "(by CPU time)" columns divide by this process's CPU time (`time.process_time`) instead
of wall time, leaving out the time the process waited for a core. Compare absolute numbers only between runs on the
same machine.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced set, under ~2 minutes")
    parser.add_argument("--sympy-limit", type=float, default=120.0, help="seconds allowed for a sympy derivation")
    parser.add_argument("--no-readme", action="store_true", help="print only, do not rewrite bench/README.md")
    parser.add_argument("--readme", default=os.path.join(HERE, "README.md"), help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help="cProfile one RHS of the 10- and 100-link chain")
    parser.add_argument("--constrained", action="store_true",
                        help="section 3 (constrained systems, every formulation) and its targets, printed only")
    parser.add_argument("--chains-only", action="store_true",
                        help="section 1 only (joint-coordinate chains), printed only")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="N", help="chain sizes of section 1 (e.g. 50)")
    parser.add_argument("--spatial", action="store_true",
                        help="force the general 3-D kinematics on planar models (what the planar strategy pays)")
    parser.add_argument("--sympy-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cfg = make_config(args)
    if args.sizes:
        cfg.chain_sizes = tuple(args.sizes)
    if args.spatial:
        import eomlab.engine.kinematics as kinematics

        kinematics.choose_strategy = lambda tree, model: kinematics.SpatialKinematics(tree)
    if args.chains_only:
        info = machine_info()
        rep = Report()
        chains = chains_section(cfg, rep)
        la, le = info["load"], os.getloadavg()
        rep.add(f"## Chains only ({time.strftime('%Y-%m-%d %H:%M')}, eomlab {info['commit']}, "
                f"{'general 3-D kinematics forced' if args.spatial else 'kinematics as chosen'}, load average "
                f"{la[0]:.2f} at start, {le[0]:.2f} at end)")
        rep.add()
        render_chains(chains, cfg, rep)
        return 0

    if args.sympy_worker is not None:
        print(json.dumps(sympy_worker(args.sympy_worker, cfg)))
        return 0
    if args.profile:
        profile()
        return 0
    if args.constrained:
        info = machine_info()
        start = time.perf_counter()
        cons = constrained_section(cfg)
        rep = Report()
        la, le = info["load"], os.getloadavg()
        rep.add(f"## Constrained systems only ({time.strftime('%Y-%m-%d %H:%M')}, "
                f"{(time.perf_counter() - start) / 60:.1f} min, eomlab {info['commit']}, load average "
                f"{la[0]:.2f} at start, {le[0]:.2f} at end)")
        rep.add()
        render_constrained(cons, cfg, rep)
        label = f"{max(cfg.constrained_chains)}-link chain, absolute"
        render_targets([r for r in targets({}, cons, cfg) if r[0].startswith(label)], rep)
        return 0

    info = machine_info()
    start = time.perf_counter()
    print(f"eomlab benchmarks ({'quick' if cfg.quick else 'full'} run) on {info['cpu']}, nproc {info['nproc']}",
          flush=True)
    print("1. chains in joint coordinates", flush=True)
    chains = chains_section(cfg, None)
    print("2. sympy.physics.mechanics", flush=True)
    sym = sympy_section(cfg)
    print("3. constrained systems", flush=True)
    cons = constrained_section(cfg)
    tpl, tpc = limit_overheads()
    elapsed = time.perf_counter() - start
    load_end = os.getloadavg()

    rep = Report()
    rep.add(f"## Results ({'--quick subset' if cfg.quick else 'full run'}, {time.strftime('%Y-%m-%d %H:%M')}, "
            f"{elapsed / 60:.1f} min)")
    rep.add()
    rep.add("### Machine")
    rep.add()
    rep.add(machine_section(info, load_end))
    rep.add()
    render_chains(chains, cfg, rep)
    render_sympy(sym, chains, cfg, rep)
    render_constrained(cons, cfg, rep)
    render_targets(targets(chains, cons, cfg), rep)
    import eomlab.engine.simulation as engine_simulation

    how = ("a ThreadpoolController made once" if isinstance(getattr(engine_simulation, "_BLAS", None),
                                                          ThreadpoolController) else "its own limit")
    rep.add(f"Note: a fresh `threadpool_limits(limits=1)` costs {fmt_time(tpl)} to enter and leave here, "
            f"`.limit(limits=1)` of a `ThreadpoolController` made once {fmt_time(tpc)}; `Simulation.advance` uses "
            f"{how} (this benchmark uses a controller made once).")
    if not args.no_readme:
        text = README_HEAD + "\n" + rep.text() + "\n"
        # bench_gui.py --write keeps its own section at the end: carry it over
        marker = "## The window (bench_gui.py)"
        try:
            with open(args.readme, encoding="utf-8") as fh:
                old = fh.read()
        except OSError:
            old = ""
        if marker in old:
            text += "\n" + marker + old.split(marker, 1)[1].rstrip() + "\n"
        tmp = args.readme + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, args.readme)
        print(f"\nwritten to {os.path.relpath(args.readme, ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
