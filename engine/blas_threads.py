"""BLAS on one thread: the one place that says how (every run, sweep chunk and linearization; the window).

The matrices here are small (tens of rows): extra BLAS threads only wait for each other and fight the
GUI thread for 2 cores. A process that forks runs keeps to one thread for good: OpenBLAS shuts its
thread pool down before every fork (its own atfork handler) and starts it again after, and a LAPACK
call of another thread that had handed work to that pool then waited for good (the GUI monkey: the
window frozen in dgetrf, every other thread idle). On one thread OpenBLAS computes in the caller.
"""
from __future__ import annotations

import os
import sys

from threadpoolctl import ThreadpoolController, threadpool_limits

#: the variables BLAS libraries read when they load (scipy.linalg's, loaded on first use, included)
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class _Controller:
    """threadpoolctl's view of the loaded BLAS libraries: inspecting them costs milliseconds, so it is
    done once, and again once scipy.linalg has loaded (engine.lazy_imports: its OpenBLAS is not
    numpy's, and a library loaded after the inspection would keep all its threads)."""

    def __init__(self):
        self._controller: ThreadpoolController | None = None
        self._with_scipy = False

    def limit(self):
        with_scipy = "scipy.linalg._flapack" in sys.modules
        if self._controller is None or with_scipy != self._with_scipy:
            self._controller, self._with_scipy = ThreadpoolController(), with_scipy
        return self._controller.limit(limits=1)


_CONTROLLER = _Controller()
_kept = None  # the limit of one_blas_thread_for_good, held for the process's life


def one_blas_thread():
    """A context in which every loaded BLAS library runs on one thread."""
    return _CONTROLLER.limit()


def one_blas_thread_for_good() -> None:
    """Every BLAS library of this process on one thread, those loaded now and those loaded later
    (they read the variables as they load)."""
    global _kept
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    if _kept is None:
        _kept = threadpool_limits(limits=1, user_api="blas")
