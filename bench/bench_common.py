"""What every benchmark section shares: the configuration, the chain models, a busy core, timing,
formatting and the machine description."""
import atexit
import contextlib
import math
import os
import platform
import subprocess
import sys
import time
import timeit
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_info

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from eomlab.engine.blas_threads import one_blas_thread  # noqa: E402
from eomlab.engine.methods import METHODS  # noqa: E402, F401  (bench_constrained runs each)
from eomlab.engine.presets import preset  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402

ANGLE = 0.5  # rad, every joint of the chains
# inspecting the loaded BLAS libraries takes about a millisecond: do it once, then limiting is cheap
BLAS = ThreadpoolController()


def one_thread():
    """BLAS limited to one thread, as Simulation.advance runs: the engine's own limit, which also reaches
    scipy.linalg's OpenBLAS when it loads after BLAS above was inspected (BLAS.limit did not: its threads
    spun beside every call, user CPU 27 s in 15 s of bench_constrained and bimodal 6/28 µs figures)."""
    return one_blas_thread()

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
