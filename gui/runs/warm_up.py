"""The engine's heavy modules loaded into the window's process just after its first frame, before its
first runs fork, so that every run process finds them loaded.

The window draws its first frame (the model's initial pose) without scipy.linalg, scipy.integrate
or pinocchio: they load on first use (engine.lazy_imports, engine.compiled.compiled_dop853), ~0.5 s
of CPU. A run forked before they are loaded would import them itself — and every later run (a reset,
an edit, compare mode's five) again. So the first main window of a process holds FORK_LOCK from its making
until a background thread, let go just after the window's first paint (so that its imports do not take
the GIL from that paint), has loaded them; a run forks only
with FORK_LOCK held (gui/runs/run_process.py). The lock also keeps a fork from happening while that
thread is inside an import, which would leave the child a module lock nobody in it can release.

Then, once the first run's first samples have arrived (its process loads its own kernels; the window's load
beside it on two cores put the first motion 0.3 s later), the same thread loads the compiled
kernels from numba's cache, FORK_LOCK held again, so that every later run inherits them: each run
process loaded them itself, ~1.3 CPU s and ~150 MB each, five at once at every compare-mode restart
(the soak's memory swung with them). Only from a complete cache (engine.simulation.
prefetch_compiled_kernels): the window never compiles for minutes with its runs waiting.
"""
from __future__ import annotations

import atexit
import importlib
import sys
import threading

#: held around every fork of a run process, and by the warm-up until its imports are done
FORK_LOCK = threading.Lock()
#: what a run needs and the window's first frame does not: LAPACK, scipy's ODE solvers, the tree dynamics
WARM_MODULES = ("scipy.linalg", "eomlab.engine.compiled.compiled_dop853", "pinocchio")
#: the imports start at `go()`, or after this many seconds whatever happens
GO_WAIT_S = 3.0
#: the kernels load once the first run's first samples have arrived, or this many seconds after the modules
KERNELS_AFTER_S = 3.0
#: the longest the kernels' loading may hold FORK_LOCK (a complete cache loads in ~1.3 CPU s)
KERNELS_WAIT_S = 15.0
#: set when a run process's first message arrives (gui/runs/run_process.py)
RUN_MOVING = threading.Event()
_exiting = threading.Event()
#: `go()` comes just after the window's first paint (gui/runs/first_paint.py), or this many ms after the
#: window is made if it has not painted by then
WARM_UP_MS = 1500


def load_warm_modules() -> None:
    for name in WARM_MODULES:
        try:
            module = importlib.import_module(name)
            getattr(module, "__doc__", None)  # a lazily loaded module executes at its first attribute
        except ImportError:  # pinocchio is optional (the numpy path runs without it)
            pass


def warm_modules_loaded() -> bool:
    return "scipy.linalg._flapack" in sys.modules and "scipy.integrate" in sys.modules


class WarmUp:
    """Holds FORK_LOCK from its making until its thread, started at `go()` (or after GO_WAIT_S), has
    loaded WARM_MODULES."""

    pending = False  # one at a time: a second window made meanwhile waits for none

    @classmethod
    def if_needed(cls) -> WarmUp | None:
        """A WarmUp, or None when the modules are loaded already or another WarmUp is loading them."""
        return None if warm_modules_loaded() or cls.pending else cls()

    def __init__(self):
        FORK_LOCK.acquire()
        WarmUp.pending = True
        self._go = threading.Event()
        self.thread = threading.Thread(target=self._run, name="eomlab-warm-up", daemon=True)
        self.thread.start()

    def go(self) -> None:
        self._go.set()

    def _run(self) -> None:
        try:
            self._go.wait(GO_WAIT_S)
            load_warm_modules()
        finally:
            WarmUp.pending = False
            FORK_LOCK.release()
        RUN_MOVING.wait(KERNELS_AFTER_S)
        with FORK_LOCK:
            if not _exiting.is_set():
                from eomlab.engine.simulation import prefetch_compiled_kernels

                prefetch_compiled_kernels(KERNELS_WAIT_S)


@atexit.register
def _let_the_kernels_load_before_exit() -> None:
    """A process that ends while its kernels load waits for them: numba's and LLVM's state must not be
    torn down under the loading thread."""
    _exiting.set()
    RUN_MOVING.set()
    if FORK_LOCK.acquire(timeout=KERNELS_WAIT_S):
        FORK_LOCK.release()
