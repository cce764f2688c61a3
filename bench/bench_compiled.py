"""The compiled tree-dynamics path (engine.compiled.tree_backend, pinocchio) against pinocchio and MuJoCo
(measurement, never a test). Planar chains of uniform rods, 0.5 rad per joint, released at rest.

    .venv/bin/python bench/bench_compiled.py            # every section (about 6 minutes on a free machine)
    .venv/bin/python bench/bench_compiled.py --quick    # fewer rounds, shorter runs
    .venv/bin/python bench/bench_compiled.py --write    # also replace its section in bench/README.md
    .venv/bin/python bench/bench_compiled.py --step     # sections 4 and 6 alone (--write: their own block)

1. one right-hand side: eomlab (kane, lagrange; compiled and numpy path) vs pinocchio `aba` and MuJoCo
   `mj_forward` from Python, interleaved rounds, ratios taken inside each round (medians shown);
2. equal accuracy: simulated seconds per wall second at max |E − E₀| / |E₀| ≤ 1e-8 over 10 s, eomlab
   DOP853 (loosest rtol = atol in 1e-7 … 1e-13 that meets it) vs MuJoCo RK4 (largest step 2⁻ᵏ·10 ms);
3. the 200-link chain's real-time factor at rtol = atol = 1e-8 (kane, DOP853, samples every 10 ms);
4. file to first step in a fresh process at n = 10 and 100, imports (pinocchio's included) counted;
5. the drift floor at n = 50: max |E − E₀| / |E₀| over 10 s on the compiled path (kane, DOP853) for rtol = atol
   from 1e-9 down to 3e-14 (scipy's floor is 100 ε), the loosest meeting 1e-10 and its simulated seconds per wall
   second; beside it the round-off of one sampled E (pinocchio's against the numpy path's at the same state);
6. the compiled DOP853 step (engine.compiled.compiled_step, numba) against scipy's Python step: simulated seconds per
   wall second at n = 10, 50 (rtol = atol = 1e-9) and 200 (1e-8), interleaved, ratios inside each round.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench_common import one_thread, chain_model, fmt_time, table  # noqa: E402
from eomlab.engine.modelfile import save_model  # noqa: E402
from eomlab.engine.robot_formats import export_mjcf  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402
from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- bench_compiled: begin -->", "<!-- bench_compiled: end -->"
DRIFT_BOUND = 1e-8
FINE_DRIFT_BOUND = 1e-10  # section 5: reachable at n = 50 (issue 17)
FINE_TOLERANCES = (1e-9, 1e-10, 1e-11, 1e-12, 3e-13, 1e-13, 3e-14)
WALL_BUDGET = 60.0  # s per run in the equal-accuracy search


def mujoco_chain(n: int):
    """The same chain in MuJoCo (eomlab's MJCF export), contacts off, energy on."""
    import mujoco

    xml, _ = export_mjcf(chain_model(n))
    m = mujoco.MjModel.from_xml_string(xml)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    d = mujoco.MjData(m)
    d.qpos[:] = [b.joint.q0[0] for b in chain_model(n).bodies]
    return mujoco, m, d


def per_call(fn, calls: int) -> float:
    """Process CPU seconds per call (a busy machine's other processes do not count)."""
    t0 = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - t0) / calls


def rhs_section(sizes, rounds: int) -> list[list[str]]:
    rows = []
    for n in sizes:
        fns = {}
        for path in ("1", "0"):
            os.environ[FAST_PATH_VARIABLE] = path
            for method in ("kane", "lagrange"):
                sim = Simulation(chain_model(n), method=method)
                y = np.array(sim.stepper.y, copy=True)
                fns[(method, path)] = (lambda f=sim.formulation.derivative, y=y: f(0.0, y))
        os.environ.pop(FAST_PATH_VARIABLE)
        backend = Simulation(chain_model(n)).formulation.system.tree_backend
        import pinocchio as pin

        q = backend.configuration(np.array([b.joint.q0[0] for b in chain_model(n).bodies]))
        v, tau = np.zeros(n), np.zeros(n)
        fns["aba"] = lambda: pin.aba(backend.model, backend.data, q, v, tau)
        mujoco, m, d = mujoco_chain(n)
        fns["mj_forward"] = lambda: mujoco.mj_forward(m, d)
        calls = max(50, 4000 // n)
        times = {k: [] for k in fns}
        with one_thread():
            for fn in fns.values():
                fn()
            for _ in range(rounds):
                for k, fn in fns.items():
                    times[k].append(per_call(fn, calls))
        med = {k: float(np.median(v)) for k, v in times.items()}
        ratio = {k: float(np.median(np.array(times[k]) / np.array(times["aba"]))) for k in fns}
        rows.append([str(n), fmt_time(med[("kane", "1")]), fmt_time(med[("lagrange", "1")]),
                     fmt_time(med[("kane", "0")]), fmt_time(med["aba"]), fmt_time(med["mj_forward"]),
                     f"{ratio[('kane', '1')]:.1f}×", f"{ratio[('lagrange', '1')]:.1f}×", f"{ratio[('kane', '0')]:.1f}×",
                     f"{ratio['mj_forward']:.1f}×"])
        print("  rhs", rows[-1], flush=True)
    return rows


def eomlab_simulation(n: int, t_end: float, tol: float, wall_budget: float = WALL_BUDGET):
    """One kane DOP853 run to t_end (or the budget), samples every 10 ms, and its max relative energy drift."""
    sim = Simulation(chain_model(n), method="kane", integrator="DOP853", rtol=tol, atol=tol, t_end=t_end, dt_out=0.01)
    sim.advance(t_end, wall_budget=wall_budget)
    return sim, float(np.max(sim.relative_energy_drift(sim.samples()[:, sim.column_index("E")])))


def eomlab_run(n: int, t_end: float, tol: float):
    """(wall seconds, relative energy drift, finished) of one kane DOP853 run, samples every 10 ms."""
    sim, drift = eomlab_simulation(n, t_end, tol)
    return sim.wall_time, drift, sim.t >= t_end and sim.failure is None


def eomlab_at_bound(n: int, t_end: float):
    """(rtol, wall, drift, why not) of the loosest tolerance 1e-7 … 1e-13 meeting the bound (rtol None: not met)."""
    drift = float("nan")
    for k in range(7, 14):
        wall, drift, finished = eomlab_run(n, t_end, 10.0 ** -k)
        if not finished:  # over the budget: tighter tolerances only cost more
            return None, float("nan"), drift, f"over the {WALL_BUDGET:g} s budget at rtol 1e-{k}"
        if drift <= DRIFT_BOUND:
            return 10.0 ** -k, wall, drift, ""
    return None, float("nan"), drift, "not met"


def mujoco_run(n: int, t_end: float, step: float):
    """(wall seconds, relative energy drift) of MuJoCo RK4 at `step`, energy every 10 ms."""
    mujoco, m, d = mujoco_chain(n)
    m.opt.timestep = step
    mujoco.mj_forward(m, d)
    E0, scale = sum(d.energy), max(abs(sum(d.energy)), d.energy[1] + abs(d.energy[0]), 1e-12)
    steps = int(round(t_end / step))
    every = max(1, int(round(0.01 / step)))
    drift = 0.0
    t0 = time.perf_counter()
    for i in range(steps):
        mujoco.mj_step(m, d)
        if i % every == every - 1:  # after mj_step d.energy is an RK4 stage's: recompute at the state
            mujoco.mj_forward(m, d)
            drift = max(drift, abs(sum(d.energy) - E0) / scale)
        if not drift < 1.0:  # unstable at this step (NaN or blown up)
            return time.perf_counter() - t0, float("inf")
    return time.perf_counter() - t0, drift


def mujoco_at_bound(n: int, t_end: float):
    """(step, wall, drift) of MuJoCo RK4's largest step 10 ms / 2^k meeting the bound."""
    drift = float("nan")
    for k in range(0, 14):
        wall, drift = mujoco_run(n, t_end, 0.01 / 2**k)
        if drift <= DRIFT_BOUND:
            return 0.01 / 2**k, wall, drift
    return None, float("nan"), drift


def accuracy_section(sizes, t_end: float, rounds: int) -> list[list[str]]:
    """Each side's setting found by its search, then `rounds` interleaved timings at those settings
    (the first is the search's own); the ratio is taken inside each round."""
    rows = []
    for n in sizes:
        with one_thread():
            os.environ[FAST_PATH_VARIABLE] = "0"
            tol_n, wall_n, drift_n, why_n = eomlab_at_bound(n, t_end)
            os.environ[FAST_PATH_VARIABLE] = "1"
            tol_f, wall_f, drift_f, why_f = eomlab_at_bound(n, t_end)
            step, wall_m, drift_m = mujoco_at_bound(n, t_end)
            walls_f, walls_m = [wall_f], [wall_m]
            for _ in range(rounds - 1 if tol_f and step else 0):
                walls_f.append(eomlab_run(n, t_end, tol_f)[0])
                walls_m.append(mujoco_run(n, t_end, step)[0])
            os.environ.pop(FAST_PATH_VARIABLE)
        rate_f, rate_m = t_end / np.median(walls_f), t_end / np.median(walls_m)
        ratio = float(np.median(np.array(walls_m) / np.array(walls_f)))
        rows.append([str(n), f"{rate_f:.3g} (rtol {tol_f:g}, {drift_f:.1e})" if tol_f else f"{why_f} (last drift {drift_f:.1e})",
                     f"{t_end / wall_n:.3g} (rtol {tol_n:g}, {drift_n:.1e})" if tol_n else f"{why_n} (last drift {drift_n:.1e})",
                     f"{rate_m:.3g} (dt {step * 1e3:.3g} ms, {drift_m:.1e})" if step else "not met",
                     f"{ratio:.2g}×" if tol_f and step else "–"])
        print("  accuracy", rows[-1], flush=True)
    return rows


def big_chain_section(n: int, t_end: float) -> list[list[str]]:
    rows = []
    for method in ("kane", "lagrange"):
        with one_thread():
            sim = Simulation(chain_model(n), method=method, integrator="DOP853", rtol=1e-8, atol=1e-8, t_end=t_end)
            sim.advance(t_end)
        st = sim.stats
        rows.append([str(n), method, st["dynamics_path"], f"{sim.t:g} s", f"{sim.wall_time:.2f} s",
                     f"{sim.t / sim.wall_time:.2f}", str(st["steps"]), str(st["rhs_evals"])])
        print("  big chain", rows[-1], flush=True)
    return rows


def energy_round_off(n: int) -> float:
    """|E(pinocchio) − E(numpy path)| / |E| at a state of the run (0.3 rad per joint, speeds of 1 rad/s):
    the noise the sampled energy itself carries, far below the bound if the drift has no floor there."""
    sim = Simulation(chain_model(n), method="kane")
    system = sim.formulation.system
    q, u = np.full(n, 0.3), np.linspace(-1.0, 1.0, n)
    T, V, _ = system.energy_and_centres(q, u)
    T_ref, V_ref = system.energy_at(system.kin.evaluate(q, u), q, u)
    return abs((T + V) - (T_ref + V_ref)) / abs(T_ref + V_ref)


def drift_floor_section(n: int, t_end: float) -> tuple[list[list[str]], str]:
    """One run per tolerance in FINE_TOLERANCES on the compiled path, all of them (a floor would show
    as the drift ceasing to fall); the summary names the loosest meeting FINE_DRIFT_BOUND."""
    rows, loosest = [], None
    with one_thread():
        os.environ[FAST_PATH_VARIABLE] = "1"
        for tol in FINE_TOLERANCES:
            sim, drift = eomlab_simulation(n, t_end, tol, wall_budget=4 * WALL_BUDGET)
            met = drift <= FINE_DRIFT_BOUND and sim.t >= t_end and sim.failure is None
            loosest = loosest or (tol if met else None)
            rows.append([f"{tol:g}", f"{drift:.2e}", "yes" if met else "no", f"{sim.t / sim.wall_time:.3g}",
                         str(sim.stats["rhs_evals"]), f"{sim.t:g} s"])
            print("  drift floor", rows[-1], flush=True)
        os.environ.pop(FAST_PATH_VARIABLE)
        noise = energy_round_off(n)
    summary = (f"loosest rtol = atol meeting {FINE_DRIFT_BOUND:g}: {loosest:g}" if loosest else
               f"{FINE_DRIFT_BOUND:g} not met down to rtol {FINE_TOLERANCES[-1]:g}")
    return rows, f"{summary}; round-off of one sampled E (pinocchio vs numpy path): {noise:.1e}"


FIRST_STEP = """
import time, sys
t0 = time.perf_counter()
from eomlab.engine.modelfile import load_model
from eomlab.engine.simulation import Simulation
from eomlab.engine.compiled.compiled_step import wait_until_compiled
t1 = time.perf_counter()
sim = Simulation(load_model(sys.argv[1]), method="kane", integrator="DOP853", rtol=1e-8, atol=1e-8, t_end=1.0)
sim.stepper.step()
t2 = time.perf_counter()
ready = time.perf_counter() - t0 if sim.formulation.compiled_step and wait_until_compiled() else float("nan")
print(t1 - t0, t2 - t1, ready, sim.formulation.system.dynamics_path)
"""


def first_step_section(sizes, repeats: int) -> list[list[str]]:
    """Fresh processes; on the fast path the first one with an empty numba cache (a fresh install),
    the rest with the cache it left. The compiled step is ready when its background compile ends."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"chain{n}.eom.json")
            save_model(chain_model(n), path)
            for fast in ("1", "0"):
                env = dict(os.environ, PYTHONPATH=ROOT, **{FAST_PATH_VARIABLE: fast},
                           NUMBA_CACHE_DIR=os.path.join(tmp, f"numba-cache-{n}"))
                runs = []
                for _ in range(repeats + 1):
                    out = subprocess.run([sys.executable, "-c", FIRST_STEP, path], env=env, capture_output=True,
                                         text=True, check=True).stdout.split(maxsplit=3)
                    runs.append((float(out[0]), float(out[1]), float(out[2]), out[3].strip()))
                imports, step, ready, label = min(runs[1:], key=lambda r: r[1])
                rows.append([str(n), label, fmt_time(step), fmt_time(imports), fmt_time(runs[0][0] + runs[0][1]),
                             f"{fmt_time(runs[0][2])} / {fmt_time(ready)}"])
                print("  first step", rows[-1], flush=True)
    return rows


# --- the compiled DOP853 step (engine.compiled.compiled_step) against scipy's Python step ----------------

STEP_CASES = ((10, 1e-9, 10.0), (50, 1e-9, 10.0), (200, 1e-8, 3.0))  # n, rtol = atol, simulated seconds
STEP_BEGIN, STEP_END = "<!-- bench_compiled step: begin -->", "<!-- bench_compiled step: end -->"


def step_run(n: int, tol: float, t_end: float, compiled: bool):
    """(wall s, CPU s, steps, RHS) of one kane DOP853 run, samples every 10 ms, numba's kernels on or off."""
    sim = Simulation(chain_model(n), method="kane", integrator="DOP853", rtol=tol, atol=tol, t_end=t_end, dt_out=0.01)
    if not compiled:  # neither the step nor the samples' energies from numba: the run as before it
        sim.formulation.compiled_step = None
        sim.formulation.system.tree_backend._flat_sampling = None
    cpu = time.process_time()
    sim.advance(t_end)
    cpu = time.process_time() - cpu
    assert sim.failure is None and (sim.formulation.compiled_step is None or sim.formulation.compiled_step.steps)
    return sim.wall_time, cpu, sim.stats["steps"], sim.stats["rhs_evals"]


def compiled_step_section(rounds: int, quick: bool) -> list[list[str]]:
    """Simulated seconds per wall second with and without the compiled step, interleaved; the
    speed-up is the median of the per-round ratios; CPU per RHS counts everything (samples too)."""
    from eomlab.engine.compiled.compiled_step import wait_until_compiled

    if wait_until_compiled() is None:
        raise SystemExit("the compiled step needs numba: pip install 'eomlab[fast]'")
    rows = []
    for n, tol, t_end in STEP_CASES:
        t_end = min(t_end, 3.0) if quick else t_end
        on, off = [], []
        with one_thread():
            for _ in range(rounds):
                on.append(step_run(n, tol, t_end, True))
                off.append(step_run(n, tol, t_end, False))
        ratio = np.median([b[0] / a[0] for a, b in zip(on, off)])
        wall = [float(np.median([r[0] for r in runs])) for runs in (on, off)]
        per_rhs = [float(np.median([r[1] / r[3] for r in runs])) for runs in (on, off)]
        rows.append([str(n), f"{tol:g}", f"{t_end:g} s", f"{t_end / wall[0]:.2f}", f"{t_end / wall[1]:.2f}",
                     f"{ratio:.2f}×", fmt_time(per_rhs[0]), fmt_time(per_rhs[1]),
                     f"{on[0][2]} / {off[0][2]}", f"{on[0][3]} / {off[0][3]}"])
        print("  compiled step", rows[-1], flush=True)
    return rows


def render_step(rows, first, rounds: int, args) -> str:
    load = os.getloadavg()
    return "\n".join([
        STEP_BEGIN, "### Compiled DOP853 step and file to first step (bench_compiled.py --step)", "",
        f"Load average at the end: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (`uptime`, 2 cores shared). Planar "
        "chains of uniform rods, 0.5 rad per joint, at rest; kane, DOP853, samples every 10 ms (their cost included); "
        f"numba's step against scipy's Python step (both on pinocchio's path), {rounds} interleaved rounds, medians; "
        "the speed-up is the median of the per-round ratios; CPU per RHS is the run's CPU time over its right-hand "
        "sides (the chain is chaotic: over 10 s the two take slightly different steps):", "",
        table(["n", "rtol = atol", "simulated", "real-time factor, compiled step", "real-time factor, scipy's step",
               "speed-up", "CPU per RHS, compiled", "CPU per RHS, scipy's", "steps (compiled / scipy)",
               "RHS (compiled / scipy)"], rows), "",
        "File to first step in a fresh process (load_model + Simulation + one DOP853 step; best of "
        f"{args.repeats} with numba's cache warm; \"first\" is the first process, imports included, with an empty "
        "numba cache as after an install: numba compiles in a background thread while scipy's step runs, so the "
        "first step does not wait for it; the last column is when the compiled step takes over):", "",
        table(["n", "path", "file to first step", "imports", "first process, all in",
               "compiled step ready since start (cold numba cache / warm)"], first), STEP_END])


def _replace_block(text: str, begin: str, end: str, block: str) -> str:
    if begin in text:
        head, rest = text.split(begin, 1)
        return head + block + rest.split(end, 1)[1]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def render(rhs, accuracy, big, drift, args) -> str:
    load = os.getloadavg()
    out = [MARK_BEGIN, "### Compiled tree path (bench_compiled.py)", "",
           f"Load average at the end: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (`uptime`, 2 cores shared). "
           "Planar chains of uniform rods, 0.5 rad per joint, at rest; BLAS limited to one thread.", "",
           f"One right-hand side (process CPU time), medians of {args.rounds} interleaved rounds; ratios to pinocchio `aba` taken "
           "inside each round:", "",
           table(["n", "kane (pinocchio path)", "lagrange (pinocchio path)", "kane (numpy path)", "pinocchio aba",
                  "MuJoCo mj_forward", "kane / aba", "lagrange / aba", "numpy kane / aba", "mj_forward / aba"], rhs), "",
           f"Equal accuracy: simulated seconds per wall second at max |E − E₀|/|E₀| ≤ {DRIFT_BOUND:g} over "
           f"{args.t_end:g} s (kane, DOP853, samples every 10 ms, their cost included; MuJoCo RK4 stepped from Python, "
           "energy recomputed by mj_forward every 10 ms, as eomlab samples). Each side's setting comes from its own "
           f"search, then {args.accuracy_rounds} interleaved timings; the ratio (simulated seconds per wall second, "
           "pinocchio path over MuJoCo) is the median of the per-round ratios; the numpy path is timed once:", "",
           table(["n", "eomlab, pinocchio path", "eomlab, numpy path", "MuJoCo RK4", "pinocchio path / MuJoCo"], accuracy),
           "", "Large chain at rtol = atol = 1e-8 (DOP853, samples every 10 ms):", "",
           table(["n", "method", "path", "simulated", "wall", "real-time factor", "steps", "RHS"], big), "",
           f"Drift floor at n = 50 on the pinocchio path: max |E − E₀|/|E₀| over {args.t_end:g} s (kane, DOP853, "
           "samples every 10 ms) for each rtol = atol, every one run (a floor would show as the drift ceasing to "
           f"fall); {drift[1]}:", "",
           table(["rtol = atol", "max relative drift", f"≤ {FINE_DRIFT_BOUND:g}", "simulated s per wall s", "RHS",
                  "simulated"], drift[0]), MARK_END]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--step", action="store_true", help="sections 4 and 6 alone (file to first step, the "
                        "compiled DOP853 step)")
    parser.add_argument("--write", action="store_true", help="replace this section in bench/README.md")
    args = parser.parse_args(argv)
    args.rounds, args.t_end, args.repeats = (5, 10.0, 2) if args.quick else (15, 10.0, 3)
    args.accuracy_rounds = 1 if args.quick else 3
    step_rounds = 1 if args.quick else 3
    blocks = []
    if not args.step:
        print("section 1: one right-hand side", flush=True)
        rhs = rhs_section((2, 10, 50, 100), args.rounds)
        print("section 2: equal accuracy", flush=True)
        accuracy = accuracy_section((10, 50), args.t_end, args.accuracy_rounds)
        print("section 3: 200 links", flush=True)
        big = big_chain_section(200, 2.0 if args.quick else 5.0)
        print("section 5: drift floor at n = 50", flush=True)
        drift = drift_floor_section(50, args.t_end)
        blocks.append((MARK_BEGIN, MARK_END, render(rhs, accuracy, big, drift, args)))
    print("section 4: file to first step", flush=True)
    first = first_step_section((10, 100), args.repeats)
    print("section 6: the compiled DOP853 step", flush=True)
    step = compiled_step_section(step_rounds, args.quick)
    blocks.append((STEP_BEGIN, STEP_END, render_step(step, first, step_rounds, args)))
    for _, _, text in blocks:
        print(text)
    if args.write:
        readme = os.path.join(HERE, "README.md")
        with open(readme, encoding="utf-8") as fh:
            new = fh.read()
        for begin, end, text in blocks:
            new = _replace_block(new, begin, end, text)
        with open(readme, "w", encoding="utf-8") as fh:
            fh.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
