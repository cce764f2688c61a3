"""Symbolic derivation (sympy) of each formulation's equations of motion, for display and checks.

Never on the path from Run to motion: nothing in the numeric engine imports this package.

    derive(model, method=None, parameters="numbers", cancel=None) -> Equations
    equations_text(model, method=None, fmt="text"|"latex"|"html"|"json", parameters="numbers") -> str
    page_data(build_page(derive(model, method), model.name)) -> dict  # the equations panel's page
    page_top(model, method) -> Page  # the blocks that page starts with, before any derivation (no sympy)
    html_document(page) -> str  # the page as HTML with MathML (page_data(page, html=False) leaves it out)
    SymbolicTree(model, parameters="numbers")  # the tree kinematics as sympy expressions

The names load on first use (PEP 562): importing the package, or its sympy-free modules
(`page_blocks`, `about`, `names_latex`), does not import sympy, so the equations panel's deriver
sends the top of a page while sympy is still loading. `load()` imports everything at once.
"""
from __future__ import annotations

import importlib
import sys
from types import ModuleType

#: each public name -> the module (in this package) that defines it
_HOMES = {
    "Equations": "derived_equations", "Item": "derived_equations", "Section": "derived_equations",
    "FORMULATIONS": "derive", "SYMBOLIC_METHODS": "derive", "derive": "derive", "symbolic_tree": "derive",
    "DOF_LIMIT": "errors", "DerivationCancelled": "errors", "SymbolicTooLarge": "errors",
    "SymbolicTree": "tree_kinematics",
    "build_page": "page", "numeric_page": "page_blocks",
    "general_page": "page_blocks", "html_document": "page_blocks", "page_data": "page_blocks",
    "page_top": "page_blocks",
    "display_names": "render", "equations_text": "render", "latex_item": "render", "pretty": "render",
    "render": "render",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def load() -> None:
    """Import every public name now (the panel's deriver, while it waits for its first request)."""
    for name in _HOMES:
        __getattr__(name)


class _Package(ModuleType):
    """Keeps `symbolic.derive` and `symbolic.render` the functions: importing a submodule sets the
    package's attribute of that name to the module (Python's import system), here to the
    function of that name the module defines."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, ModuleType) and _HOMES.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
