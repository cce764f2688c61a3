"""Symbolic derivation (sympy) of each formulation's equations of motion, for display and checks.

Never on the path from Run to motion: nothing in the numeric engine imports this package.

    derive(model, method=None, parameters="numbers", cancel=None) -> Equations
    equations_text(model, method=None, fmt="text"|"latex"|"html"|"json", parameters="numbers") -> str
    page_data(build_page(derive(model, method), model.name)) -> dict  # the equations panel's page
    html_document(page) -> str  # the page as HTML with MathML (page_data(page, html=False) leaves it out)
    SymbolicTree(model, parameters="numbers")  # the tree kinematics as sympy expressions
"""
from eomlab.engine.symbolic.derived_equations import Equations, Item, Section
from eomlab.engine.symbolic.derive import FORMULATIONS, SYMBOLIC_METHODS, derive, symbolic_tree
from eomlab.engine.symbolic.errors import DOF_LIMIT, DerivationCancelled, SymbolicTooLarge
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.page import build_page, general_page, html_document, numeric_page, page_data
from eomlab.engine.symbolic.render import display_names, equations_text, latex_item, pretty, render

__all__ = [
    "DOF_LIMIT",
    "FORMULATIONS",
    "SYMBOLIC_METHODS",
    "DerivationCancelled",
    "Equations",
    "Item",
    "Section",
    "build_page",
    "general_page",
    "html_document",
    "numeric_page",
    "page_data",
    "SymbolicTooLarge",
    "SymbolicTree",
    "derive",
    "display_names",
    "equations_text",
    "latex_item",
    "pretty",
    "render",
    "symbolic_tree",
]
