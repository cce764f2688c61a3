"""Heavy modules loaded on first use (importlib.util.LazyLoader).

sympy is slow to import; a model without expressions never needs it, so the window's
first frame and `eomlab run` on such a model do not wait for it.
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
    loader.exec_module(module)
    return module


sympy = lazy_module("sympy")
