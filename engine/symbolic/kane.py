"""Kane's equations F_r + F_r* = 0 in the model's own generalized speeds (seed 003, THEORY.md §3)."""
from __future__ import annotations

import sympy as sp

from .base import Equations
from .constraints import acceleration_rows, constraint_rows, partitioned_rows
from .dynamics import generalized_inertia_forces, partial_velocities, show_kinematic_equations, split_linear
from .forces import generalized_active_forces
from .kinematics import SymbolicTree


def kane_equations(tree: SymbolicTree) -> Equations:
    """Kane (seed 003): F_r = Σ_B (R_B·v_B^(r) + L_B·ω_B^(r)),
    F_r* = −Σ_B (m_B a_B·v_B^(r) + (I_B α_B + ω_B × I_B ω_B)·ω_B^(r)), and F_r + F_r* = 0;
    with constraints u_d = A_d u_i + B_d, the nonholonomic partial velocities
    ṽ^(r) = v^(r) + Σ_d v^(d) (A_d)_dr over the independent speeds."""
    tree.progress.checkpoint("partial velocities")
    table = partial_velocities(tree, speeds=True)
    F = generalized_active_forces(tree, speeds=True)
    F_star = tree.simplify(generalized_inertia_forces(tree, speeds=True, table=table))
    M_neg, F_star_rest = split_linear(F_star, tree.ud)
    M = tree.simplify(-M_neg)
    forcing = tree.simplify(F + F_star_rest)
    eq = Equations(
        method="kane", title="Kane's equations", reference="seed 003; THEORY.md §3 (Kane)",
        coordinates=list(tree.coordinate_names), speeds=list(tree.speed_names),
        accelerations=list(tree.ud), mass_matrix=M, forcing=forcing, parameters=dict(tree.params.values))
    show_kinematic_equations(eq, tree)
    _partials_section(eq, tree, table)
    forces = eq.section("Generalized active and inertia forces")
    forces.add("F_r", F, "F").add("F_r*", F_star, "F_star")
    equations = eq.section("Kane's equations F_r + F_r* = 0")
    total = tree.simplify(F + F_star)
    for r, speed in enumerate(tree.speed_names):
        equations.add(f"r = {r + 1} ({speed})", sp.Eq(total[r], 0))
    equations.add("M (M u̇ = forcing)", M, "M").add("forcing", forcing, "forcing")
    rows = acceleration_rows(tree, constraint_rows(tree), speeds=True)
    if rows.A.rows:
        _constrained(eq, tree, rows, table, M, forcing)
    return eq


def _partials_section(eq: Equations, tree: SymbolicTree, table) -> None:
    section = eq.section("Partial velocities v_B^(r) (mass centres, world axes) and partial angular "
                         "velocities ω_B^(r) (body axes)")
    for body, (v_body, w) in table.items():
        v = tree.simplify(tree.rotation(body) * v_body)
        for r, speed in enumerate(tree.speed_names):
            section.add(f"v_{body}^({r + 1}) [{speed}]", v[:, r], f"v_{body}_{r + 1}")
            section.add(f"ω_{body}^({r + 1}) [{speed}]", w[:, r], f"w_{body}_{r + 1}")


def _constrained(eq: Equations, tree: SymbolicTree, rows, table, M, forcing) -> None:
    """u̇_d from A u̇ = b; the reduced equations C̃ᵀ(M u̇ − forcing) = 0 over the independent speeds."""
    split = partitioned_rows(eq, tree, rows, "Constraints in the speeds: A u̇ = b (velocity rows J u + j = 0)",
                             "Kane's equations over the independent speeds",
                             "solves u_d = A_d u_i + B_d and F̃_r + F̃_r* = 0")
    if split is None:
        return
    independent = [tree.speed_names[i] for i in split.independent]
    dependent = [tree.speed_names[i] for i in split.dependent]
    A_d = split.C.extract(split.dependent, list(range(len(split.independent))))
    speeds = eq.section("Dependent speeds u_d = A_d u_i + B_d")
    speeds.add("independent speeds", ", ".join(independent) or "none")
    speeds.add("dependent speeds", ", ".join(dependent))
    speeds.add("A_d", A_d, "A_d")
    if rows.velocity_A.rows == rows.A.rows:
        J_d = rows.velocity_A.extract(list(range(rows.A.rows)), split.dependent)
        speeds.add("B_d", tree.simplify(-J_d.inv() * rows.velocity_bias), "B_d")
    partials = eq.section("Nonholonomic partial velocities ṽ^(r) = v^(r) + Σ_d v^(d) (A_d)_dr")
    for body, (v_body, w) in table.items():
        v = tree.rotation(body) * v_body
        v_tilde, w_tilde = tree.simplify(v * split.C), tree.simplify(w * split.C)
        for column, speed in enumerate(independent):
            partials.add(f"ṽ_{body}^({column + 1}) [{speed}]", v_tilde[:, column])
            partials.add(f"ω̃_{body}^({column + 1}) [{speed}]", w_tilde[:, column])
    reduced = eq.section("Kane's equations over the independent speeds: F̃_r + F̃_r* = 0")
    M_reduced = tree.simplify(split.C.T * M * split.C)
    f_reduced = tree.simplify(split.C.T * (forcing - M * split.particular))
    reduced.add("M̃", M_reduced, "reduced_mass_matrix").add("f̃", f_reduced, "reduced_forcing")
    lhs = M_reduced * sp.Matrix([tree.ud[i] for i in split.independent])
    for r, speed in enumerate(independent):
        reduced.add(f"r = {r + 1} ({speed})", sp.Eq(lhs[r], f_reduced[r]))
