"""Heavy modules loaded on first use (importlib.util.LazyLoader).

sympy is slow to import; a model without expressions never needs it, so the window's
first frame and `eomlab run` on such a model do not wait for it. scipy.linalg costs ~0.15 s
(its array-API layer imports numpy.testing and numpy.f2py); a free tree on the compiled path
(pinocchio's ABA) never factors a matrix, so `eomlab linearize` and a free tree's run do not
wait for it either.
"""
from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """`name` as a module that executes on its first attribute access (or the loaded one)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:  # as the import system does: `import scipy.linalg` then `scipy.linalg.svd` finds it
        setattr(sys.modules[parent], child, module)
    loader.exec_module(module)
    return module


class LapackRoutine:
    """A float64 LAPACK routine of scipy.linalg (`get_lapack_funcs`), looked up at its first call."""

    __slots__ = ("name", "_routine")

    def __init__(self, name: str):
        self.name = name
        self._routine = None

    def __call__(self, *args, **kwargs):
        routine = self._routine
        if routine is None:
            import numpy as np
            routine = self._routine = scipy_linalg.get_lapack_funcs((self.name,), dtype=np.float64)[0]
        return routine(*args, **kwargs)


def lapack_routines(*names: str) -> tuple[LapackRoutine, ...]:
    return tuple(LapackRoutine(name) for name in names)


sympy = lazy_module("sympy")
scipy_linalg = lazy_module("scipy.linalg")
