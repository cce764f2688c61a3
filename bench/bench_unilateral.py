"""Throughput of models without contacts or limits, before and after engine.unilateral (issue 28).

Runs each model with each formulation for `--t-end` simulated seconds and prints the best of
`--repeat` CPU times (time.process_time: the machine is shared, wall time waits for a core) and the
right-hand sides taken. Run it with two checkouts' interpreters in turn, in one session:

    /work/main/.venv/bin/python bench/bench_unilateral.py     # before (main)
    .venv/bin/python bench/bench_unilateral.py                # after (this branch)

and put the figures in bench/README.md ("Unilateral constraints: throughput without them").
"""
from __future__ import annotations

import argparse
import time

import eomlab
from eomlab.engine.methods import METHODS
from eomlab.engine.simulation import Simulation

MODELS = (("double_compound_pendulum", {}), ("planar_chain", {"n": 10}), ("four_bar", {}))


def measure(name: str, params: dict, method: str, t_end: float, repeat: int) -> tuple[float, int]:
    best, evals = float("inf"), 0
    for _ in range(repeat):
        sim = Simulation(eomlab.preset(name, **params), method=method, t_end=t_end)
        start = time.process_time()
        sim.run()
        best = min(best, time.process_time() - start)
        evals = sim.stats["rhs_evals"]
    return best, evals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t-end", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"# {eomlab.__file__}")
    for name, params in MODELS:
        for method in METHODS:
            cpu, evals = measure(name, params, method, args.t_end, args.repeat)
            print(f"{name}{params or ''}\t{method}\t{cpu / args.t_end * 1e3:.1f} ms CPU per simulated s\t{evals} rhs")


if __name__ == "__main__":
    main()
