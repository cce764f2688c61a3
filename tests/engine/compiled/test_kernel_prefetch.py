"""engine.compiled.compiled_step.load_cached_kernels: a process that forks runs loads the kernels once, from a
complete cache only, and its forked children inherit them (the window's prefetch, gui/runs/warm_up.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numba")


def _python(script: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          timeout=290, env={**os.environ, **env})


def test_an_incomplete_cache_starts_nothing(tmp_path):
    """An empty cache: no compiling (minutes) in a process that would hold its forks meanwhile."""
    done = _python("""
        import threading, time
        from eomlab.engine.compiled import compiled_step
        start = time.monotonic()
        loaded = compiled_step.load_cached_kernels(timeout=60)
        names = [t.name for t in threading.enumerate()]
        print(loaded, round(time.monotonic() - start, 2), "eomlab-numba-compile" in names)
        """, NUMBA_CACHE_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    loaded, seconds, thread = done.stdout.split()
    assert (loaded, thread) == ("False", "False")
    assert float(seconds) < 10.0  # numba's import, not a compilation
    assert not any(name.startswith("complete-") for _root, _dirs, files in os.walk(tmp_path) for name in files)


def test_forked_children_inherit_the_prefetched_kernels():
    """After a complete load (which marks the cache), a fresh process prefetches every family, and a child it
    forks has them without loading anything (no loader thread of its own)."""
    done = _python("""
        import os, threading
        from eomlab.engine.compiled import compiled_step
        assert compiled_step.wait_until_compiled(timeout=280, sweep=True) is not None, "no sweep kernels"
        compiled_step._loading["thread"].join(60)  # the marker comes after the sweep's kernels
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    done = _python("""
        import os, threading
        from eomlab.engine.compiled import compiled_step
        assert compiled_step.load_cached_kernels(timeout=120), compiled_step._loading["error"]
        pid = os.fork()
        if pid == 0:
            compiled_step.start_compiling()  # a run's step asks; nothing to load
            families = [compiled_step.compiled_kernels(), compiled_step.compiled_constrained(),
                        compiled_step.compiled_floating(), compiled_step.compiled_sweep()]
            loading = [t for t in threading.enumerate() if t.name == "eomlab-numba-compile" and t.is_alive()]
            os._exit(0 if all(f is not None for f in families) and not loading else 3)
        print(os.waitpid(pid, 0)[1] >> 8)
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0"]
