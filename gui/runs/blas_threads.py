"""The window's process does its linear algebra (model facts, partitions, plots' numbers) on one BLAS thread.

OpenBLAS shuts its thread pool down before every fork (its own atfork handler) and starts it again
after. A run's process forks from a run thread while the GUI thread may be inside a LAPACK call
that handed work to that pool; the call then waited for good (the GUI monkey: the window frozen in
dgetrf of a partition's factor, every other thread idle). On one thread OpenBLAS computes in the
calling thread and has no pool to lose; the window's matrices are small (tens of rows), so nothing
is lost, and a run's process (engine.simulation) keeps to one thread as well.
"""
from __future__ import annotations

import os

#: the variables BLAS libraries read when they load (scipy.linalg's, loaded later, included)
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

_limits = None  # threadpoolctl's limit on the libraries loaded already, kept for the process's life


def one_blas_thread() -> None:
    """Every BLAS library of this process on one thread: those loaded now, and those loaded later."""
    global _limits
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    if _limits is None:
        from threadpoolctl import threadpool_limits

        _limits = threadpool_limits(limits=1, user_api="blas")
