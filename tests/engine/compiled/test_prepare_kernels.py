"""engine.compiled.prepare_kernels: make's install step compiles every kernel into numba's cache in two processes,
and does nothing when the cache holds them all."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from eomlab.engine.compiled import compiled_step, prepare_kernels
from eomlab.engine.compiled.kernel_cache import KERNEL_SOURCES

numba = pytest.importorskip("numba")

PREPARE = [sys.executable, "-m", "eomlab.engine.compiled.prepare_kernels"]


def test_the_groups_hold_every_kernel_module_once():
    grouped = [name for group in prepare_kernels.GROUPS for name in group]
    assert sorted(grouped) == sorted(compiled_step.WARM_UPS)
    assert {f"{name}.py" for name in grouped} <= set(KERNEL_SOURCES)  # the cache's name follows every one


def test_a_complete_cache_is_left_as_it_is():
    """The suite's own cache, complete once this process loaded every kernel: the command returns at once."""
    assert compiled_step.wait_until_compiled(timeout=900, sweep=True) is not None, compiled_step.loading_error()
    compiled_step.finish_loading(120)  # the marker is written after the sweep's kernels
    start = time.monotonic()
    done = subprocess.run(PREPARE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("the kernels are compiled already (")
    assert time.monotonic() - start < 20.0  # numba's import and a hash of six files, not a compilation (~45 s)


def test_a_failure_is_one_line_and_the_install_goes_on(monkeypatch, capsys):
    def broken():
        raise OSError("No space left on device")

    monkeypatch.setattr(prepare_kernels, "prepare", broken)
    assert prepare_kernels.main() == 0
    err = capsys.readouterr().err
    assert err == ("the kernels were not compiled (OSError: No space left on device): runs take scipy's step\n")


def test_with_numbas_jit_switched_off_nothing_is_compiled(monkeypatch):
    monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    assert prepare_kernels.prepare() == "NUMBA_DISABLE_JIT is set: nothing to compile"


@pytest.mark.slow
def test_an_empty_cache_is_filled_whole_by_two_processes(tmp_path):
    """As on a fresh machine: every kernel compiled (~75 CPU s), the cache marked complete, and a later process
    loads every family from it without compiling."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(PREPARE, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0 and done.stdout.startswith("the kernels are compiled ("), done.stderr
    assert any(name.startswith("complete-") for _root, _dirs, files in os.walk(tmp_path) for name in files)
    load = ("from eomlab.engine.compiled import compiled_step\n"
            "print(compiled_step.load_cached_kernels(timeout=120), compiled_step.PREFETCH['outcome'])\n")
    done = subprocess.run([sys.executable, "-c", load], capture_output=True, text=True, timeout=300, env=env)
    assert done.stdout.split() == ["True", "loaded"], done.stderr
