"""Kane's equations F_r + F_r* = 0 in the model's own generalised speeds (Kane and Levinson 1985)."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.about import KANE
from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.constraint_terms import acceleration_rows, constraint_rows, partitioned_rows
from eomlab.engine.symbolic.dynamics import equations_in_speeds, inertia_split, partial_velocities
from eomlab.engine.symbolic.force_terms import generalized_active_forces
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.latex import symbol_latex
from eomlab.engine.symbolic.partition import small_inverse
from eomlab.engine.symbolic.matrix_product import product


def kane_equations(tree: SymbolicTree) -> Equations:
    """Kane: F_r = Σ_B (R_B·v_B^(r) + L_B·ω_B^(r)),
    F_r* = −Σ_B (m_B a_B·v_B^(r) + (I_B α_B + ω_B × I_B ω_B)·ω_B^(r)), and F_r + F_r* = 0;
    with constraints u_d = A_d u_i + B_d, the nonholonomic partial velocities
    ṽ^(r) = v^(r) + Σ_d v^(d) (A_d)_dr over the independent speeds."""
    tree.progress.checkpoint("partial velocities")
    table = partial_velocities(tree, speeds=True)
    F = generalized_active_forces(tree, speeds=True)
    M, rest = inertia_split(tree, True, table)
    M = tree.simplify(M)
    F_star = tree.simplify(-(product(M, sp.Matrix(tree.ud)) + rest))
    forcing = tree.simplify(F - rest)
    eq = equations_in_speeds("kane", KANE, tree, M, forcing)
    _partials_section(eq, tree, table)
    forces = eq.section("Generalised active and inertia forces")
    forces.add("generalised active forces", F, "F", tex="F_r", role="forcing")
    forces.add("generalised inertia forces", F_star, "F_star", tex=r"F_r^{*}")
    equations = eq.section("Kane's equations, written as a mass matrix and a forcing")
    equations.add("", Tex(r"F_r + F_r^{*} = 0 \quad\Longleftrightarrow\quad M\,\dot u = f"), role="reduced")
    equations.add("the mass matrix, minus the coefficients of the accelerations in the inertia forces", M, "M",
                  tex="M", role="mass")
    equations.add("the forcing: everything else", forcing, "forcing", tex="f", role="forcing")
    rows = acceleration_rows(tree, constraint_rows(tree), speeds=True)
    if rows.A.rows:
        _constrained(eq, tree, rows, table, M, forcing)
    return eq


def _speed_tex(tree: SymbolicTree, name: str) -> str:
    return symbol_latex(name[:-4], 1) if name.endswith("_dot") else symbol_latex(name)


def _partials_section(eq: Equations, tree: SymbolicTree, table) -> None:
    section = eq.section("Partial velocities of the mass centres (world axes) and partial angular velocities "
                         "(body axes), one per speed")
    for body, (v_body, w) in table.items():
        v = tree.simplify(tree.rotation(body) * v_body)
        for r, speed in enumerate(tree.speed_names):
            section.add("", v[:, r], f"v_{body}_{r + 1}", tex=rf"v_{{\mathrm{{{body}}}}}^{{({_speed_tex(tree, speed)})}}")
            section.add("", w[:, r], f"w_{body}_{r + 1}",
                        tex=rf"\omega_{{\mathrm{{{body}}}}}^{{({_speed_tex(tree, speed)})}}")


def _constrained(eq: Equations, tree: SymbolicTree, rows, table, M, forcing) -> None:
    """u̇_d from A u̇ = b; the reduced equations C̃ᵀ(M u̇ − forcing) = 0 over the independent speeds."""
    split = partitioned_rows(eq, tree, rows, "Constraints in the speeds", "Kane's equations over the independent speeds",
                             "solves for the dependent speeds and the reduced equations")
    if split is None:
        return
    independent = [tree.speed_names[i] for i in split.independent]
    dependent = [tree.speed_names[i] for i in split.dependent]
    A_d = split.C.extract(split.dependent, list(range(len(split.independent))))
    speeds = eq.section("Dependent speeds")
    speeds.add("", Tex(r"u_d = A_d\,u_i + B_d"))
    speeds.add("independent speeds", "Independent speeds: " + (", ".join(independent) or "none") + ".")
    speeds.add("dependent speeds", "Dependent speeds: " + ", ".join(dependent) + ".")
    speeds.add("", A_d, "A_d", tex="A_d")
    if rows.velocity_A.rows == rows.A.rows:
        J_d = rows.velocity_A.extract(list(range(rows.A.rows)), split.dependent)
        speeds.add("", tree.simplify(product(-small_inverse(J_d), rows.velocity_bias)), "B_d", tex="B_d")
    partials = eq.section("Nonholonomic partial velocities, over the independent speeds")
    partials.add("", Tex(r"\tilde v^{(r)} = v^{(r)} + \sum_d v^{(d)} (A_d)_{dr}"))
    for body, (v_body, w) in table.items():
        v = tree.rotation(body) * v_body
        v_tilde, w_tilde = tree.simplify(product(v, split.C)), tree.simplify(product(w, split.C))
        for column, speed in enumerate(independent):
            partials.add("", v_tilde[:, column], tex=rf"\tilde v_{{\mathrm{{{body}}}}}^{{({_speed_tex(tree, speed)})}}")
            partials.add("", w_tilde[:, column],
                         tex=rf"\tilde\omega_{{\mathrm{{{body}}}}}^{{({_speed_tex(tree, speed)})}}")
    reduced = eq.section("Kane's equations over the independent speeds")
    reduced.add("", Tex(r"\tilde F_r + \tilde F_r^{*} = 0 \quad\Longleftrightarrow\quad \tilde M\,\dot u_i = \tilde f"),
                role="reduced")
    M_reduced = tree.simplify(product(split.C.T, M, split.C))
    f_reduced = tree.simplify(product(split.C.T, forcing - product(M, split.particular)))
    reduced.add("the mass matrix over the independent speeds", M_reduced, "reduced_mass_matrix",
                tex=r"\tilde M", role="mass")
    reduced.add("the forcing over the independent speeds", f_reduced, "reduced_forcing", tex=r"\tilde f",
                role="forcing")
    lhs = product(M_reduced, sp.Matrix([tree.ud[i] for i in split.independent]))
    for r in range(len(independent)):
        reduced.add("", sp.Eq(lhs[r], f_reduced[r], evaluate=False), role="reduced")
