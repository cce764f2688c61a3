"""The compiled DOP853 step of a free tree: every stage of a step in one numba call, for the formulations whose
right-hand side is pinocchio's ABA bound to y (no constraint rows, no force elements): engine.compiled.numba_kernels
for one revolute or prismatic joint per speed in eomlab's order, engine.compiled.floating_kernels for the rest
(spherical and free joints in Euler parameters, armature, speeds permuted to depth-first order).

Why: with the stages in Python about half of each right-hand side is scipy's per-stage work and our
wrappers rather than pinocchio's `aba`, which caps a long chain's pace; compiled, a stage costs the
ABA arithmetic alone (bench/README.md, "Compiled DOP853 step").

numba is optional (`pip install 'eomlab[fast]'`): importing it and compiling (or loading the
kernels from numba's on-disk cache) takes from half a second to several, so it happens in a daemon
thread started after the first step that could use it; until it is ready, and for any step taken
while a force element acts (a pull or push, the model's springs and efforts), the solver takes
scipy's own Python step. A step whose
kernel meets a NaN or inf is taken again by scipy's step, whose right-hand side names the cause.
The solver that takes the steps (CompiledDOP853, a scipy DOP853) is in engine.compiled.compiled_dop853,
so that building a formulation does not import scipy.integrate; only building a stepper does.
"""
from __future__ import annotations

import importlib.util
import os
import threading
import time
from contextlib import contextmanager

import numpy as np

from eomlab.engine.compiled.kernel_cache import (cache_by_source, cache_complete, lock_path, mark_complete,
                                                prune_other_caches)

#: the words stats["dynamics_path"] adds once the compiled step ran
COMPILED_STEP_PATH = "numba DOP853 step"

_lock = threading.Lock()
_loading = {"pid": None, "kernels": None, "constrained": None, "floating": None, "sweep": None, "error": None,
            "thread": None, "busy": False}


def numba_installed() -> bool:
    try:
        return importlib.util.find_spec("numba") is not None
    except ValueError:  # an entry of None in sys.modules (an import switched off)
        return False


def start_compiling() -> None:
    """Compile (or load from the cache) the kernels in a daemon thread, once per process (a forked
    child whose parent had them compiled inherits them; one forked mid-way starts again)."""
    with _lock:
        if _loading["kernels"] is not None or _loading["pid"] == os.getpid():
            return
        thread = threading.Thread(target=_compile, name="eomlab-numba-compile", daemon=True)
        _loading.update(pid=os.getpid(), error=None, thread=thread, busy=True)
    thread.start()


def share_with_loading(seconds: float) -> None:
    """Wait up to `seconds` for the thread loading the kernels, while it loads. The stepping thread
    holds the GIL through pinocchio's calls, and the loader, which gives the GIL up at each of its
    hundreds of file reads, got it back so seldom beside a long chain that loading took many times
    longer than alone. A step that waits as long as it took gives the loader half the time."""
    thread = _loading["thread"]
    if _loading["busy"] and thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join(seconds)


def _compile() -> None:
    # numba colours its messages through colorama, which swaps sys.stdout and sys.stderr process-wide while it
    # formats one; from this thread that swap undoes the main thread's own redirection of the streams
    os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
    try:
        import numba

        if numba.config.DISABLE_JIT:  # the kernels would run as Python loops, far slower than scipy's step
            raise RuntimeError("NUMBA_DISABLE_JIT is set")
        cache_by_source(numba)
        with _one_process_at_a_time():
            from eomlab.engine.compiled import numba_kernels

            _warm_up(numba_kernels)
            _loading.update(kernels=numba_kernels)
            from eomlab.engine.compiled import constrained_kernels

            _warm_up_constrained(constrained_kernels)
            _loading.update(constrained=constrained_kernels)
            from eomlab.engine.compiled import floating_kernels

            _warm_up_floating(floating_kernels)
            _loading.update(floating=floating_kernels)
    except Exception as err:  # noqa: BLE001 - numba's errors are many; the Python step stays
        _loading.update(error=f"{type(err).__name__}: {err}", busy=False)
        return
    try:  # the sweep's last: no single run waits for it
        with _one_process_at_a_time():
            from eomlab.engine.compiled import sweep_kernels

            _warm_up_sweep(sweep_kernels)
    except Exception as err:  # noqa: BLE001 - the sweep's other paths stay
        _loading.update(error=f"sweep kernel: {type(err).__name__}: {err}", busy=False)
        return
    _loading.update(sweep=sweep_kernels, busy=False)
    mark_complete(numba)
    prune_other_caches(numba)


def load_cached_kernels(timeout: float) -> bool:
    """Every kernel loaded into this process from numba's cache, waiting up to `timeout` s, when the cache holds
    them all (a complete load marked it): a process that forks runs (the window) calls it so that they inherit
    the kernels instead of each loading them again (~1.3 CPU s and ~150 MB a run process, five at once in
    compare mode). Never compiles: False, and nothing started, when the cache is not complete or numba is
    missing; True once every kernel is loaded. PREFETCH["outcome"] says which."""
    if _loading["sweep"] is not None:
        PREFETCH["outcome"] = "loaded"
        return True
    if not numba_installed():
        PREFETCH["outcome"] = "no numba"
        return False
    import numba

    cache_by_source(numba)
    if not cache_complete(numba):
        PREFETCH["outcome"] = "cache not complete"
        return False
    start_compiling()  # a complete cache loads without the compile lock: no other process can hold this one up
    thread = _loading["thread"]
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)
    loaded = _loading["sweep"] is not None
    PREFETCH["outcome"] = "loaded" if loaded else ("failed" if _loading["error"] else "timed out")
    return loaded


#: what the last load_cached_kernels did: "loaded", "no numba", "cache not complete", "failed" or "timed out"
PREFETCH = {"outcome": None}


@contextmanager
def _one_process_at_a_time():
    """Compile in one process at a time (a file lock): the window's runs in compare mode start five
    processes at once, and with an empty cache each would compile for ~10 s on the same two cores;
    the later ones wait, then load what the first cached."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    import numba

    if cache_complete(numba):  # loading only reads the cache: processes need not take turns
        yield
        return
    with open(lock_path(numba), "a") as lock:
        _loading["busy"] = False  # waiting for another process: nothing to share the time with
        fcntl.flock(lock, fcntl.LOCK_EX)
        _loading["busy"] = True
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def compiled_kernels():
    """engine.compiled.numba_kernels once compiled in this process, else None."""
    return _loading["kernels"]


def call_kernel(kernel, *args):
    """`kernel(*args)`, a compiled kernel's call, with a Ctrl+C during it raised as KeyboardInterrupt.
    A compiled call runs some Python of numba's (it unpickles the kernel's constants); a SIGINT that
    lands there comes out as a SystemError caused by the KeyboardInterrupt, which `eomlab run` and
    scripts would report as a crash instead of an interruption (seen under load: 4 Ctrl+C in 8)."""
    try:
        return kernel(*args)
    except SystemError as err:
        cause = err.__cause__
        while cause is not None and not isinstance(cause, KeyboardInterrupt):
            cause = cause.__cause__
        if cause is not None:
            raise KeyboardInterrupt from None
        raise


def finish_loading(timeout: float | None = None) -> None:
    """Wait until this process's loading thread has ended: it marks the cache complete after the sweep's kernels,
    so a process that exits as soon as they are loaded could leave the cache unmarked."""
    thread = _loading["thread"]
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)


def loading_error() -> str | None:
    """Why the kernels did not load in this process (None: they did, or loading has not ended)."""
    return _loading["error"]


def compiled_constrained():
    """engine.compiled.constrained_kernels once compiled in this process, else None."""
    return _loading.get("constrained")


def compiled_floating():
    """engine.compiled.floating_kernels once compiled in this process, else None."""
    return _loading.get("floating")


def compiled_sweep():
    """engine.compiled.sweep_kernels once compiled in this process, else None."""
    return _loading.get("sweep")


def wait_until_compiled(timeout: float | None = None, constrained: bool = False, sweep: bool = False,
                        floating: bool = False):
    """The free tree's kernels (`constrained`: engine.compiled.constrained_kernels, `floating`:
    engine.compiled.floating_kernels, `sweep`: engine.compiled.sweep_kernels), after waiting for the compiling thread until they are loaded or it ends
    (tests, benchmarks, sweeps), or None. The free tree's come first: a caller that needs only them does not
    wait for the others' compilation; the sweep's come last (a single run never waits for them)."""
    start_compiling()
    key = "sweep" if sweep else "constrained" if constrained else "floating" if floating else "kernels"
    deadline = None if timeout is None else time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread.name == "eomlab-numba-compile":
            while _loading.get(key) is None and thread.is_alive():
                thread.join(0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic())))
                if deadline is not None and time.monotonic() >= deadline:
                    break
    return _loading.get(key)


def _warm_up(kernels) -> None:
    """One step of a one-joint pendulum, its dense output's stages and a sample's energies, with the
    argument types a run passes: compiles (or loads) every kernel a run calls, so none compiles on the
    stepping thread."""
    from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853
    from eomlab.engine.compiled.flat_tree import FlatTree

    tree = FlatTree(parents=np.array([-1], dtype=np.int64), kinds=np.zeros(1, dtype=np.int64),
                    place_R=np.eye(3).reshape(1, 3, 3), place_p=np.zeros((1, 3)),
                    S=np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]), mass=np.ones(1), lever=np.array([[0.5, 0.0, 0.0]]),
                    rot_inertia=np.eye(3).reshape(1, 3, 3), gravity=np.array([0.0, -9.81, 0.0]))
    solver = CompiledDOP853(lambda: None, lambda t, y: np.zeros(2), 0.0, np.zeros(2), 1.0, first_step=1e-3)
    tree = tuple(tree)
    solver._attempt(kernels, tree)
    kernels.dop853_extra_stages(tree, solver.y_old, float(solver.h_previous), solver.A_EXTRA, solver.K_extended)
    y = solver.y
    kernels.energies_and_centres(tree, y[:1], y[1:], np.zeros(1, dtype=np.int64), np.zeros((1, 3)), np.empty((1, 3)))


def _warm_up_constrained(kernels) -> None:
    """One right-hand side of a two-joint chain with a distance closure, with the argument types
    engine.compiled.constrained_rhs passes: compiles (or loads) the constrained kernel and every solve in it."""
    tree = (np.array([-1, 0], dtype=np.int64), np.zeros(2, dtype=np.int64), np.tile(np.eye(3), (2, 1, 1)),
            np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]), np.tile([0.0, 0.0, 0.0, 0.0, 0.0, 1.0], (2, 1)),
            np.ones(2), np.array([[0.5, 0.0, 0.0], [0.5, 0.0, 0.0]]), np.tile(np.eye(3), (2, 1, 1)),
            np.array([0.0, -9.81, 0.0]))
    from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853

    no_rows = np.zeros(0, dtype=np.int64)
    data = (tree, np.array([1, -1], dtype=np.int64), np.array([[1.0, 0.0, 0.0], [1.5, 0.0, 0.0]]),
            np.array([[1, 0, 1, 0]], dtype=np.int64), np.ones(1), 0, no_rows, no_rows, no_rows, np.zeros(2), np.zeros(3))
    y = np.array([0.3, 0.2, 0.0, 0.0])
    kernels.constrained_derivative(*data, y, np.empty(4))
    solver = CompiledDOP853(lambda: None, lambda t, y: np.zeros(4), 0.0, y, 1.0, first_step=1e-3)
    solver._attempt(kernels, data)
    kernels.dop853_extra_stages(data, solver.y_old, float(solver.h_previous), solver.A_EXTRA, solver.K_extended)


def _warm_up_floating(kernels) -> None:
    """One step of a free body in Euler parameters on a hinge with armature, its dense output's stages and a
    sample's energies, with the argument types a run passes (engine.compiled.floating_tree.FloatingTree as a tuple)."""
    from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853

    tree = (np.array([-1, 0, 1, 2, 3], dtype=np.int64), np.array([1, 1, 1, 2, 0], dtype=np.int64),
            np.tile(np.eye(3), (5, 1, 1)), np.zeros((5, 3)), np.eye(6)[[0, 1, 2, 0, 5]], np.array([0, 0, 1.0, 1, 1]),
            np.tile([0.0, 0.0, 0.5], (5, 1)), np.tile(np.eye(3), (5, 1, 1)), np.array([0.0, 0.0, -9.81]),
            np.array([0, 1, 2, 3, 7], dtype=np.int64), np.arange(7, dtype=np.int64)[[0, 1, 2, 3, 6]], np.full(7, 0.01))
    y = np.concatenate(([0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.3], np.full(7, 0.1)))
    kernels.state_derivative(tree, y, np.empty(y.size), kernels.floating_workspace(tree))
    solver = CompiledDOP853(lambda: None, lambda t, y: np.zeros(y.size), 0.0, y, 1.0, first_step=1e-3)
    solver._attempt(kernels, tree)
    kernels.dop853_extra_stages(tree, solver.y_old, float(solver.h_previous), solver.A_EXTRA, solver.K_extended)
    kernels.energies_and_centres(tree, solver.y, np.array([3, -1], dtype=np.int64), np.zeros((2, 3)), np.empty((2, 3)))


def _warm_up_sweep(kernels) -> None:
    """One member's run of a one-joint pendulum over a short time with one crossing measured and its energy,
    with the argument types engine.sweep.compiled_members passes."""
    from scipy.integrate import DOP853

    tree = (np.array([-1], dtype=np.int64), np.zeros(1, dtype=np.int64), np.eye(3).reshape(1, 3, 3), np.zeros((1, 3)),
            np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]), np.ones(1), np.array([[0.5, 0.0, 0.0]]),
            np.eye(3).reshape(1, 3, 3), np.array([0.0, -9.81, 0.0]))
    kernels.run_member(tree, np.array([0.3, 0.0]), 0.01, 1e-6, 1e-6, 0.01, DOP853.A, DOP853.B, DOP853.E3, DOP853.E5,
                       -1.0 / (DOP853.error_estimator_order + 1), np.zeros(1, dtype=np.int64),
                       np.array([0, 1], dtype=np.int64), np.zeros(1), True, np.empty(1))


#: each kernel module and the call that compiles (or loads) every kernel in it (engine.compiled.prepare_kernels)
WARM_UPS = {"numba_kernels": _warm_up, "constrained_kernels": _warm_up_constrained,
            "floating_kernels": _warm_up_floating, "sweep_kernels": _warm_up_sweep}


class StepKernel:
    """One formulation's free tree as the compiled step takes it; counts its right-hand sides
    into the formulation's and the steps it took (stats). `key`: its kernels' ("kernels": numba_kernels' for a
    FlatTree, "floating": floating_kernels' for a FloatingTree)."""

    def __init__(self, formulation, tree, key: str = "kernels"):
        self.formulation, self.tree, self.key = formulation, tree, key
        self.arrays = tuple(tree)  # as the kernels take it: made once, not at every step
        self._forces = formulation.system.forces
        self.steps = 0

    def kernels(self):
        """The compiled kernels when this step may take them, else None: compiled, and no force
        element acting (a push or pull that ended stays on the system, inactive: it adds nothing)."""
        if any(getattr(force, "active", True) for force in self._forces):
            return None
        return _loading[self.key]


def step_kernel(formulation, backend):
    """A StepKernel for `formulation` on `backend` (engine.compiled.tree_backend.PinocchioTree) when numba
    is installed and the tree flattens (one-speed joints in eomlab's order, no armature: numba_kernels; else
    spherical and free joints in Euler parameters, armature: floating_kernels); else None."""
    if not numba_installed():
        return None
    tree = backend.flat_tree()
    if tree is not None:
        return StepKernel(formulation, tree)
    tree = backend.floating_tree()
    return StepKernel(formulation, tree, "floating") if tree is not None else None


def __getattr__(name):
    if name == "CompiledDOP853":  # where it lived before: scipy.integrate loads only when it is asked for
        from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853

        return CompiledDOP853
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
