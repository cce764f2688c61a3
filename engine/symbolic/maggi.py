"""The generalized Maggi equations (THEORY.md §3, seed 002 (4.6)–(4.11))."""
from __future__ import annotations

import sympy as sp

from .base import Equations
from .errors import constraints_too_long
from .kinematics import SymbolicTree
from .lagrange import add_constraint_sections, lagrange_core, rate_constraints
from .partition import partition


def maggi_equations(tree: SymbolicTree) -> Equations:
    """Maggi (4.6)–(4.11): q̈ = q̈_p + C w with A C = 0 and A q̈_p = b;
    first group, l equations free of multipliers: Cᵀ(M q̈ − Q + h) = 0, i.e.
    (Cᵀ M C) w = Cᵀ(Q − h − M q̈_p); second group: λ = Dᵀ(M q̈ − Q + h) with A D = I."""
    _T, _V, M, _gamma, h, Q = lagrange_core(tree)
    Y = tree.simplify(Q - h)
    rows = rate_constraints(tree)
    eq = Equations(
        method="maggi", title="Generalized Maggi equations", reference="THEORY.md §3, seed 002 (4.6)–(4.11)",
        coordinates=list(tree.coordinate_names), speeds=[str(s) for s in tree.qd],
        accelerations=list(tree.qdd), mass_matrix=M, forcing=Y, parameters=dict(tree.params.values))
    eq.section("The unconstrained system (2.6): M q̈ = Q − h").add("M", M, "M").add("Q − h", Y, "Y")
    if rows.A.rows and constraints_too_long(rows.A, rows.b):
        add_constraint_sections(eq, tree, rows, M, Y)
        eq.section("First group (4.6): Cᵀ(M q̈ − Q + h) = 0").add(
            "reduction", "the constraint rows are too long to reduce symbolically; C is found numerically "
            "(A C = 0) and (Cᵀ M C) w = Cᵀ(Q − h − M q̈_p) solved at each step")
        return eq
    tree.progress.checkpoint("Maggi partition")
    split = partition(tree, rows.A, rows.b)
    independent = [tree.coordinate_names[i] for i in split.independent]
    w = sp.Matrix([tree.qdd[i] for i in split.independent])
    choice = eq.section("Independent accelerations w (coordinate partitioning), A C = 0")
    choice.add("independent coordinates", ", ".join(independent) or "none")
    choice.add("dependent coordinates", ", ".join(tree.coordinate_names[i] for i in split.dependent) or "none")
    choice.add("C (columns: basis e_λ of the L-subspace)", split.C, "C")
    choice.add("q̈_p (A q̈_p = b)", split.particular, "qdd_p")
    tree.progress.checkpoint("Maggi reduced equations")
    M_reduced = tree.simplify(split.C.T * M * split.C)
    f_reduced = tree.simplify(split.C.T * (Y - M * split.particular))
    first = eq.section("First group (4.6): Cᵀ(M q̈ − Q + h) = 0  ⇒  (Cᵀ M C) w = Cᵀ(Q − h − M q̈_p)")
    first.add("Cᵀ M C", M_reduced, "reduced_mass_matrix")
    first.add("Cᵀ(Q − h − M q̈_p)", f_reduced, "reduced_forcing")
    lhs = M_reduced * w
    for i, name in enumerate(independent):
        first.add(f"along {name}", sp.Eq(lhs[i], f_reduced[i]))
    if rows.A.rows:
        add_constraint_sections(eq, tree, rows, M, Y)
        second = eq.section("Second group (4.11): the reactions λ = Dᵀ(M q̈ − Q + h), A D = I")
        second.add("D", split.D, "D")
        second.add("λ", "Dᵀ (M q̈ − Q + h) with q̈ = q̈_p + C w from the first group")
        if rows.velocity_A.rows == rows.A.rows:
            quasi = eq.section("Quasi-velocities ν = independent rates: q̇ = C ν + c")
            quasi.add("ν", sp.Matrix([tree.qd[i] for i in split.independent]))
            quasi.add("c", _velocity_particular(tree, rows, split), "c")
    return eq


def _velocity_particular(tree: SymbolicTree, rows, split) -> sp.Matrix:
    """c in q̇ = C ν + c: the dependent rates at ν = 0, from J q̇ + j = 0."""
    k = rows.velocity_A.rows
    J_d = rows.velocity_A.extract(list(range(k)), split.dependent)
    c_d = tree.simplify(-J_d.inv() * rows.velocity_bias) if k <= 3 else -J_d.LUsolve(rows.velocity_bias)
    c = sp.zeros(len(tree.q), 1)
    for position, row in enumerate(split.dependent):
        c[row] = c_d[position]
    return c
