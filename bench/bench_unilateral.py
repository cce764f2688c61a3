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


def rhs_seconds(name: str, params: dict, method: str, repeat: int = 30, number: int = 200) -> float:
    """Best of `repeat` timeit batches of the run's right-hand side (Simulation._checked_derivative,
    where the unilateral hook sits), per call: robust to the machine's other work."""
    import timeit

    sim = Simulation(eomlab.preset(name, **params), method=method, t_end=1.0)
    t, y = sim.stepper.t, sim.stepper.y.copy()
    return min(timeit.repeat(lambda: sim._checked_derivative(t, y), repeat=repeat, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t-end", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rhs", action="store_true", help="time the right-hand side alone (best of 30 × 200 calls)")
    parser.add_argument("--only", nargs="*", metavar="PRESET", help="these models only")
    args = parser.parse_args()
    models = [(n, p) for n, p in MODELS if not args.only or n in args.only]
    print(f"# {eomlab.__file__}")
    if args.rhs:
        for name, params in models:
            for method in METHODS:
                print(f"{name}{params or ''}\t{method}\t{rhs_seconds(name, params, method) * 1e6:.2f} µs per right-hand side")
        return
    for name, params in models:
        for method in METHODS:
            cpu, evals = measure(name, params, method, args.t_end, args.repeat)
            print(f"{name}{params or ''}\t{method}\t{cpu / args.t_end * 1e3:.1f} ms CPU per simulated s\t{evals} rhs")


if __name__ == "__main__":
    main()
