"""The generalised Maggi equations: Cᵀ(M q̈ + h − Q) = 0 with q̈ = C w + q̈_p."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.about import MAGGI
from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.errors import constraints_too_long
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.lagrange_equations import add_constraint_sections, lagrange_core, rate_constraints
from eomlab.engine.symbolic.partition import partition, small_inverse
from eomlab.engine.symbolic.matrix_product import product


def maggi_equations(tree: SymbolicTree) -> Equations:
    """Maggi: q̈ = q̈_p + C w with A C = 0 and A q̈_p = b;
    first group, l equations free of multipliers: Cᵀ(M q̈ − Q + h) = 0, i.e.
    (Cᵀ M C) w = Cᵀ(Q − h − M q̈_p); second group: λ = Dᵀ(M q̈ − Q + h) with A D = I."""
    _T, _V, M, _gamma, h, Q = lagrange_core(tree)
    Y = tree.simplify(Q - h)
    rows = rate_constraints(tree)
    eq = Equations(
        method="maggi", title=MAGGI.name, reference=MAGGI.source,
        coordinates=list(tree.coordinate_names), speeds=[str(s) for s in tree.qd],
        accelerations=list(tree.qdd), mass_matrix=M, forcing=Y, parameters=dict(tree.params.values))
    free = eq.section("The unconstrained system")
    free.add("", Tex(r"M\,\ddot q = Q - h"))
    free.add("the mass matrix", M, "M", tex="M").add("applied and velocity forces", Y, "Y", tex="Q - h")
    if rows.A.rows and constraints_too_long(rows.A, rows.b):
        add_constraint_sections(eq, tree, rows, M, Y, saddle_point=False)
        eq.section("First group, free of multipliers").add(
            "reduction", "The constraint rows are too long to reduce symbolically; the program finds the basis "
            "numerically at each step and solves the first group there.")
        return eq
    tree.progress.checkpoint("Maggi partition")
    split = partition(tree, rows.A, rows.b)
    independent = [tree.coordinate_names[i] for i in split.independent]
    w = sp.Matrix([tree.qdd[i] for i in split.independent])
    choice = eq.section("Independent accelerations, by coordinate partitioning")
    choice.add("independent coordinates", "Independent coordinates: " + (", ".join(independent) or "none") + ".")
    choice.add("dependent coordinates", "Dependent coordinates: "
               + (", ".join(tree.coordinate_names[i] for i in split.dependent) or "none") + ".")
    choice.add("the basis of allowed accelerations, one column per independent coordinate", split.C, "C", tex="C")
    choice.add("a particular acceleration on the constraints", split.particular, "qdd_p", tex=r"\ddot q_p")
    tree.progress.checkpoint("Maggi reduced equations")
    M_reduced = tree.simplify(product(split.C.T, M, split.C))
    f_reduced = tree.simplify(product(split.C.T, Y - product(M, split.particular)))
    first = eq.section("First group: the equations free of multipliers")
    first.add("", Tex(r"C^{\mathsf T}\big(M\,\ddot q + h - Q\big) = 0 \quad\Longrightarrow\quad "
                      r"\big(C^{\mathsf T} M\,C\big)\,w = C^{\mathsf T}\big(Q - h - M\,\ddot q_p\big)"), role="reduced")
    first.add("the mass matrix in the allowed directions", M_reduced, "reduced_mass_matrix",
              tex=r"C^{\mathsf T} M\,C", role="mass")
    first.add("the forces in the allowed directions", f_reduced, "reduced_forcing",
              tex=r"C^{\mathsf T}\big(Q - h - M\,\ddot q_p\big)", role="forcing")
    lhs = product(M_reduced, w)
    for i in range(len(independent)):
        first.add("", sp.Eq(lhs[i], f_reduced[i], evaluate=False), role="reduced")
    if rows.A.rows:
        add_constraint_sections(eq, tree, rows, M, Y, saddle_point=False)
        second = eq.section("Second group: the multipliers")
        second.add("a right inverse of the constraint matrix", split.D, "D", tex="D")
        second.add("", Tex(r"\lambda = D^{\mathsf T}\big(M\,\ddot q + h - Q\big), \qquad \ddot q = C\,w + \ddot q_p"),
                   role="multipliers")
        if rows.velocity_A.rows == rows.A.rows:
            quasi = eq.section("Quasi-velocities: the independent rates")
            quasi.add("", Tex(r"\dot q = C\,\nu + c"))
            quasi.add("the quasi-velocities", sp.Matrix([tree.qd[i] for i in split.independent]), tex=r"\nu")
            quasi.add("the rates at zero quasi-velocity", _velocity_particular(tree, rows, split), "c", tex="c")
    return eq


def _velocity_particular(tree: SymbolicTree, rows, split) -> sp.Matrix:
    """c in q̇ = C ν + c: the dependent rates at ν = 0, from J q̇ + j = 0."""
    k = rows.velocity_A.rows
    J_d = rows.velocity_A.extract(list(range(k)), split.dependent)
    c_d = tree.simplify(product(-small_inverse(J_d), rows.velocity_bias)) if k <= 3 else -J_d.LUsolve(rows.velocity_bias)
    c = sp.zeros(len(tree.q), 1)
    for position, row in enumerate(split.dependent):
        c[row] = c_d[position]
    return c
