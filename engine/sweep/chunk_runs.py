"""Run one chunk of a sweep: on the compiled step, batched, or as single runs, per member.

The compiled path (engine.sweep.compiled_members: each member's run in one numba call) takes the free trees the
compiled step of a single run takes, with DOP853 and the measures it measures; its engine column says
"compiled". Of the others, the batched path serves planar trees of revolute joints about z in joint coordinates with no
constraints (any formulation: there they all reduce to one ODE, see `engine.sweep.batched_chains`), with
DOP853 or RK45. Members sharing a tree advance together whatever their parameters, initial state
and tolerances. Every other run is a single run of `engine.simulation.Simulation`, and the chunk
says why in its notes.
"""
from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from eomlab.engine.blas_threads import one_blas_thread
from eomlab.engine.model import ModelError

from eomlab.engine.sweep.compiled_members import FlatTrees, compiled_reason, kernels, run_compiled
from eomlab.engine.sweep.integrator import BATCHED_INTEGRATORS, BatchedRungeKutta
from eomlab.engine.sweep.measures import Measurements
from eomlab.engine.sweep.members import RUN_COLUMNS, Member, members, with_initial_state
from eomlab.engine.sweep.batched_chains import PlanarChains, structure_key, unsupported_reason


def batched_reason(model) -> str | None:
    """Why `model` (settings included) runs singly, or None when the batched path takes it."""
    if model.settings.integrator not in BATCHED_INTEGRATORS:
        return f"integrator {model.settings.integrator} (batched: {', '.join(BATCHED_INTEGRATORS)})"
    return unsupported_reason(model)


def run_chunk(sweep, start: int, stop: int, batched: bool = True, compiled: bool = True) -> tuple[dict, dict[str, int]]:
    """Columns of runs start … stop−1 (in run order), and how many ran singly for which reason.
    `batched` False: every run a single run; `compiled` False: no member on the compiled step."""
    table = sweep.run_table(start, stop)
    runs, reasons = members(sweep, table)
    n = len(runs)
    engine = ["none"] * n
    results: dict[str, np.ndarray] = {}
    groups: dict[tuple, list[int]] = defaultdict(list)
    singles: list[int] = []
    on_compiled: list[int] = []
    fallback: dict[str, int] = defaultdict(int)
    trees = FlatTrees()
    takes = {i for i, m in enumerate(runs) if batched and compiled and m is not None
             and compiled_reason(m.model, sweep.measures, trees) is None}
    kern = kernels() if takes else None  # waits for the compiling thread only when a member needs it
    for i, m in enumerate(runs):
        if m is None:
            continue
        if kern is not None and i in takes:
            on_compiled.append(i)
            continue
        why = batched_reason(m.model) if batched else "batching turned off"
        if why is None:
            groups[(structure_key(m.model), m.model.settings.integrator)].append(i)
        else:
            singles.append(i)
            fallback[why] += 1
    with one_blas_thread():  # small matrices: BLAS threads only cost
        if on_compiled:
            _store(results, on_compiled, n, *run_compiled(sweep, [runs[i] for i in on_compiled], trees, kern))
            for i in on_compiled:
                engine[i] = "compiled"
        for (_, integrator), idx in groups.items():
            _store(results, idx, n, *_run_batched(sweep, [runs[i] for i in idx], integrator))
            for i in idx:
                engine[i] = "batched"
        for i in singles:
            columns, why = _run_single(sweep, runs[i])
            _store(results, [i], n, columns, [why])
            engine[i] = "single"
    for i, why in enumerate(reasons):
        if why:
            _store(results, [i], n, _nan_columns(sweep), [why])
    out = {"run": table["run"]}
    for v in sweep.varies:
        out[v.name] = table[v.name]
    for col in sweep.columns:
        if col in results and col not in RUN_COLUMNS:
            out[col] = results[col]
    out["engine"] = np.array(engine, dtype=object)
    out["failure"] = results.get("failure", np.array([""] * n, dtype=object))
    return out, dict(fallback)


def describe_fallbacks(counts: dict[str, int]) -> list[str]:
    """One line per reason the batched path could not take runs, with how many."""
    return [f"{n} run{'s' if n > 1 else ''} as single runs: {why}" for why, n in counts.items()]


def _store(results: dict, idx, n: int, columns: dict, failures) -> None:
    for name, values in columns.items():
        if name not in results:
            dtype = np.int64 if np.asarray(values).dtype.kind in "iu" else float
            results[name] = np.full(n, -1 if dtype is np.int64 else np.nan, dtype=dtype)
        results[name][idx] = values
    if "failure" not in results:
        results["failure"] = np.array([""] * n, dtype=object)
    for i, why in zip(idx, failures):
        results["failure"][i] = why or ""


def _nan_columns(sweep) -> dict:
    skip = {"run", "engine", "failure", *(v.name for v in sweep.varies)}
    return {c: np.array([np.nan]) for c in sweep.columns if c not in skip}


def _run_batched(sweep, group: list[Member], integrator: str):
    started = time.perf_counter()
    models = [m.model for m in group]
    chains = PlanarChains(models)
    y0 = np.array([np.concatenate((m.q0, m.u0)) for m in group])
    meas = Measurements(models[0], sweep.measures, len(group))
    everyone = np.arange(len(group))
    with np.errstate(all="ignore"):
        meas.start(everyone, y0, energy=chains.energy)

    def observe(idx, t0, y_0, f0, t1, y1, f1):
        meas.step(idx, t0, y_0, f0, t1, y1, f1, energy=chains.energy)

    rtol = np.array([m.model.settings.rtol for m in group])
    atol = np.array([m.model.settings.atol for m in group])
    stepper = BatchedRungeKutta(integrator, chains.derivative, y0, sweep.t_end, rtol, atol, observer=observe,
                                dt_out=models[0].settings.dt_out)
    stepper.run()
    ok = np.array([f is None for f in stepper.failure])
    wall = (time.perf_counter() - started) / len(group)
    columns = meas.columns(stepper.t, stepper.y, ok, stepper.rhs_evals, np.full(len(group), wall))
    return columns, stepper.failure


def _run_single(sweep, member: Member):
    from eomlab.engine.simulation import Simulation

    started = time.perf_counter()
    meas = Measurements(member.model, sweep.measures, 1)
    try:
        sim = Simulation(with_initial_state(member.model, member.q0, member.u0))
        rows = sim.run()
    except ModelError as err:
        return _nan_columns(sweep), f"refused: {err.one_line()}"
    meas.from_samples(0, sim.columns, rows, sim.relative_energy_drift)
    last = rows[-1]
    index = {c: i for i, c in enumerate(sim.columns)}
    y = np.array([[last[index[c]] if c in index else np.nan for c in meas.names]])
    ok = np.array([sim.failure is None])
    wall = time.perf_counter() - started
    columns = meas.columns(np.array([last[0]]), y, ok, [sim.stats["rhs_evals"]], [wall])
    return columns, sim.failure
