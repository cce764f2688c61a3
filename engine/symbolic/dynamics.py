"""Pieces shared by the formulations: partial velocities, the mass matrix and the rest of Kane's
generalized inertia forces, the kinematic equations' section."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.force_terms import partial
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.matrix_product import product


def partial_velocities(tree: SymbolicTree, speeds: bool) -> dict[str, tuple[sp.Matrix, sp.Matrix]]:
    """Per body: (3×n partial velocities of the mass centre, 3×n partial angular velocities),
    both in the body's own axes — the columns are v^(r) and ω^(r) of Kane and Levinson."""
    velocities = tree.velocities(speeds)
    table = {}
    for name in tree.bodies:
        v = partial(tree.com_velocity_body(name, speeds), velocities)
        w = partial(tree.omega_body(name, speeds), velocities)
        table[name] = (tree.simplify(v), tree.simplify(w))
    return table


def inertia_split(tree: SymbolicTree, speeds: bool, table) -> tuple[sp.Matrix, sp.Matrix]:
    """(M, rest) with Σ_B (m_B a_B·v_B^(r) + (I_B α_B + ω_B × I_B ω_B)·ω_B^(r)) = M v̇ + rest, i.e.
    F_r* = −(M v̇ + rest): M = Σ_B (m_B V_Bᵀ V_B + W_Bᵀ I_B W_B) from the partial velocities V_B, W_B
    (the coefficients of v̇ in a_B and α_B), rest from the accelerations at v̇ = 0. Formed body by
    body: differentiating the whole F_r* in v̇ walks expressions hundreds of times longer."""
    n = len(tree.velocities(speeds))
    at_rest = {a: 0 for a in tree.accelerations(speeds)}
    M, rest = sp.zeros(n, n), sp.zeros(n, 1)
    for name, frame in tree.bodies.items():
        tree.progress.checkpoint(f"mass matrix and inertia forces of {name}")
        v_r, w_r = table[name]
        I = frame.inertia
        a = tree.com_acceleration_body(name, speeds).xreplace(at_rest)
        w, alpha = tree.omega_body(name, speeds), tree.alpha_body(name, speeds).xreplace(at_rest)
        M += product(v_r.T, frame.mass * v_r) + product(w_r.T, I, w_r)
        rest += product(v_r.T, frame.mass * a) + product(w_r.T, product(I, alpha) + w.cross(product(I, w)))
    return M, rest


def equations_in_speeds(key: str, entry, tree: SymbolicTree, mass_matrix, forcing) -> Equations:
    """The Equations of a formulation written in the model's speeds (Kane's, Gibbs–Appell's): M u̇ = forcing,
    with the kinematic equations' section first."""
    eq = Equations(
        method=key, title=entry.name, reference=entry.source,
        coordinates=list(tree.coordinate_names), speeds=list(tree.speed_names),
        accelerations=list(tree.ud), mass_matrix=mass_matrix, forcing=forcing, parameters=dict(tree.params.values))
    show_kinematic_equations(eq, tree)
    return eq


def show_kinematic_equations(eq, tree: SymbolicTree) -> None:
    """The section q̇ = W(q) u of the Equations `eq` (formulations written in the model's speeds)."""
    section = eq.section("Generalised speeds and the kinematic equations")
    section.add("", Tex(r"\dot q = W(q)\,u"))
    trivial = [r for r in tree.qd if tree.qdot_in_speeds[r] == r]
    if trivial:
        section.add("speeds", "The speeds equal the rates of " + ", ".join(str(r)[:-4] for r in trivial) + ".")
    for rate in tree.qd:
        if tree.qdot_in_speeds[rate] != rate:
            section.add("", sp.Eq(rate, tree.qdot_in_speeds[rate], evaluate=False))
