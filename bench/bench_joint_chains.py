"""Section 1: planar chains in joint coordinates — time to the first step, one right-hand side, and
the real-time factor."""
import contextlib
import os
import tempfile
import time

import numpy as np
from eomlab.engine.modelfile import load_model, save_model  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402

from bench_common import (  # noqa: E402
    RHS_VARIANTS,
    Config,
    Report,
    chain_model,
    chain_span,
    fmt_num,
    fmt_time,
    one_thread,
    real_time_run,
    rhs_costs,
    table,
)


def first_step_times(path: str, method: str, cfg: Config) -> dict:
    """load_model + Simulation + one stepper step, each timed; best of the repeats and the first.

    As a program would do it: the Simulation is built with the BLAS default threads (the engine does not
    limit them there) and the step is taken with BLAS limited to one thread, as Simulation.advance does.
    The "all 1 thread" variant builds the Simulation with the limit as well.
    """
    def once(limit_all: bool):
        c0 = time.process_time()
        t0 = time.perf_counter()
        outer = one_thread() if limit_all else contextlib.nullcontext()
        with outer:
            model = load_model(path)
            t1 = time.perf_counter()
            sim = Simulation(model, method=method, coordinates="joint", integrator="DOP853",
                             rtol=1e-8, atol=1e-8, t_end=cfg.t_sim)
            t2 = time.perf_counter()
            with one_thread():
                sim.stepper.step()
        t3 = time.perf_counter()
        return {"total": t3 - t0, "load": t1 - t0, "build": t2 - t1, "step": t3 - t2,
                "cpu": time.process_time() - c0, "sim": sim}

    runs = [once(False) for _ in range(cfg.first_step_repeats)]
    best = dict(min(runs, key=lambda r: r["total"]))
    best["first"] = runs[0]["total"]
    best["all_1_thread"] = min(once(True)["total"] for _ in range(cfg.first_step_repeats))
    return best


def chains_section(cfg: Config, rep: Report) -> dict:
    results = {}
    tmp = tempfile.mkdtemp(prefix="eomlab-bench-")
    try:
        for n in cfg.chain_sizes:
            path = os.path.join(tmp, f"chain{n}.eom.json")
            save_model(chain_model(n), path)
            for method in ("kane", "lagrange"):
                fs = first_step_times(path, method, cfg)
                sim = fs.pop("sim")
                y = np.array(sim.stepper.y, copy=True)
                fn = sim.formulation.derivative
                rhs = rhs_costs(lambda: fn(0.0, y), cfg)
                span = chain_span(n, cfg)
                rtf = {tol: real_time_run(chain_model(n), cfg, span, method=method, coordinates="joint", rtol=tol,
                                          atol=tol) for tol in cfg.tolerances}
                # the same without the samples every dt_out (one at the end only)
                rtf["bare"] = real_time_run(chain_model(n), cfg, span, method=method, coordinates="joint",
                                            rtol=1e-8, atol=1e-8, dt_out=span)
                results[(n, method)] = {"first": fs, "rhs": rhs, "rtf": rtf}
                print(f"  chain n={n:3d} {method:8s}: first step {fmt_time(fs['total'])}, "
                      f"RHS {fmt_time(rhs['1 thread'])}, RTF(1e-8) {fmt_num(rtf[1e-8]['rtf'])}", flush=True)
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    return results


def render_chains(results: dict, cfg: Config, rep: Report):
    rep.add("### 1a. Time from reading the file to the first integrated step (after imports)")
    rep.add()
    rep.add(f"load_model + Simulation(...) + one DOP853 step (rtol = atol = 1e-8), best of {cfg.first_step_repeats}; "
            "\"cold\" is the first run in the process for that n and method. Simulation() runs with the BLAS default "
            "threads (the engine sets no limit there), the step with BLAS limited to one thread as "
            "Simulation.advance takes it. \"all in 1 thread\": the same with Simulation() limited to one thread too.")
    rep.add()
    rows = []
    for (n, m), r in results.items():
        f = r["first"]
        rows.append([str(n), m, fmt_time(f["total"]), fmt_time(f["cpu"]), fmt_time(f["load"]), fmt_time(f["build"]),
                     fmt_time(f["step"]), fmt_time(f["first"]), fmt_time(f["all_1_thread"])])
    rep.add(table(["n", "method", "first step", "(CPU time)", "load_model", "Simulation()", "one step", "cold",
                   "all in 1 thread"], rows))
    rep.add()
    rep.add("### 1b. One right-hand side, `sim.formulation.derivative(0.0, y)`")
    rep.add()
    rep.add(f"timeit, best of {cfg.rhs_repeats} repeats of about {cfg.rhs_target_time * 1e3:g} ms each. "
            "\"1 thread\": BLAS limited to one thread (what "
            "`Simulation.advance` uses); \"default\": the BLAS default thread count; \"core busy\": a background "
            "process spins single-threaded numpy matrix products meanwhile; \"CPU time\": the 1-thread case timed with "
            "time.process_time, which leaves out the time the process waited for a core.")
    rep.add()
    rows = []
    for (n, m), r in results.items():
        c = r["rhs"]
        rows.append([str(n), m, *(fmt_time(c[label]) for label, _, _ in RHS_VARIANTS), fmt_time(c["cpu"])])
    rep.add(table(["n", "method", *(label for label, _, _ in RHS_VARIANTS), "1 thread, CPU time"], rows))
    rep.add()
    rep.add("### 1c. Real-time factor (simulated s per wall s), DOP853")
    rep.add()
    rep.add(f"`sim.advance(t, wall_budget={cfg.wall_budget:g})` with t = {cfg.t_sim:g} s simulated for n <= 50 and "
            f"{cfg.t_sim / 2:g} s for n = 100, stopped early after {cfg.wall_budget:g} s of wall time; factor = simulated "
            "time reached / wall time. The chains speed up as they fall, so later seconds cost more: compare factors "
            "over the same simulated span. Includes the "
            "samples every dt_out = 0.01 s (each sample evaluates the state, energy and mass centres); \"(no samples)\": "
            "the same run at 1e-8 with dt_out = t_end, i.e. the integration alone. \"wall / RHS\" = wall time per "
            "right-hand side including the integrator and the samples. Energy drift = max relative drift over the run.")
    rep.add()
    rows = []
    for (n, m), r in results.items():
        for tol in cfg.tolerances:
            x = r["rtf"][tol]
            bare = fmt_num(r["rtf"]["bare"]["rtf"]) if tol == 1e-8 else ""
            rows.append([str(n), m, f"{tol:.0e}", fmt_num(x["rtf"]), fmt_num(x["rtf_cpu"]), bare, f"{x['t']:.3g} s",
                         f"{x['wall']:.2f} s", str(x["steps"]), str(x["rhs_evals"]), str(x["sample_evals"]),
                         fmt_time(x["wall"] / max(x["rhs_evals"], 1)), fmt_num(x["energy_drift"], 2), x["failure"] or ""])
    rep.add(table(["n", "method", "tol", "real-time factor", "(by CPU time)", "(no samples)", "simulated", "wall",
                   "steps", "RHS evals", "samples", "wall / RHS", "energy drift", "failure"], rows))
    rep.add()
