"""Every compiled kernel built into numba's on-disk cache before eomlab's first run needs it:
`python -m eomlab.engine.compiled.prepare_kernels` (make's install step runs it, as pip writes byte code).

Why: compiling them all takes about 75 CPU seconds (bench/README.md, "The kernels compiled at install"). Left to the
first run, that run takes scipy's Python step meanwhile, a core compiles beside the window, and a sweep waits. Here
the kernel modules compile in two processes at once (two groups of about equal cost: the free tree with the
constrained kernel; the floating tree with the sweep's run), then this process loads them all from the cache,
which marks it complete (engine.compiled.kernel_cache). With a complete cache it returns at once.
"""
from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from eomlab.engine.compiled.compiled_step import (compiled_sweep, finish_loading, loading_error, numba_installed,
                                                 start_compiling)

#: the kernel modules in two groups of about equal compile time (37 and 33 CPU s on this project's machine)
GROUPS = (("numba_kernels", "constrained_kernels"), ("floating_kernels", "sweep_kernels"))


def compile_group(modules: tuple[str, ...]) -> None:
    """Compile `modules`' kernels into the cache (in a child process: no compile lock, no marker; numba writes
    each function's cache file whole, so two processes compiling a shared callee leave one good copy)."""
    import numba

    from eomlab.engine.compiled.compiled_step import WARM_UPS
    from eomlab.engine.compiled.kernel_cache import cache_by_source

    cache_by_source(numba)
    for name in modules:
        WARM_UPS[name](importlib.import_module(f"eomlab.engine.compiled.{name}"))


def prepare(processes: int | None = None) -> str:
    """Compile every kernel into the cache unless it holds them all; one line saying what was done."""
    if not numba_installed():
        return "numba is not installed: runs take scipy's step"
    import numba

    from eomlab.engine.compiled.kernel_cache import cache_by_source, cache_complete

    if numba.config.DISABLE_JIT:
        return "NUMBA_DISABLE_JIT is set: nothing to compile"
    cache_by_source(numba)
    if cache_complete(numba):
        return f"the kernels are compiled already ({numba.config.CACHE_DIR})"
    processes = processes or min(len(GROUPS), os.cpu_count() or 1)
    groups = GROUPS if processes > 1 else (sum(GROUPS, ()),)
    with ProcessPoolExecutor(len(groups), mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(compile_group, groups))
    start_compiling()  # loads them from the cache and marks it complete
    finish_loading()
    if compiled_sweep() is None:
        return f"the kernels were not compiled ({loading_error()}): runs take scipy's step"
    return f"the kernels are compiled ({numba.config.CACHE_DIR})"


def main() -> int:
    try:
        print(prepare(), flush=True)
    except Exception as err:  # noqa: BLE001 - an install goes on without them: runs take scipy's step
        print(f"the kernels were not compiled ({type(err).__name__}: {err}): runs take scipy's step", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
