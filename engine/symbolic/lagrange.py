"""Lagrange's equations of the second kind with multipliers (THEORY.md (2.6)–(2.7), (4.5))."""
from __future__ import annotations

import sympy as sp

from .base import Equations
from .constraints import AccelerationRows, acceleration_rows, constraint_rows
from .forces import generalized_active_forces, kinetic_energy, potential_energy
from .kinematics import SymbolicTree

#: more nonzero Christoffel symbols than this are summarized, not listed
CHRISTOFFEL_LISTING_LIMIT = 30


def christoffel_symbols(tree: SymbolicTree, M: sp.Matrix) -> list[list[list[sp.Expr]]]:
    """Γ[σ][α][β] = ½ (∂M_σα/∂q^β + ∂M_σβ/∂q^α − ∂M_αβ/∂q^σ), the first kind (2.7)."""
    q = tree.q
    n = len(q)
    dM = [M.diff(qk) for qk in q]  # dM[k][i, j] = ∂M_ij/∂q^k
    gamma = [[[sp.Integer(0)] * n for _ in range(n)] for _ in range(n)]
    for s in range(n):
        tree.progress.checkpoint(f"Christoffel symbols Γ_{s + 1},αβ")
        for a in range(n):
            for b in range(a, n):
                value = tree.simplify((dM[b][s, a] + dM[a][s, b] - dM[s][a, b]) / 2)
                gamma[s][a][b] = gamma[s][b][a] = value
    return gamma


def christoffel_terms(tree: SymbolicTree, gamma) -> sp.Matrix:
    """h_σ = Γ_σ,αβ q̇^α q̇^β."""
    qd = tree.qd
    n = len(qd)
    h = [sum((gamma[s][a][b] * qd[a] * qd[b] for a in range(n) for b in range(n)), sp.Integer(0))
         for s in range(n)]
    return tree.simplify(sp.Matrix(h))


def lagrange_core(tree: SymbolicTree):
    """T, V, M, Γ, h and Q in the rates q̇ (shared by Lagrange, Maggi and Udwadia–Kalaba)."""
    tree.progress.checkpoint("kinetic energy")
    T = kinetic_energy(tree, speeds=False)
    tree.progress.checkpoint("mass matrix")
    M = tree.simplify(sp.hessian(T, tree.qd))
    gamma = christoffel_symbols(tree, M)
    h = christoffel_terms(tree, gamma)
    tree.progress.checkpoint("generalized forces")
    Q = generalized_active_forces(tree, speeds=False)
    V = potential_energy(tree)
    return T, V, M, gamma, h, Q


def rate_constraints(tree: SymbolicTree) -> AccelerationRows:
    return acceleration_rows(tree, constraint_rows(tree), speeds=False)


def nonzero_christoffel(tree: SymbolicTree, gamma) -> dict:
    """Γ_σ,αβ ≠ 0 with α ≤ β, keyed by readable names (σ, α, β as coordinate names)."""
    names = tree.coordinate_names
    n = len(names)
    return {(names[s], names[a], names[b]): gamma[s][a][b]
            for s in range(n) for a in range(n) for b in range(a, n) if gamma[s][a][b] != 0}


def lagrange_equations(tree: SymbolicTree) -> Equations:
    """Lagrange with multipliers, (4.5): M q̈ + h = Q + Aᵀλ with A q̈ = b,
    solved as the saddle-point system [[M, Aᵀ], [A, 0]] [q̈; −λ] = [Q − h; b]."""
    T, V, M, gamma, h, Q = lagrange_core(tree)
    rows = rate_constraints(tree)
    eq = Equations(
        method="lagrange", title="Lagrange's equations of the second kind with multipliers",
        reference="THEORY.md (2.6)–(2.7), (4.5)", coordinates=list(tree.coordinate_names),
        speeds=[str(s) for s in tree.qd], accelerations=list(tree.qdd), mass_matrix=M,
        forcing=tree.simplify(Q - h), parameters=dict(tree.params.values))
    energy = eq.section("Energies")
    energy.add("kinetic energy T = ½ q̇ᵀ M(q) q̇", T, "T").add("potential energy V", V, "V")
    metric = eq.section("Mass matrix (2.2): M_στ = ∂²T/∂q̇^σ∂q̇^τ")
    metric.add("M(q)", M, "M")
    christoffel = eq.section("Christoffel symbols of the first kind (2.7): "
                             "Γ_σ,αβ = ½(∂M_σα/∂q^β + ∂M_σβ/∂q^α − ∂M_αβ/∂q^σ)")
    listed = nonzero_christoffel(tree, gamma)
    if len(listed) <= CHRISTOFFEL_LISTING_LIMIT:
        for (s, a, b), value in listed.items():
            christoffel.add(f"Γ[{s}; {a}, {b}]", value)
    else:
        christoffel.add("Γ", f"{len(listed)} nonzero symbols, too many to list; their sums h follow")
    if not listed:
        christoffel.add("all Γ", sp.Integer(0))
    christoffel.add("h_σ = Γ_σ,αβ q̇^α q̇^β", h, "h")
    eq.section("Generalized forces (2.3)–(2.4): δA = Σ F·δr + L·δθ = Q·δq").add("Q", Q, "Q")
    motion = eq.section("Equations of motion (2.6): M q̈ + h = Q" + (" + Aᵀλ  (4.5)" if rows.A.rows else ""))
    lam = sp.Matrix([sp.Symbol(f"lambda_{name}", real=True) for name in rows.names])
    lhs = M * sp.Matrix(tree.qdd) + h
    rhs = Q + (rows.A.T * lam if rows.A.rows else sp.zeros(len(tree.q), 1))
    for i, name in enumerate(tree.coordinate_names):
        motion.add(f"along {name}", sp.Eq(lhs[i], rhs[i]))
    if rows.A.rows:
        add_constraint_sections(eq, tree, rows, M, Q - h)
    return eq


def add_constraint_sections(eq: Equations, tree: SymbolicTree, rows: AccelerationRows, M, Y) -> None:
    """A q̈ = b (3.1) and the saddle-point system of (4.5)."""
    eq.constraint_matrix, eq.constraint_rhs, eq.constraint_names = rows.A, rows.b, list(rows.names)
    k = rows.A.rows
    section = eq.section("Constraints at the acceleration level (3.1)–(3.3): A q̈ = b")
    for name, level in zip(rows.names, rows.levels):
        section.add(f"{name}", level)
    section.add("A", rows.A, "A").add("b", rows.b, "b")
    saddle = eq.section("Saddle-point system (4.5): [[M, Aᵀ], [A, 0]] [q̈; −λ] = [Q − h; b]")
    K = sp.Matrix(sp.BlockMatrix([[M, rows.A.T], [rows.A, sp.zeros(k, k)]]))
    saddle.add("[[M, Aᵀ], [A, 0]]", K, "saddle_matrix")
    saddle.add("[Q − h; b]", sp.Matrix.vstack(Y, rows.b), "saddle_rhs")
    saddle.add("multipliers", "λ = (A M⁻¹ Aᵀ)⁻¹ (b − A M⁻¹ (Q − h)); reaction R = Aᵀλ (3.12)")
