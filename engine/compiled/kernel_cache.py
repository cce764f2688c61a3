"""Where numba keeps the compiled kernels on disk, and whether that cache holds all of them.

The cache is a directory named by the kernels' sources' hash (numba alone would check each function against its
own file only), under NUMBA_CACHE_DIR when it is set, else beside the sources. A marker file says that a process
loaded every kernel from it: a later process may then load them without taking the compile lock
(engine.compiled.compiled_step), and `python -m eomlab.engine.compiled.prepare_kernels` knows there is nothing to do.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile

#: the directory numba caches the kernels in, after their sources' hash (`cache_by_source`)
CACHE_PREFIX = "eomlab-kernels-"
#: the kernels' sources: the constrained kernel calls into the first three, the sweep's into the first two, the
#: floating tree's into the first
KERNEL_SOURCES = ("numba_kernels.py", "constrained_solves.py", "row_kernels.py", "constrained_kernels.py",
                  "sweep_kernels.py", "floating_kernels.py")


def cache_by_source(numba) -> None:
    """Cache the kernels in a directory named by their sources' hash. numba checks a cached function against its
    own file's time stamp only, so a change in a file it calls (constrained_kernels calls numba_kernels' and
    constrained_solves' functions) would load stale machine code. Under NUMBA_CACHE_DIR when it is set, else
    beside the sources (numba's own place); left to numba where that is not writable. Before the kernels'
    modules are imported: numba picks a function's cache directory when it is decorated."""
    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.basename(numba.config.CACHE_DIR).startswith(CACHE_PREFIX):  # set before (a forked child)
        return
    base = numba.config.CACHE_DIR or (os.path.join(here, "__pycache__") if os.access(here, os.W_OK) else "")
    if not base:
        return
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        with open(os.path.join(here, name), "rb") as source:
            digest.update(source.read())
    numba.config.CACHE_DIR = os.path.join(base, f"{CACHE_PREFIX}{digest.hexdigest()[:16]}")


def complete_marker(numba) -> str:
    """The file that says this cache holds every kernel for this numba, this source folder and these sources'
    time stamps ('' where numba keeps the cache in its own place). numba checks a cached function against its
    file's time stamp: a touched source (a checkout) recompiles, so it must not count as complete."""
    if not os.path.basename(numba.config.CACHE_DIR).startswith(CACHE_PREFIX):
        return ""
    here = os.path.dirname(os.path.abspath(__file__))
    key = hashlib.sha256(here.encode())
    for name in KERNEL_SOURCES:
        try:
            key.update(str(os.stat(os.path.join(here, name)).st_mtime_ns).encode())
        except OSError:
            return ""
    return os.path.join(numba.config.CACHE_DIR, f"complete-numba-{numba.__version__}-{key.hexdigest()[:12]}")


def cache_complete(numba) -> bool:
    marker = complete_marker(numba)
    return bool(marker) and os.path.exists(marker)


def mark_complete(numba) -> None:
    marker = complete_marker(numba)
    if marker:
        try:
            open(marker, "a").close()
        except OSError:
            pass  # a read-only cache: processes load their own kernels


def prune_other_caches(numba) -> None:
    """Remove the caches of other versions of the kernels' sources beside this one's (about 7 MB each),
    once this one's kernels are loaded; best effort (a process of another version compiles again)."""
    current = numba.config.CACHE_DIR
    if not os.path.basename(current).startswith(CACHE_PREFIX):
        return
    base = os.path.dirname(current)
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        if name.startswith(CACHE_PREFIX) and path != current:
            shutil.rmtree(path, ignore_errors=True)


def lock_path(numba) -> str:
    """The compile lock of this cache directory (processes of other checkouts or versions compile into
    another directory and need not wait)."""
    cache = hashlib.sha256(str(numba.config.CACHE_DIR).encode()).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), f"eomlab-numba-compile-{os.getuid()}-{cache}.lock")
