"""The Gibbs–Appell equations ∂S/∂u̇_r = F_r (Gibbs 1879, Appell 1900), written out with sympy.

The Gibbs function S = ½ Σ_B (m_B a_B·a_B + α_B·I_B α_B + 2 α_B·(ω_B × I_B ω_B)) (terms without
accelerations dropped) in the model's own speeds: body rates of spherical and free joints are
quasi-velocities and their derivatives quasi-accelerations. S is differentiated with respect to
the generalized accelerations; with constraints the dependent accelerations are replaced by the
independent ones (u̇ = C u̇_i + u̇_p) and S is differentiated in those.
"""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.about import GIBBS_APPELL
from eomlab.engine.symbolic.derived_equations import Equations
from eomlab.engine.symbolic.constraint_terms import acceleration_rows, constraint_rows, partitioned_rows
from eomlab.engine.symbolic.dynamics import equations_in_speeds, inertia_split
from eomlab.engine.symbolic.force_terms import generalized_active_forces
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.matrix_product import product



def gibbs_function(tree: SymbolicTree) -> tuple[sp.Expr, dict[str, tuple[sp.Matrix, sp.Matrix]]]:
    """S in the speeds' derivatives u̇, and each body's (a_B, α_B) in its own axes."""
    S = sp.Integer(0)
    accelerations = {}
    for name, frame in tree.bodies.items():
        tree.progress.checkpoint(f"Gibbs function of {name}")
        a = tree.com_acceleration_body(name, speeds=True)
        w, alpha = tree.omega_body(name, speeds=True), tree.alpha_body(name, speeds=True)
        I = frame.inertia
        S += (frame.mass * a.dot(a) + alpha.dot(I * alpha) + 2 * alpha.dot(w.cross(I * w))) / 2
        accelerations[name] = (a, alpha)
    return S, accelerations


def gradient_parts(tree: SymbolicTree, accelerations) -> tuple[sp.Matrix, sp.Matrix]:
    """∂S/∂u̇ = M u̇ + ∂S/∂u̇|₀ by the chain rule, body by body (S itself is far longer than its
    parts): ∂S/∂u̇_r = Σ_B (m_B a_B·∂a_B/∂u̇_r + (I_B α_B + ω_B × I_B ω_B)·∂α_B/∂u̇_r)."""
    ud = sp.Matrix(tree.ud)
    table = {name: (a.jacobian(ud), alpha.jacobian(ud)) for name, (a, alpha) in accelerations.items()}
    return inertia_split(tree, True, table)


def gibbs_appell_equations(tree: SymbolicTree) -> Equations:
    """Gibbs–Appell: ∂S/∂u̇_r = F_r, S = ½ Σ_B (m a·a + α·I α + 2 α·(ω × I ω)); S is quadratic in
    u̇, so ∂S/∂u̇ = M u̇ + (∂S/∂u̇ at u̇ = 0) and the equations are M u̇ = F − ∂S/∂u̇|₀."""
    S, accelerations = gibbs_function(tree)
    tree.progress.checkpoint("∂S/∂u̇")
    hessian, at_zero = gradient_parts(tree, accelerations)
    dS = product(hessian, sp.Matrix(tree.ud)) + at_zero
    F = generalized_active_forces(tree, speeds=True)
    M = tree.simplify(hessian)
    forcing = tree.simplify(F - at_zero)
    eq = equations_in_speeds("gibbs_appell", GIBBS_APPELL, tree, M, forcing)
    body = eq.section("Accelerations of the mass centres a_B and angular accelerations α_B (body axes)")
    for name, (a, alpha) in accelerations.items():
        body.add(f"a_{name}", a, f"a_{name}").add(f"α_{name}", alpha, f"alpha_{name}")
    gibbs = eq.section("Gibbs function S = ½ Σ_B (m_B a_B·a_B + α_B·I_B α_B + 2 α_B·(ω_B × I_B ω_B))")
    gibbs.add("S", tree.simplify(S), "S")
    equations = eq.section("Gibbs–Appell equations ∂S/∂u̇_r = F_r")
    for r, speed in enumerate(tree.speed_names):
        equations.add(f"r = {r + 1} ({speed})", sp.Eq(tree.simplify(dS[r]), F[r], evaluate=False))
    equations.add("F_r", F, "F")
    equations.add("M = ∂²S/∂u̇² (M u̇ = forcing)", M, "M").add("forcing = F − ∂S/∂u̇|₀", forcing, "forcing")
    rows = acceleration_rows(tree, constraint_rows(tree), speeds=True)
    split = rows.A.rows and partitioned_rows(
        eq, tree, rows, "Constraints in the speeds: A u̇ = b", "Gibbs–Appell equations over the independent accelerations",
        "writes S in the independent quasi-accelerations w and solves ∂S/∂w = Cᵀ F")
    if split:
        _in_independent_accelerations(eq, tree, split, (hessian, at_zero), F)
    return eq


def _in_independent_accelerations(eq: Equations, tree: SymbolicTree, split, gradient, F: sp.Matrix) -> None:
    """u̇ = C u̇_i + u̇_p from A u̇ = b; S(u̇_i) differentiated in the independent accelerations:
    ∂S/∂u̇_i = Cᵀ ∂S/∂u̇ (chain rule) = Cᵀ F (the active forces' virtual power along the
    admissible directions)."""
    independent = [tree.ud[i] for i in split.independent]
    reduced = eq.section("Gibbs–Appell equations over the independent accelerations: ∂S/∂u̇_i = Cᵀ F")
    if not independent:
        reduced.add("u̇ = u̇_p (the constraints fix every acceleration)", sp.Eq(sp.Matrix(tree.ud), split.particular, evaluate=False))
        return
    admissible = product(split.C, sp.Matrix(independent)) + split.particular
    tree.progress.checkpoint("S in the independent accelerations")
    hessian, at_zero = gradient
    F_reduced = tree.simplify(product(split.C.T, F))
    reduced.add("u̇ = C u̇_i + u̇_p", sp.Eq(sp.Matrix(tree.ud), admissible, evaluate=False))
    M_reduced = tree.simplify(product(split.C.T, hessian, split.C))
    f_reduced = tree.simplify(F_reduced - product(split.C.T, product(hessian, split.particular) + at_zero))
    reduced.add("M̃ = ∂²S/∂u̇_i²", M_reduced, "reduced_mass_matrix").add("f̃ = Cᵀ F − ∂S/∂u̇_i|₀", f_reduced,
                                                                       "reduced_forcing")
    lhs = product(M_reduced, sp.Matrix(independent))
    for r, acceleration in enumerate(independent):
        reduced.add(f"r = {r + 1} ({acceleration})", sp.Eq(lhs[r], f_reduced[r], evaluate=False))
