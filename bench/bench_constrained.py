"""Sections 3 and 4: constrained systems with every formulation, and the targets from the issues."""
import time

import numpy as np
from eomlab.engine.presets import preset  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402
from threadpoolctl import ThreadpoolController, threadpool_limits

from bench_common import (  # noqa: E402
    METHODS,
    Config,
    Report,
    chain_model,
    fmt_num,
    fmt_time,
    one_thread,
    real_time_run,
    table,
    time_call,
)


def constrained_systems(cfg: Config):
    systems = [("double pendulum, absolute", lambda: preset("double_pendulum_absolute"), "absolute", cfg.t_sim),
               ("four-bar", lambda: preset("four_bar"), "joint", cfg.t_sim)]
    for n in cfg.constrained_chains:
        systems.append((f"{n}-link chain, absolute", lambda n=n: chain_model(n), "absolute", cfg.t_sim))
    # 3-D absolute coordinates: position and Euler parameters per bar, spherical joints as rows
    for n in (3, 10):
        systems.append((f"{n}-bar spatial chain, absolute (Euler parameters)", lambda n=n: preset("spatial_chain", n=n),
                        "absolute", cfg.t_sim))
    return systems


def constrained_section(cfg: Config) -> dict:
    results = {}
    for label, build, coords, span in constrained_systems(cfg):
        for method in METHODS:
            try:
                sim = Simulation(build(), method=method, coordinates=coords, integrator="DOP853",
                                 rtol=1e-8, atol=1e-8, t_end=cfg.t_sim)
                y = np.array(sim.stepper.y, copy=True)
                fn = sim.formulation.derivative
                with one_thread():
                    rhs1 = time_call(lambda: fn(0.0, y), cfg.rhs_target_time, cfg.rhs_repeats)
                    rhsc = time_call(lambda: fn(0.0, y), cfg.rhs_target_time, cfg.rhs_repeats, timer=time.process_time)
                rhsd = time_call(lambda: fn(0.0, y), cfg.rhs_target_time, cfg.rhs_repeats)
                r = real_time_run(build(), cfg, span, method=method, coordinates=coords, rtol=1e-8, atol=1e-8)
                r.update(rhs1=rhs1, rhsd=rhsd, rhsc=rhsc, n_state=len(y), rows=sim.formulation.n_rows)
            except Exception as err:  # measurement: record, don't stop
                r = {"error": f"{type(err).__name__}: {err}"}
            results[(label, method)] = r
            print(f"  {label:28s} {method:15s}: "
                  + (r["error"] if "error" in r else f"RHS {fmt_time(r['rhs1'])}, RTF {fmt_num(r['rtf'])}"),
                  flush=True)
    return results


def render_constrained(res: dict, cfg: Config, rep: Report):
    rep.add("### 3. Constrained systems, the formulations side by side (rtol = atol = 1e-8, DOP853)")
    rep.add()
    rep.add(f"RHS at the initial state (timeit, best of {cfg.rhs_repeats}), 1 thread and default threads, other core "
            f"idle. Real-time factor as in 1c ({cfg.t_sim:g} s simulated, at most {cfg.wall_budget:g} s wall). "
            "Chains start with every joint at 0.5 rad. Drift = max of |position| and |velocity| constraint drift over "
            "the samples; state = length of the integrated state vector.")
    rep.add()
    rows = []
    for (label, m), r in res.items():
        if "error" in r:
            rows.append([label, m, "error: " + r["error"], "", "", "", "", "", "", "", "", "", "", ""])
            continue
        rows.append([label, m, str(r["n_state"]), fmt_time(r["rhs1"]), fmt_time(r["rhsc"]), fmt_time(r["rhsd"]),
                     fmt_num(r["rtf"]),
                     fmt_num(r["rtf_cpu"]), f"{r['t']:.3g} s", str(r["steps"]), str(r["rhs_evals"]), fmt_num(r["constraint_drift"], 2),
                     fmt_num(r["energy_drift"], 2), r["failure"] or ""])
    rep.add(table(["system", "formulation", "state", "RHS 1 thread", "(CPU time)", "RHS default", "real-time factor",
                   "(by CPU time)", "simulated",
                   "steps", "RHS evals", "drift", "energy drift", "failure"], rows))
    rep.add()


# --- section 4: targets ---------------------------------------------------------------------


def targets(chains: dict, cons: dict, cfg: Config) -> list[list[str]]:
    rows = []

    def mark(ok):
        return "–" if ok is None else ("met" if ok else "NOT met")

    def chain_target(what, n, key, limit, fmt, cmp, cpu=lambda r: ""):
        for m in ("kane", "lagrange"):
            r = chains.get((n, m))
            if r is None:
                rows.append([what, m, "not measured (n not in this run)", fmt(limit), "–", ""])
                continue
            v = key(r)
            rows.append([what, m, fmt(v), fmt(limit), mark(cmp(v, limit)), cpu(r)])

    le = lambda v, x: v <= x  # noqa: E731
    chain_target("first step, n = 10", 10, lambda r: r["first"]["total"], 0.1, fmt_time, le,
                 lambda r: fmt_time(r["first"]["cpu"]))
    chain_target("first step, n = 100", 100, lambda r: r["first"]["total"], 0.5, fmt_time, le,
                 lambda r: fmt_time(r["first"]["cpu"]))
    chain_target("one RHS (1 thread), n = 10", 10, lambda r: r["rhs"]["1 thread"], 60e-6, fmt_time, le,
                 lambda r: fmt_time(r["rhs"]["cpu"]))
    chain_target("one RHS (1 thread), n = 100", 100, lambda r: r["rhs"]["1 thread"], 1e-3, fmt_time, le,
                 lambda r: fmt_time(r["rhs"]["cpu"]))
    chain_target("real-time factor, n = 50, 1e-8", 50, lambda r: r["rtf"][1e-8]["rtf"], 1.0,
                 lambda v: f"{v:.3g}" if v == v else "–", lambda v, x: v > x,
                 lambda r: fmt_num(r["rtf"][1e-8]["rtf_cpu"]))
    label = f"{max(cfg.constrained_chains)}-link chain, absolute"
    rtfs = {m: cons.get((label, m), {}).get("rtf") for m in METHODS}
    measured = {m: v for m, v in rtfs.items() if v is not None}
    for m in METHODS:
        v = rtfs[m]
        c = cons.get((label, m), {}).get("rtf_cpu")
        rows.append([f"{label}: faster than real time", m, fmt_num(v), "> 1",
                     mark(None if v is None else v > 1.0), fmt_num(c)])
    if measured:
        fastest = max(measured.values())
        worst_m = min(measured, key=measured.get)
        ratio = fastest / measured[worst_m]
        all_measured = len(measured) == len(METHODS)
        rows.append([f"{label}: none > 3x slower than the fastest", f"slowest {worst_m}",
                     f"{ratio:.2f}x ({max(measured, key=measured.get)} fastest)", "<= 3x",
                     mark(ratio <= 3.0 if all_measured else False), ""])
    return rows


def render_targets(rows, rep: Report):
    rep.add("### 4. Targets (from the issues)")
    rep.add()
    rep.add("Judged on wall time: the RHS targets on the 1-thread figure with the other core idle (the best case), "
            "the first-step targets on the best of the repeats. The last column gives the CPU-time figure (less "
            "sensitive to other load on the machine) for reference; it does not change a mark.")
    rep.add()
    rep.add(table(["target", "method", "measured", "target", "status", "by CPU time (for reference)"], rows))
    rep.add()


def limit_overheads() -> tuple[float, float]:
    def fresh():
        with threadpool_limits(limits=1):
            pass

    controller = ThreadpoolController()

    def reused():
        with controller.limit(limits=1):
            pass

    return time_call(fresh, 0.01, 9), time_call(reused, 0.01, 9)
