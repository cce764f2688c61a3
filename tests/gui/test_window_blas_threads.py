"""The window's process keeps BLAS on one thread (engine/blas_threads.py): OpenBLAS's pool,
shut down at every fork of a run, froze a LAPACK call of the GUI thread (issue 31's monkey)."""
from __future__ import annotations

import os

from threadpoolctl import threadpool_info

from eomlab.engine.presets import preset
from eomlab.engine.blas_threads import THREAD_VARIABLES


def test_a_window_keeps_every_blas_library_on_one_thread(make_window):
    make_window(preset("four_bar"))
    import scipy.linalg  # noqa: F401 - loaded after the window too (lazily, engine.lazy_imports)

    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas and all(lib["num_threads"] == 1 for lib in blas), blas
    assert all(os.environ[name] == "1" for name in THREAD_VARIABLES)
