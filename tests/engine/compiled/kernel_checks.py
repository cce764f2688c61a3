"""Helpers of the constrained kernel's tests (test_constrained_kernels, test_rolling_kernels): a model's
formulations on both paths, the kernel's own answer without the fallback, and the states compared."""
import numpy as np
import pytest

from eomlab.engine.compiled import compiled_step
from eomlab.engine.compiled.constrained_rhs import constrained_kernel
from eomlab.engine.simulation import Simulation


def loaded_constrained_kernels():
    """numba's constrained kernels (the disk cache after the first run); a cold cache compiles every
    kernel family under the shared lock, so the wait stays below pytest-timeout's 300 s."""
    pytest.importorskip("pinocchio")
    pytest.importorskip("numba")
    loaded = compiled_step.wait_until_compiled(timeout=280, constrained=True)
    assert loaded is not None, compiled_step._loading["error"]
    return loaded


def formulations(model, method, monkeypatch, stabilization=None, coordinates="joint"):
    """(compiled, numpy) formulations of `model` in `coordinates`, whatever the run's environment says."""
    monkeypatch.setenv("EOMLAB_FAST_PATH", "1")
    fast = Simulation(model, method=method, coordinates=coordinates, stabilization=stabilization).formulation
    monkeypatch.setenv("EOMLAB_FAST_PATH", "0")
    slow = Simulation(model, method=method, coordinates=coordinates, stabilization=stabilization).formulation
    monkeypatch.delenv("EOMLAB_FAST_PATH")
    return fast, slow


def kernel_derivative(kernels, formulation, y):
    """The kernel's own answer (no fallback): (held, ẏ)."""
    kernel = constrained_kernel(formulation)
    assert kernel is not None
    parts = kernel.partition()
    assert parts is not None
    out = np.empty(y.size)
    held = kernels.constrained_derivative(kernel.tree, *kernel.closures, kernel.code, *parts, kernel.gains,
                                          kernel.tolerances, y, out)
    return held, out


def states(formulation, n=3):
    """The initial state and n − 1 random states about it."""
    y0 = np.array(formulation.initial_state(formulation.system.q0, formulation.system.u0), dtype=float)
    rng = np.random.default_rng(11)
    return [y0] + [y0 + rng.uniform(-0.2, 0.2, y0.size) for _ in range(n - 1)]
