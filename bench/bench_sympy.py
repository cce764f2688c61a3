"""Section 2: the same chains derived with sympy.physics.mechanics' KanesMethod + lambdify(cse=True),
each n in its own process (`bench_chains.py --sympy-worker N`)."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
from eomlab.engine.simulation import Simulation  # noqa: E402

from bench_common import (
    ANGLE,
    HERE,
    ROOT,  # noqa: E402
    GRAVITY,
    Config,
    Report,
    chain_model,
    fmt_num,
    fmt_time,
    one_thread,
    rhs_costs,
    table,
)


def sympy_chain(n: int):
    """The same chain with KanesMethod: relative angles from the previous link, rods with
    inertia m l²/12 about the centre, gravity −y."""
    import sympy as sm
    import sympy.physics.mechanics as me

    q = me.dynamicsymbols(f"q1:{n + 1}")
    u = me.dynamicsymbols(f"u1:{n + 1}")
    m, l, g = sm.symbols("m l g")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bodies, loads = [], []
    frame, hinge = N, O
    for i in range(n):
        A = frame.orientnew(f"A{i + 1}", "Axis", (q[i], frame.z))
        A.set_ang_vel(frame, u[i] * frame.z)
        G = hinge.locatenew(f"G{i + 1}", l / 2 * A.x)
        G.v2pt_theory(hinge, N, A)
        P = hinge.locatenew(f"P{i + 1}", l * A.x)
        P.v2pt_theory(hinge, N, A)
        inertia = me.inertia(A, 0, m * l**2 / 12, m * l**2 / 12)
        bodies.append(me.RigidBody(f"B{i + 1}", G, A, m, (inertia, G)))
        loads.append((G, -m * g * N.y))
        frame, hinge = A, P
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    kane.kanes_equations(bodies, loads)
    return kane, q, u, (m, l, g)


class _Timeout(Exception):
    pass


def sympy_worker(n: int, cfg: Config) -> dict:
    """Runs in a child process: derivation, first step, RHS and real-time factor of the sympy chain."""
    import sympy as sm
    from scipy.integrate import DOP853

    def alarm(signum, frame):
        raise _Timeout()

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, cfg.sympy_limit)
    try:
        t0 = time.perf_counter()
        kane, q, u, p = sympy_chain(n)
        t1 = time.perf_counter()
        M_fn = sm.lambdify((q, u, p), kane.mass_matrix, cse=True)
        F_fn = sm.lambdify((q, u, p), kane.forcing, cse=True)
        t2 = time.perf_counter()
    except _Timeout:
        return {"timeout": True, "elapsed": time.perf_counter() - t0}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    params = (1.0, 1.0, GRAVITY)

    def rhs(t, y):
        qq, uu = y[:n], y[n:]
        M = np.asarray(M_fn(qq, uu, params), dtype=float)
        F = np.asarray(F_fn(qq, uu, params), dtype=float).ravel()
        return np.concatenate((uu, np.linalg.solve(M, F)))

    y0 = np.concatenate((np.full(n, ANGLE), np.zeros(n)))
    t3 = time.perf_counter()
    solver = DOP853(rhs, 0.0, y0, cfg.t_sim, rtol=1e-8, atol=1e-8)
    solver.step()
    t4 = time.perf_counter()
    y = np.array(solver.y, copy=True)
    costs = rhs_costs(lambda: rhs(0.0, y), cfg)

    # same motion as the engine? compare the derivatives at a generic state
    rng = np.random.default_rng(1)
    y_test = np.concatenate((rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)))
    sim = Simulation(chain_model(n), method="kane", coordinates="joint")
    diff = float(np.max(np.abs(sim.formulation.derivative(0.0, y_test) - rhs(0.0, y_test))))

    rtf = {}
    for tol in cfg.tolerances:
        solver = DOP853(rhs, 0.0, y0, cfg.t_sim, rtol=tol, atol=tol)
        start, c0 = time.perf_counter(), time.process_time()
        steps = 0
        with one_thread():
            while solver.status == "running" and time.perf_counter() - start < cfg.wall_budget:
                solver.step()
                steps += 1
        wall, cpu = time.perf_counter() - start, time.process_time() - c0
        rtf[str(tol)] = {"rtf": solver.t / wall, "rtf_cpu": solver.t / cpu, "t": solver.t, "wall": wall,
                         "steps": steps, "rhs_evals": solver.nfev}
    return {"timeout": False, "derive": t1 - t0, "lambdify": t2 - t1, "step": t4 - t3, "total": t4 - t0 - (t3 - t2),
            "rhs": costs, "diff": diff, "rtf": rtf}


def sympy_section(cfg: Config) -> dict:
    results = {}
    skip_rest = False
    for n in cfg.sympy_sizes:
        if skip_rest:
            results[n] = {"timeout": True, "skipped": True}
            continue
        cmd = [sys.executable, os.path.join(HERE, "bench_chains.py"), "--sympy-worker", str(n),
               "--sympy-limit", str(cfg.sympy_limit)] + (["--quick"] if cfg.quick else [])
        hard = cfg.sympy_limit + 4 * cfg.wall_budget + 120
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=hard, cwd=ROOT)
            res = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else \
                {"timeout": False, "error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
        except subprocess.TimeoutExpired:
            res = {"timeout": True}
        results[n] = res
        if res.get("timeout"):
            skip_rest = True  # a bigger chain takes longer still
            print(f"  sympy n={n:3d}: > {cfg.sympy_limit:g} s", flush=True)
        elif "error" in res:
            print(f"  sympy n={n:3d}: error {res['error']}", flush=True)
        else:
            print(f"  sympy n={n:3d}: first step {fmt_time(res['total'])}, RHS {fmt_time(res['rhs']['1 thread'])}",
                  flush=True)
    return results


def render_sympy(sym: dict, chains: dict, cfg: Config, rep: Report):
    limit = f"> {cfg.sympy_limit:g} s"
    rep.add("### 2. sympy.physics.mechanics (KanesMethod + lambdify(cse=True)) beside eomlab (kane)")
    rep.add()
    rep.add("The same chain built symbolically (ReferenceFrames, Points, RigidBody rods with inertia m l²/12 about "
            "the centre, gravity −y, m, l, g as symbols). First step = KanesMethod derivation + lambdify of the mass "
            "matrix and forcing + the first step of scipy's DOP853 (solve_ivp's stepper). RHS = the two lambdified "
            "functions + np.linalg.solve. Each n runs in its own process; derivation beyond "
            f"{cfg.sympy_limit:g} s is stopped. |Δf| = max difference of the two right-hand sides at a random state.")
    rep.add()
    rows = []
    for n, r in sym.items():
        e = chains.get((n, "kane"))
        ours_first = fmt_time(e["first"]["total"]) if e else "–"
        ours_rhs = fmt_time(e["rhs"]["1 thread"]) if e else "–"
        ours_cpu = fmt_time(e["rhs"]["cpu"]) if e else "–"
        if r.get("timeout"):
            rows.append([str(n), limit, limit, limit, "–", "–", "–", "–", "–", ours_first, ours_rhs, ours_cpu, "–"])
            continue
        if "error" in r:
            rows.append([str(n), "error: " + r["error"], "", "", "", "", "", "", "", ours_first, ours_rhs, ours_cpu, ""])
            continue
        c = r["rhs"]
        rows.append([str(n), fmt_time(r["total"]), fmt_time(r["derive"]), fmt_time(r["lambdify"]),
                     fmt_time(c["1 thread"]), fmt_time(c["default threads"]), fmt_time(c["1 thread, core busy"]),
                     fmt_time(c["default, core busy"]), fmt_time(c["cpu"]), ours_first, ours_rhs, ours_cpu,
                     fmt_num(r["diff"], 2)])
    rep.add(table(["n", "sympy first step", "derivation", "lambdify", "RHS 1 thread", "RHS default",
                   "RHS 1 thr, busy", "RHS default, busy", "RHS CPU time", "eomlab first step", "eomlab RHS 1 thread",
                   "eomlab RHS CPU time", "|Δf|"], rows))
    rep.add()
    rows = []
    for n, r in sym.items():
        for tol in cfg.tolerances:
            e = chains.get((n, "kane"))
            ours = fmt_num(e["rtf"][tol]["rtf"]) if e else "–"
            ours_cpu = fmt_num(e["rtf"][tol]["rtf_cpu"]) if e else "–"
            if r.get("timeout") or "error" in r:
                rows.append([str(n), f"{tol:.0e}", limit if r.get("timeout") else "error", "–", "–", "–", ours, ours_cpu])
                continue
            x = r["rtf"][str(tol)]
            rows.append([str(n), f"{tol:.0e}", fmt_num(x["rtf"]), fmt_num(x["rtf_cpu"]), f"{x['t']:.3g} s",
                         str(x["rhs_evals"]), ours, ours_cpu])
    rep.add(table(["n", "tol", "sympy real-time factor", "(by CPU time)", "simulated", "RHS evals",
                   "eomlab kane real-time factor", "(by CPU time)"], rows))
    rep.add()
