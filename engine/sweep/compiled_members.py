"""Sweep members on the compiled step: each member's whole run in one numba call (engine.compiled.sweep_kernels),
one member after another.

It takes every model the compiled free-tree step of a single run takes (engine.compiled.compiled_step: joint
coordinates, no constraint rows, no force elements, no limits or contacts, a tree that flattens, one revolute or
prismatic joint per speed, no armature; any formulation, as they all reduce to the tree's ODE there), with
DOP853, and the measures the kernel measures (final, flip_time, over_top, energy_drift, constraint_drift — zero
without rows —, rhs_evals, wall_time); expressions (end:, max:) keep the other paths. A planar tree runs on the kernel's planar
form of the same ODE (sweep_kernels.planar_tree), any other on the general ABA.

When every measure of the sweep is a crossing (flip_time, over_top), a member stops at its last crossing: the
crossing is fixed from then on, so the columns are those of the run to t_end (bit for bit: the same steps up
to there), and the members of a flip map that flip skip the rest of their run. A failure after the last crossing (a blow-up, a collapsed step) is then not met, so its `failure` stays empty;
add any other measure to run every member to t_end.

The kernels compile in the thread engine.compiled.compiled_step starts (or load from numba's disk cache); a
chunk with members for this path waits for them (`kernels`): compiled once per process, they then run a
member in a fraction of the time the numpy batched path takes, and with the disk cache loading takes about
a second, far less than the chunk itself. Without numba the members keep the numpy batched or single path.
"""
from __future__ import annotations

import time

import numpy as np
from scipy.integrate import DOP853

from eomlab.engine.compiled.compiled_step import call_kernel
from eomlab.engine.model import Model
from eomlab.engine.sweep.integrator import BLOW_UP, TINY_STEP, TINY_STEPS_IN_A_ROW
from eomlab.engine.sweep.measures import CROSSINGS, Measurements

#: the measures the kernel measures along a run (the others: numpy batched or single runs)
COMPILED_MEASURES = ("final", "flip_time", "over_top", "energy_drift", "constraint_drift", "rhs_evals", "wall_time")
#: each outcome of sweep_kernels.run_member in words (engine.sweep.integrator's)
_WHY = {
    1: "the equations of motion are NaN or infinite at the start (singular mass matrix?)",
    2: "the step size collapsed (required step size is less than spacing between numbers)",
    3: "the equations of motion stay NaN or infinite however short the step",
    4: "the state became NaN or infinite",
    5: f"the state exceeds {BLOW_UP:.0e} (the motion blew up)",
    6: f"the step size collapsed ({TINY_STEPS_IN_A_ROW} steps in a row shorter than {TINY_STEP:g} s)",
}


def kernels(wait: bool = True):
    """engine.compiled.sweep_kernels once compiled in this process (after waiting for the compiling thread
    when `wait`), or None: numba not installed, or the compiled path switched off."""
    from eomlab.engine.compiled.compiled_step import compiled_sweep, numba_installed, wait_until_compiled
    from eomlab.engine.compiled.tree_backend import fast_path_wanted

    if not numba_installed() or not fast_path_wanted():
        return None
    if wait:
        wait_until_compiled(sweep=True)
    return compiled_sweep()


class FlatTrees:
    """Each model's FlatTree (or why it has none), built once per model of the chunk: members that differ
    in initial state, settings or tolerances share their model's bodies."""

    def __init__(self):
        self._trees: dict[int, tuple] = {}

    def of(self, model: Model):
        """(the flat tree as the kernels take it, or None; why not)."""
        entry = self._trees.get(id(model.bodies))
        if entry is None or entry[0] is not model.bodies:
            entry = (model.bodies, *_flat_tree(model))
            self._trees[id(model.bodies)] = entry
        return entry[1], entry[2]


def _flat_tree(model: Model):
    if model.constraints or model.contacts:
        return None, "constraints or contacts (the compiled sweep runs free trees)"
    if model.forces:
        return None, "force elements (the compiled step runs trees without them)"
    from eomlab.engine.mechanics.system import MechanicalSystem
    from eomlab.engine.unilateral import Unilateral

    if Unilateral.of(model) is not None:
        return None, "joint limits (the compiled sweep runs free trees)"
    system = MechanicalSystem(model)
    backend = system.tree_backend
    tree = backend.flat_tree() if backend is not None and system.constraints is None and not system.forces else None
    if tree is None:
        return None, f"a tree the compiled step does not take ({system.dynamics_path})"
    return tuple(tree), None


def compiled_reason(model: Model, measures, trees: FlatTrees) -> str | None:
    """Why this member does not run on the compiled step (None: it does)."""
    s = model.settings
    if s.integrator != "DOP853":
        return f"integrator {s.integrator}"
    if s.coordinates != "joint":
        return f"coordinates {s.coordinates!r}"
    for m in measures:
        if m.kind not in COMPILED_MEASURES:
            return f"measure {m.text}"
    return trees.of(model)[1]


def run_compiled(sweep, group, trees: FlatTrees, kern):
    """Columns and failures of these members (engine.sweep.members.Member), run one after another."""
    meas = Measurements(group[0].model, sweep.measures, len(group))
    size = len(group)
    chain = np.array([c for m in meas.flips for c in m.chain], dtype=np.int64)
    chain_start = np.cumsum([0, *(len(m.chain) for m in meas.flips)]).astype(np.int64)
    offsets = np.array([m.offset for m in meas.flips], dtype=float)
    t_final, y_final = np.zeros(size), np.zeros((size, len(meas.names)))
    evaluations, walls = np.zeros(size, dtype=np.int64), np.zeros(size)
    failures: list[str | None] = [None] * size
    crossing = np.empty(len(meas.flips))
    exponent = -1.0 / (DOP853.error_estimator_order + 1)
    # a crossing is fixed once found: when every measure is one, a member stops at its last (a terminal event)
    until_crossed = bool(meas.flips) and all(m.kind in CROSSINGS for m in sweep.measures)
    for b, member in enumerate(group):
        started = time.perf_counter()
        s = member.model.settings
        y0 = np.concatenate((member.q0, member.u0)).astype(float)
        outcome, t, y, evaluations[b], _, drift = call_kernel(  # a Ctrl+C in it: KeyboardInterrupt
            kern.run_sweep_member, trees.of(member.model)[0], y0, float(sweep.t_end), float(s.rtol), float(s.atol),
            float(s.dt_out), DOP853.A, DOP853.B, DOP853.E3, DOP853.E5, exponent, chain, chain_start, offsets,
            meas.wants_energy, until_crossed, crossing)
        t_final[b], y_final[b] = t, y
        meas.flip_time[b] = crossing
        meas.energy_drift[b] = drift
        if outcome:
            failures[b] = f"run stopped at t = {t:.6g} s: {_WHY[outcome]}"
        walls[b] = time.perf_counter() - started
    ok = np.array([f is None for f in failures])
    return meas.columns(t_final, y_final, ok, evaluations, walls), failures

