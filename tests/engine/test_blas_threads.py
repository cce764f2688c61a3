"""engine/blas_threads.py: a run's solves on one BLAS thread, and a whole process kept there for good.

Each check runs in a fresh process that asks OpenBLAS for 4 threads first (a test process may have been
kept on one thread for good by a window test before, and then no check could fail)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PRELUDE = ("import os, json; os.environ['OPENBLAS_NUM_THREADS'] = '4'\n"
           "import numpy\n"
           "from threadpoolctl import threadpool_info\n"
           "def threads(): return sorted(lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas')\n")


def _run(script: str):
    out = subprocess.run([sys.executable, "-c", PRELUDE + script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: OpenBLAS has no pool to limit")
def test_one_blas_thread_holds_inside_and_restores_after():
    before, inside, after = _run("from eomlab.engine.blas_threads import one_blas_thread\n"
                                 "b = threads()\n"
                                 "with one_blas_thread():\n    i = threads()\n"
                                 "print(json.dumps([b, i, threads()]))\n")
    assert max(before) > 1  # OpenBLAS takes min(4, cores): the check needs a pool to limit
    assert inside and set(inside) == {1}
    assert after == before


def test_for_good_reaches_a_library_loaded_after_it():
    """scipy.linalg's OpenBLAS loads on first use, after the call: it starts on one thread too."""
    loaded = _run("from eomlab.engine.blas_threads import one_blas_thread_for_good\n"
                  "one_blas_thread_for_good()\n"
                  "import scipy.linalg\n"
                  "print(json.dumps(threads()))\n")
    assert len(loaded) >= 1 and set(loaded) == {1}, loaded
