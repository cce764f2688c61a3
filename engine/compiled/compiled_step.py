"""The compiled DOP853 step of a free tree: every stage of a step in one numba call
(engine.compiled.numba_kernels), for the formulations whose right-hand side is pinocchio's ABA bound to y
(no constraint rows, no force elements; one revolute or prismatic joint per speed).

Why: with the stages in Python about half of each right-hand side is scipy's per-stage work and our
wrappers rather than pinocchio's `aba`, which caps a long chain's pace; compiled, a stage costs the
ABA arithmetic alone (bench/README.md, "Compiled DOP853 step").

numba is optional (`pip install 'eomlab[fast]'`): importing it and compiling (or loading the
kernels from numba's on-disk cache) takes from half a second to several, so it happens in a daemon
thread started after the first step that could use it; until it is ready, and for any step taken
while a force element acts (a pull or push, the model's springs and efforts), the solver takes
scipy's own Python step. A step whose
kernel meets a NaN or inf is taken again by scipy's step, whose right-hand side names the cause.
"""
from __future__ import annotations

import importlib.util
import os
import tempfile
import threading
import time
from contextlib import contextmanager

import numpy as np
from scipy.integrate import DOP853
from scipy.integrate._ivp import dop853_coefficients
from scipy.integrate._ivp.rk import Dop853DenseOutput

#: the words stats["dynamics_path"] adds once the compiled step ran
COMPILED_STEP_PATH = "numba DOP853 step"

_lock = threading.Lock()
_loading = {"pid": None, "kernels": None, "error": None, "thread": None, "busy": False}


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
    try:
        import numba

        if numba.config.DISABLE_JIT:  # the kernels would run as Python loops, far slower than scipy's step
            raise RuntimeError("NUMBA_DISABLE_JIT is set")
        with _one_process_at_a_time():
            from eomlab.engine.compiled import numba_kernels

            _warm_up(numba_kernels)
    except Exception as err:  # noqa: BLE001 - numba's errors are many; the Python step stays
        _loading.update(error=f"{type(err).__name__}: {err}", busy=False)
        return
    _loading.update(kernels=numba_kernels, busy=False)


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
    path = os.path.join(tempfile.gettempdir(), f"eomlab-numba-compile-{os.getuid()}.lock")
    with open(path, "a") as lock:
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


def wait_until_compiled(timeout: float | None = None):
    """The kernels, after waiting for the compiling thread (tests and benchmarks), or None."""
    start_compiling()
    for thread in threading.enumerate():
        if thread.name == "eomlab-numba-compile":
            thread.join(timeout)
    return compiled_kernels()


def _warm_up(kernels) -> None:
    """One step of a one-joint pendulum, its dense output's stages and a sample's energies, with the
    argument types a run passes: compiles (or loads) every kernel a run calls, so none compiles on the
    stepping thread."""
    from eomlab.engine.compiled.tree_backend import FlatTree

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


class StepKernel:
    """One formulation's free tree as the compiled step takes it; counts its right-hand sides
    into the formulation's and the steps it took (stats)."""

    def __init__(self, formulation, tree):
        self.formulation, self.tree = formulation, tree
        self.arrays = tuple(tree)  # as the kernels take it: made once, not at every step
        self._forces = formulation.system.forces
        self.steps = 0

    def kernels(self):
        """The compiled kernels when this step may take them, else None: compiled, and no force
        element acting (a push or pull that ended stays on the system, inactive: it adds nothing)."""
        if any(getattr(force, "active", True) for force in self._forces):
            return None
        return _loading["kernels"]


def step_kernel(formulation, backend):
    """A StepKernel for `formulation` on `backend` (engine.compiled.tree_backend.PinocchioTree) when numba
    is installed and the tree flattens; else None."""
    tree = backend.flat_tree()
    if tree is None or not numba_installed():
        return None
    return StepKernel(formulation, tree)


class CompiledDOP853(DOP853):
    """scipy's DOP853 (same tableau, error norm and step-size control; its dense output, which
    evaluates the three extra stages through `fun`) whose step attempts run in one compiled call
    when `kernel()` (the current formulation's StepKernel, or None) allows."""

    def __init__(self, kernel, fun, t0, y0, t_bound, **options):
        super().__init__(fun, t0, y0, t_bound, **options)
        self._kernel = kernel
        self._atol = np.broadcast_to(np.asarray(self.atol, dtype=float), self.y.shape).copy()

    def _step_impl(self):
        step = self._kernel()
        kernels = step.kernels() if step is not None else None
        if kernels is None:
            begin = time.perf_counter()
            taken = super()._step_impl()
            if step is not None:  # compile after the first step, which then shares the core with nothing
                start_compiling()
                share_with_loading(time.perf_counter() - begin)
            return taken
        outcome, evaluations = self._attempt(kernels, step.arrays)
        step.formulation.rhs_evals += evaluations
        if outcome == kernels.NONFINITE:  # scipy's step again: the checked right-hand side names it
            return super()._step_impl()
        if outcome == kernels.TOO_SMALL:
            return False, self.TOO_SMALL_STEP
        step.steps += 1
        return True, None

    def _dense_output_impl(self):
        """scipy's DOP853 interpolant; its three extra stages compiled too when the step was."""
        step = self._kernel()
        kernels = step.kernels() if step is not None else None
        if kernels is None or not call_kernel(kernels.dop853_extra_stages, step.arrays, self.y_old,
                                              float(self.h_previous), self.A_EXTRA, self.K_extended):
            return super()._dense_output_impl()
        extra = len(self.A_EXTRA)
        self.nfev += extra
        step.formulation.rhs_evals += extra
        # DOP853's interpolant (Hairer, Nørsett & Wanner, §II.6), as scipy forms it from the stages
        K, h = self.K_extended, self.h_previous
        delta_y, f_old = self.y - self.y_old, K[0]
        F = np.empty((dop853_coefficients.INTERPOLATOR_POWER, self.n))
        F[0] = delta_y
        F[1] = h * f_old - delta_y
        F[2] = 2 * delta_y - h * (self.f + f_old)
        F[3:] = h * np.dot(self.D, K)
        return Dop853DenseOutput(self.t_old, self.t, self.y_old, F)

    def _attempt(self, kernels, tree) -> tuple[int, int]:
        """One compiled call on `tree` (a FlatTree as a plain tuple); on acceptance the solver's state
        moves on as scipy's step moves it. (outcome, right-hand sides evaluated)."""
        t, y = self.t, self.y
        min_step = 10 * np.abs(np.nextafter(t, self.direction * np.inf) - t)
        outcome, t_new, h, h_abs, y_new, f_new, evaluations = call_kernel(
            kernels.dop853_attempt, tree, float(t), y, self.f, float(self.h_abs), float(min_step), float(self.max_step), float(self.t_bound),
            float(self.direction), float(self.rtol), self._atol, self.A, self.B, self.E3, self.E5,
            float(self.error_exponent), self.K)
        self.nfev += evaluations
        if outcome == kernels.ACCEPTED:
            self.h_previous, self.y_old = h, y
            self.t, self.y, self.h_abs, self.f = t_new, y_new, h_abs, f_new
        return outcome, evaluations
