"""Benchmarks of eomlab on planar chains and constrained systems (measurement, never a test).

    .venv/bin/python bench/bench_chains.py            # full run (3 to 7 minutes here)
    .venv/bin/python bench/bench_chains.py --quick    # reduced set (under 2 minutes)
    .venv/bin/python bench/bench_chains.py --profile  # cProfile of the RHS (10, 100 links; 20 absolute), printed only
    .venv/bin/python bench/bench_chains.py --constrained  # section 3 and its targets only, printed only

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
import atexit
import contextlib
import cProfile
import io
import json
import math
import os
import platform
import pstats
import signal
import subprocess
import sys
import tempfile
import time
import timeit
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_info, threadpool_limits

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from eomlab.engine.methods import METHODS  # noqa: E402
from eomlab.engine.modelfile import load_model, save_model  # noqa: E402
from eomlab.engine.presets import preset  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402

ANGLE = 0.5  # rad, every joint of the chains
# inspecting the loaded BLAS libraries takes about a millisecond: do it once, then limiting is cheap
BLAS = ThreadpoolController()


def one_thread():
    """BLAS limited to one thread (as Simulation.advance runs)."""
    return BLAS.limit(limits=1)

GRAVITY = 9.81


# --- configuration -------------------------------------------------------------------------


@dataclass
class Config:
    quick: bool
    chain_sizes: tuple[int, ...]
    sympy_sizes: tuple[int, ...]
    sympy_limit: float
    t_sim: float  # simulated seconds asked for in a real-time-factor run
    wall_budget: float  # wall seconds after which a real-time-factor run stops
    rhs_target_time: float  # wall seconds of one timeit repeat
    rhs_repeats: int
    first_step_repeats: int
    constrained_chains: tuple[int, ...] = (10, 20)
    tolerances: tuple[float, ...] = (1e-8, 1e-10)
    notes: list[str] = field(default_factory=list)


def make_config(args) -> Config:
    if args.quick:
        return Config(quick=True, chain_sizes=(2, 5, 10, 100), sympy_sizes=(2, 5),
                      sympy_limit=args.sympy_limit, t_sim=2.0, wall_budget=1.5,
                      rhs_target_time=0.002, rhs_repeats=25, first_step_repeats=2)
    return Config(quick=False, chain_sizes=(2, 5, 10, 20, 50, 100), sympy_sizes=(2, 5, 10),
                  sympy_limit=args.sympy_limit, t_sim=2.0, wall_budget=20.0,
                  rhs_target_time=0.002, rhs_repeats=60, first_step_repeats=3)


def chain_span(n: int, cfg: Config) -> float:
    """Simulated seconds asked for: 2 s, 1 s for the biggest chains (n > 50)."""
    return cfg.t_sim if n <= 50 else cfg.t_sim / 2


def chain_model(n: int):
    return preset("planar_chain", n=n, kind="rod", angles=[ANGLE] * n)


# --- the busy core -------------------------------------------------------------------------

SPIN_CODE = """
import numpy as np
a = np.random.default_rng(0).random((160, 160))
while True:
    b = a @ a
    a = b / np.abs(b).max()
"""


@contextlib.contextmanager
def busy_core():
    """A background process spinning single-threaded numpy work for the duration."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-c", SPIN_CODE], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop = lambda: _stop(proc)  # noqa: E731
    atexit.register(stop)
    try:
        time.sleep(0.3)  # let it import numpy and start spinning
        yield proc
    finally:
        stop()
        atexit.unregister(stop)


def _stop(proc: subprocess.Popen):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- timing helpers ------------------------------------------------------------------------


def time_call(fn, target: float, repeats: int, timer=time.perf_counter) -> float:
    """Best seconds per call of fn() over `repeats` timeit repeats of about `target` seconds."""
    fn()
    t0 = time.perf_counter()
    fn()
    single = max(time.perf_counter() - t0, 1e-7)
    number = max(1, int(target / single))
    return min(timeit.repeat(fn, number=number, repeat=repeats, timer=timer)) / number


RHS_VARIANTS = (("1 thread", 1, False), ("default threads", None, False),
                ("1 thread, core busy", 1, True), ("default, core busy", None, True))


def rhs_costs(fn, cfg: Config) -> dict[str, float]:
    """Seconds per call in the four variants (BLAS threads x other core idle/busy)."""
    out = {}
    for busy in (False, True):
        ctx = busy_core() if busy else contextlib.nullcontext()
        with ctx:
            for label, limit, b in RHS_VARIANTS:
                if b != busy:
                    continue
                lim = BLAS.limit(limits=limit) if limit else contextlib.nullcontext()
                with lim:
                    out[label] = time_call(fn, cfg.rhs_target_time, cfg.rhs_repeats)
            if not busy:
                with one_thread():
                    out["cpu"] = time_call(fn, cfg.rhs_target_time, cfg.rhs_repeats, timer=time.process_time)
    return out


def energy_drift(sim: Simulation) -> float:
    s = sim.samples()
    if len(s) == 0:
        return float("nan")
    return float(np.max(sim.relative_energy_drift(s[:, sim.column_index("E")])))


def constraint_drift(sim: Simulation) -> float:
    s = sim.samples()
    if len(s) == 0:
        return float("nan")
    return float(max(np.max(np.abs(s[:, sim.column_index("drift_pos")])),
                     np.max(np.abs(s[:, sim.column_index("drift_vel")]))))


def real_time_run(model, cfg: Config, t_sim: float | None = None, **kw) -> dict:
    t_sim = t_sim or cfg.t_sim
    sim = Simulation(model, integrator="DOP853", t_end=t_sim, **kw)
    c0 = time.process_time()
    sim.advance(t_sim, wall_budget=cfg.wall_budget)
    cpu = time.process_time() - c0
    st = sim.stats
    return {
        "t": sim.t, "wall": sim.wall_time, "rtf": sim.t / sim.wall_time if sim.wall_time > 0 else float("nan"),
        "cpu": cpu, "rtf_cpu": sim.t / cpu if cpu > 0 else float("nan"),
        "steps": st["steps"], "rhs_evals": st["rhs_evals"], "sample_evals": st["sample_evals"],
        "energy_drift": energy_drift(sim), "constraint_drift": constraint_drift(sim),
        "failure": sim.failure, "repartitions": st["repartitions"],
    }


# --- formatting ----------------------------------------------------------------------------


def fmt_time(s: float | None) -> str:
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return "–"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_num(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}"


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


class Report:
    def __init__(self):
        self.parts: list[str] = []

    def add(self, text: str = ""):
        print(text, flush=True)
        self.parts.append(text)

    def text(self) -> str:
        return "\n".join(self.parts)


# --- machine -------------------------------------------------------------------------------


def machine_info() -> dict:
    import scipy
    import sympy

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(os.cpu_count())
    blas = [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')}, {i.get('threading_layer')}, "
            f"{i.get('num_threads')} threads, {os.path.basename(i.get('filepath', ''))})"
            for i in threadpool_info()]
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "engine"], capture_output=True,
                               text=True).stdout.strip()
        commit += " (engine/ has uncommitted changes)" if dirty else ""
    except OSError:
        commit = "unknown"
    return {"nproc": nproc, "cpu": cpu, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "sympy": sympy.__version__, "blas": "; ".join(blas) or "none found",
            "platform": platform.platform(), "commit": commit, "load": os.getloadavg()}


def machine_section(info: dict, load_end) -> str:
    la, le = info["load"], load_end
    return "\n".join([
        f"- nproc: {info['nproc']}",
        f"- CPU: {info['cpu']}",
        f"- Python {info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, sympy {info['sympy']}",
        f"- BLAS (threadpoolctl): {info['blas']}",
        f"- OS: {info['platform']}",
        f"- eomlab commit: {info['commit']}",
        f"- load average (1/5/15 min) at start {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f}, "
        f"at end {le[0]:.2f} / {le[1]:.2f} / {le[2]:.2f}",
    ])


# --- section 1: chains in joint coordinates ------------------------------------------------


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


# --- section 2: sympy.physics.mechanics -----------------------------------------------------


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
        cmd = [sys.executable, os.path.abspath(__file__), "--sympy-worker", str(n),
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


# --- section 3: constrained systems ---------------------------------------------------------


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

`bench_chains.py` measures; it never asserts. Run it from the repository root:

    .venv/bin/python bench/bench_chains.py            # full run, 3 to 7 minutes here, rewrites this file
    .venv/bin/python bench/bench_chains.py --quick    # reduced set (n = 2, 5, 10, 100; sympy n = 2, 5), under 2 minutes
    .venv/bin/python bench/bench_chains.py --no-readme            # print only
    .venv/bin/python bench/bench_chains.py --sympy-limit 60       # stop a sympy derivation after 60 s
    .venv/bin/python bench/bench_chains.py --profile              # cProfile of the RHS (10, 100 links; 20 absolute), printed only
    .venv/bin/python bench/bench_chains.py --constrained          # section 3 (every formulation) and its targets, printed only
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
    parser.add_argument("--sympy-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cfg = make_config(args)

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
