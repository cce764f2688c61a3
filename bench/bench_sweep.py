"""Sweeps: runs per second of the double pendulum over 10 s, side by side (measurement, never a test).

    .venv/bin/python bench/bench_sweep.py             # about 5 minutes here (more on a busy machine)
    .venv/bin/python bench/bench_sweep.py --flip-map  # also the 200 × 200 flip-time map (40,000 runs)

Every run: the double compound pendulum (assets/models), t_end = 10 s, DOP853 at
rtol = atol = 5e-11 (energy drift ≤ 1e-8 is checked), initial angles spread over the circle.
Rows: one ``eomlab run`` process at a time; the Python API (Simulation) one at a time; the numpy batched
engine on one core (``run_chunk(..., compiled=False)``); the compiled step per member on one core
(``sweep(..., workers=0)``, engine.sweep.compiled_members); the sweep on a LocalCluster of one process per core
(start-up included). All rows in one process, one after another: under other load, the ratios are the figures. Prints a Markdown table and, with ``--write``, puts it in bench/README.md's
"Sweeps" section (the rest of the file is left as it is).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MODEL = ROOT / "assets" / "models" / "double_compound_pendulum.eom.json"
TOL = 5e-11
T_END = 10.0
DRIFT_LIMIT = 1e-8
SECTION = "## Sweeps (bench_sweep.py)"


def _starts(n: int) -> list[tuple[float, float]]:
    rng = np.random.default_rng(1)
    return [tuple(x) for x in rng.uniform(-3.0, 3.0, (n, 2))]


def eomlab_run_processes(n: int) -> tuple[float, float]:
    """n `eomlab run` processes one after another: runs per second, and max energy drift."""
    from eomlab.engine.modelfile import load_model, save_model
    from eomlab.engine.sweep.members import with_initial_state

    base = load_model(MODEL)
    drift = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, (a, b) in enumerate(_starts(n)):
            path = os.path.join(tmp, f"m{k}.eom.json")
            save_model(with_initial_state(base, np.array([a, b]), np.zeros(2)), path)
            paths.append(path)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        started = time.perf_counter()
        for k, path in enumerate(paths):
            out = os.path.join(tmp, f"m{k}.csv")
            subprocess.run([sys.executable, "-m", "eomlab", "run", path, "--t-end", str(T_END), "--rtol", str(TOL),
                            "--atol", str(TOL), "--out", out], check=True, env=env)
        elapsed = time.perf_counter() - started
        for k in range(n):
            data = np.genfromtxt(os.path.join(tmp, f"m{k}.csv"), delimiter=",", names=True)
            E = data["E"]
            drift = max(drift, float(np.max(np.abs(E - E[0]) / max(abs(E[0]), 1e-12))))
    return n / elapsed, drift


def api_one_at_a_time(n: int) -> tuple[float, float]:
    from eomlab.engine.modelfile import load_model
    from eomlab.engine.simulation import Simulation
    from eomlab.engine.sweep.members import with_initial_state

    base = load_model(MODEL)
    drift = 0.0
    started = time.perf_counter()
    for a, b in _starts(n):
        sim = Simulation(with_initial_state(base, np.array([a, b]), np.zeros(2)), t_end=T_END, rtol=TOL, atol=TOL)
        rows = sim.run()
        drift = max(drift, float(np.max(sim.relative_energy_drift(rows[:, sim.column_index("E")]))))
    return n / (time.perf_counter() - started), drift


def _vary(n: int) -> dict:
    starts = np.array(_starts(n))
    return {"upper_theta": ",".join(repr(float(x)) for x in starts[:, 0]),
            "lower_theta": ",".join(repr(float(x)) for x in starts[:, 1]),
            "tol": str(TOL)}


def numpy_batched(n: int) -> tuple[float, float]:
    from eomlab.engine.modelfile import load_model
    from eomlab.engine.sweep.chunk_runs import run_chunk
    from eomlab.engine.sweep.spec import make_sweep

    spec = make_sweep(load_model(MODEL), _vary(n), ["energy_drift"], mode="list", t_end=T_END)
    started = time.perf_counter()
    table, _ = run_chunk(spec, 0, n, compiled=False)
    elapsed = time.perf_counter() - started
    assert set(table["engine"]) == {"batched"} and set(table["failure"]) == {""}
    return n / elapsed, float(table["energy_drift"].max())


def compiled(n: int, workers: int) -> tuple[float, float]:
    from eomlab.engine.compiled.compiled_step import wait_until_compiled
    from eomlab.engine.sweep import sweep

    wait_until_compiled(sweep=True)  # loaded from numba's disk cache (the workers load their own: timed)
    started = time.perf_counter()
    table = sweep(str(MODEL), vary=_vary(n), measure=["energy_drift"], mode="list", t_end=T_END, workers=workers,
                  chunk_size=n if workers == 0 else None)
    elapsed = time.perf_counter() - started
    assert set(table["engine"]) == {"compiled"} and set(table["failure"]) == {""}
    return n / elapsed, float(table["energy_drift"].max())


GRID = {"upper_theta": "-3.14:3.14:40", "lower_theta": "-3.14:3.14:40"}
FLIP = "flip_time:lower_theta"


def flip_grid_rows(api_runs: int) -> list[str]:
    """The issue's 40 × 40 flip-time map (default tolerances, t_end 10, one worker): the one-at-a-time API on
    `api_runs` of its members, the numpy batched engine and the compiled step on all 1600, in this process."""
    from eomlab.engine.compiled.compiled_step import wait_until_compiled
    from eomlab.engine.modelfile import load_model
    from eomlab.engine.simulation import Simulation
    from eomlab.engine.sweep.chunk_runs import run_chunk
    from eomlab.engine.sweep.members import members, with_initial_state
    from eomlab.engine.sweep.spec import make_sweep

    wait_until_compiled(sweep=True)
    spec = make_sweep(load_model(MODEL), GRID, [FLIP], t_end=T_END)
    runs, _ = members(spec, spec.run_table())
    picked = np.linspace(0, len(runs) - 1, api_runs).astype(int)
    started = time.perf_counter()
    for i in picked:
        Simulation(with_initial_state(runs[i].model, runs[i].q0, runs[i].u0)).run()
    api = api_runs / (time.perf_counter() - started)
    rates = {}
    for label, options in (("numpy batched", dict(compiled=False)), ("compiled", {})):
        started = time.perf_counter()
        table, _ = run_chunk(spec, 0, spec.n_runs, **options)
        rates[label] = spec.n_runs / (time.perf_counter() - started)
        flips = table[FLIP]
    lines = ["", f"The 40 × 40 flip-time map (t_end = {T_END:g} s, default tolerances, one worker), load average "
             f"{os.getloadavg()[0]:.1f} at its end; {int(np.isfinite(flips).sum())} of 1600 members flip:", "",
             "| how | runs | runs / s | × API one at a time |", "|---|---:|---:|---:|",
             f"| Python API (Simulation), one at a time | {api_runs} | {api:.3g} | 1 |"]
    lines += [f"| {label}, `run_chunk` | 1600 | {rate:.3g} | {rate / api:.3g} |" for label, rate in rates.items()]
    ratio = rates["compiled"] / api
    lines += ["", f"Target (issue 30) ≥ 20×: {ratio:.0f}× — {'met' if ratio >= 20 else 'not met'}."]
    return lines


def flip_map() -> tuple[float, float]:
    """The 200 × 200 map through `eomlab sweep`: wall seconds, and the CPU seconds of the command and its
    LocalCluster's processes (what the load of other programs does not inflate much)."""
    import resource

    out = tempfile.mkdtemp()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "eomlab", "sweep", str(MODEL), "--vary", "upper_theta=-3.14:3.14:200",
                    "--vary", "lower_theta=-3.14:3.14:200", "--measure", "flip_time:lower_theta", "--t-end", "10",
                    "-o", os.path.join(out, "flips.parquet"), "--quiet"], check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="runs for the one-at-a-time rows")
    parser.add_argument("--batch", type=int, default=400, help="runs for the numpy batched row")
    parser.add_argument("--compiled", type=int, default=1600, help="runs for the compiled rows")
    parser.add_argument("--flip-map", action="store_true", help="also time the 200 × 200 flip-time map")
    parser.add_argument("--write", action="store_true", help="put the table into bench/README.md")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    rows = []
    for label, fn, n in (("`eomlab run`, one process per run", eomlab_run_processes, args.runs),
                         ("Python API (Simulation), one at a time", api_one_at_a_time, args.runs),
                         ("numpy batched engine, one core", numpy_batched, args.batch),
                         ("compiled step per member, one core (`workers=0`)", lambda k: compiled(k, 0), args.compiled),
                         (f"compiled, on a LocalCluster of {cores} processes (start-up included)",
                          lambda k: compiled(k, cores), 2 * args.compiled)):
        rate, drift = fn(n)
        rows.append((label, n, rate, drift))
        print(f"{label}: {rate:.3g} runs/s (max energy drift {drift:.2g})", flush=True)
    api = rows[1][2]
    lines = [f"Double compound pendulum, t_end = {T_END:g} s, DOP853, rtol = atol = {TOL:g}; "
             f"{platform.processor() or platform.machine()}, {cores} cores, load average {load:.1f} at the start.", "",
             "| how | runs | runs / s | × API one at a time | max energy drift |", "|---|---:|---:|---:|---:|"]
    for label, n, rate, drift in rows:
        ok = "" if drift <= DRIFT_LIMIT else " (above 1e-8!)"
        lines.append(f"| {label} | {n} | {rate:.3g} | {rate / api:.3g} | {drift:.2g}{ok} |")
    per_core = rows[3][2] / api
    lines += ["", f"Target (issue 30) compiled ≥ 20× the one-at-a-time API per core: {per_core:.0f}× — "
              f"{'met' if per_core >= 20 else 'not met'}; the numpy batched engine {rows[2][2] / api:.0f}×."]
    lines += flip_grid_rows(args.runs)
    if args.flip_map:
        seconds, cpu = flip_map()
        lines += ["", f"Flip-time map 200 × 200 (40,000 runs, `eomlab sweep`, t_end = 10 s, default tolerances, "
                  f"LocalCluster of {cores}, start-up included): {seconds:.0f} s wall ({40000 / seconds:.0f} runs/s); "
                  f"target ≤ 60 s — {'met' if seconds <= 60 else 'not met'}. Load average {os.getloadavg()[0]:.1f} "
                  f"at its end. CPU time of the command and its workers: {cpu:.0f} s ({cpu / cores:.0f} s on each of "
                  f"{cores} cores)."]
    table = "\n".join(lines)
    print(table)
    if args.write:
        _write_section(table)
    return 0


def _write_section(table: str) -> None:
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text()
    body = f"{SECTION}\n\n{table}\n"
    if SECTION in text:
        head, _, rest = text.partition(SECTION)
        tail = rest[rest.find("\n## "):] if "\n## " in rest else ""
        text = head + body + tail
    else:
        text = text.rstrip("\n") + "\n\n" + body
    readme.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
