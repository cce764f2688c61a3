"""What every formulation returns: its equations as sympy objects, grouped for display."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp


class Tex(str):
    """A formula written by hand in LaTeX (an Item's value that is mathematics, not prose)."""


@dataclass
class Item:
    """One labelled sympy object (an equation, a matrix, a vector) or a sentence of prose."""

    label: str  # prose: what the item is (shown as a caption)
    value: Any  # sympy Expr / Matrix / Eq, or str: a sentence of prose
    symbol: str = ""  # short name, e.g. "M" (used as the JSON key of formulation extras)
    tex: str = ""  # LaTeX of the left-hand side, e.g. r"C^{\mathsf T} M C" (empty: the caption only)
    role: str = ""  # what it corresponds to in other formulations (about.ROLES), for side by side


@dataclass
class Section:
    title: str
    items: list[Item] = field(default_factory=list)

    def add(self, label: str, value, symbol: str = "", tex: str = "", role: str = "") -> Section:
        self.items.append(Item(label, value, symbol, tex, role))
        return self


@dataclass
class Equations:
    """A formulation's equations of motion in its own form.

    `mass_matrix` · `accelerations` = `forcing` is the unconstrained tree in the formulation's own
    velocity variables (`speeds`): the rates q̇ for Lagrange, Maggi, Udwadia–Kalaba and the tree
    view, the model's speeds for Kane. The constrained form (saddle point, Maggi's reduced
    equations, Kane's nonholonomic equations, the Udwadia–Kalaba acceleration) is in `sections`.
    """

    method: str
    title: str
    reference: str  # the equation's name and source
    coordinates: list[str]
    speeds: list[str]
    accelerations: list[sp.Symbol]
    mass_matrix: sp.Matrix
    forcing: sp.Matrix
    constraint_matrix: sp.Matrix | None = None  # A (in the accelerations above)
    constraint_rhs: sp.Matrix | None = None  # b
    constraint_names: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    parameters: dict[sp.Symbol, float] = field(default_factory=dict)  # symbol -> file's number

    def section(self, title: str) -> Section:
        section = Section(title)
        self.sections.append(section)
        return section

    def item(self, symbol: str):
        """The value of the item with this short name (for tests and the GUI)."""
        for section in self.sections:
            for item in section.items:
                if item.symbol == symbol:
                    return item.value
        raise KeyError(symbol)

    def equations_of_motion(self) -> sp.Matrix:
        """M v̇ − forcing (= 0 for the unconstrained tree)."""
        return self.mass_matrix * sp.Matrix(self.accelerations) - self.forcing
