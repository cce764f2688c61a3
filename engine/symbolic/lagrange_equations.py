"""Lagrange's equations of the second kind with multipliers: M q̈ + h = Q + Aᵀλ, A q̈ = b."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.about import LAGRANGE
from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.constraint_terms import AccelerationRows, acceleration_rows, constraint_rows
from eomlab.engine.symbolic.dynamics import inertia_split, partial_velocities
from eomlab.engine.symbolic.force_terms import generalized_active_forces, kinetic_energy, potential_energy
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree, matrix_diff

#: more nonzero Christoffel symbols than this are summarized, not listed
CHRISTOFFEL_LISTING_LIMIT = 30
#: beyond this many coordinates the Christoffel symbols are not formed (n³ derivatives)
CHRISTOFFEL_DOF_LIMIT = 5


def christoffel_symbols(tree: SymbolicTree, M: sp.Matrix) -> list[list[list[sp.Expr]]]:
    """Γ[σ][α][β] = ½ (∂M_σα/∂q^β + ∂M_σβ/∂q^α − ∂M_αβ/∂q^σ), the Christoffel symbols of the first kind."""
    q = tree.q
    n = len(q)
    dM = [matrix_diff(M, qk) for qk in q]  # dM[k][i, j] = ∂M_ij/∂q^k
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
    """T, V, M, Γ, h and Q in the rates q̇ (shared by Lagrange, Maggi, Udwadia–Kalaba and the tree
    view, so computed once per tree). Beyond CHRISTOFFEL_DOF_LIMIT coordinates Γ is None and M q̈ + h
    is minus the generalized inertia forces in the rates (the same equations without the n³
    derivatives of the symbols, nor the second derivatives of a long T)."""
    if getattr(tree, "lagrange_core", None) is not None:
        return tree.lagrange_core
    tree.progress.checkpoint("kinetic energy")
    T = kinetic_energy(tree, speeds=False)
    tree.progress.checkpoint("mass matrix")
    if len(tree.q) <= CHRISTOFFEL_DOF_LIMIT:
        M = tree.simplify(sp.hessian(T, tree.qd))
        gamma = christoffel_symbols(tree, M)
        h = christoffel_terms(tree, gamma)
    else:
        # d/dt ∂T/∂q̇ − ∂T/∂q = −F* in the rates: M and h from the inertia forces, built from each
        # body's partial velocities (M = Σ Jᵀ m J + …) instead of differentiating T twice
        tree.progress.checkpoint("velocity terms")
        M, h = inertia_split(tree, False, partial_velocities(tree, speeds=False))
        gamma, M, h = None, tree.simplify(M), tree.simplify(h)
    tree.progress.checkpoint("generalized forces")
    Q = generalized_active_forces(tree, speeds=False)
    V = potential_energy(tree)
    tree.lagrange_core = (T, V, M, gamma, h, Q)
    return tree.lagrange_core


def rate_constraints(tree: SymbolicTree) -> AccelerationRows:
    return acceleration_rows(tree, constraint_rows(tree), speeds=False)


def nonzero_christoffel(tree: SymbolicTree, gamma) -> dict:
    """Γ_σ,αβ ≠ 0 with α ≤ β, keyed by readable names (σ, α, β as coordinate names)."""
    names = tree.coordinate_names
    n = len(names)
    return {(names[s], names[a], names[b]): gamma[s][a][b]
            for s in range(n) for a in range(n) for b in range(a, n) if gamma[s][a][b] != 0}


def lagrange_equations(tree: SymbolicTree) -> Equations:
    """Lagrange with multipliers: M q̈ + h = Q + Aᵀλ with A q̈ = b,
    solved as the saddle-point system [[M, Aᵀ], [A, 0]] [q̈; −λ] = [Q − h; b]."""
    T, V, M, gamma, h, Q = lagrange_core(tree)
    rows = rate_constraints(tree)
    eq = Equations(
        method="lagrange", title=LAGRANGE.name, reference=LAGRANGE.source, coordinates=list(tree.coordinate_names),
        speeds=[str(s) for s in tree.qd], accelerations=list(tree.qdd), mass_matrix=M,
        forcing=tree.simplify(Q - h), parameters=dict(tree.params.values))
    energy = eq.section("Energies")
    energy.add("kinetic energy", T, "T", tex=r"T").add("potential energy", V, "V", tex="V")
    metric = eq.section("Mass matrix: the second derivatives of the kinetic energy in the rates")
    metric.add("definition", Tex(r"M_{\sigma\tau} = \frac{\partial^2 T}{\partial \dot q^\sigma\,\partial \dot q^\tau}"))
    metric.add("the mass matrix", M, "M", tex="M", role="mass")
    add_christoffel_section(eq, tree, gamma, h)
    eq.section("Generalised applied forces, from the virtual work of the loads").add(
        "definition", Tex(r"\delta W = \sum_B \big(F_B \cdot \delta r_B + L_B \cdot \delta\theta_B\big) = Q \cdot \delta q")).add(
        "generalised applied forces", Q, "Q", tex="Q", role="forcing")
    motion = eq.section("Equations of motion, one per coordinate")
    lam = sp.Matrix([sp.Symbol(f"lambda_{name}", real=True) for name in rows.names])
    lhs = M * sp.Matrix(tree.qdd) + h
    rhs = Q + (rows.A.T * lam if rows.A.rows else sp.zeros(len(tree.q), 1))
    for i, _name in enumerate(tree.coordinate_names):
        motion.add("", sp.Eq(lhs[i], rhs[i], evaluate=False), role="general")
    if rows.A.rows:
        add_constraint_sections(eq, tree, rows, M, Q - h)
    return eq


def add_christoffel_section(eq: Equations, tree: SymbolicTree, gamma, h) -> None:
    christoffel = eq.section("Christoffel symbols of the first kind and the velocity terms")
    christoffel.add("definition", Tex(r"\Gamma_{\sigma,\alpha\beta} = \tfrac12\Big(\frac{\partial M_{\sigma\alpha}}"
                                      r"{\partial q^\beta} + \frac{\partial M_{\sigma\beta}}{\partial q^\alpha}"
                                      r" - \frac{\partial M_{\alpha\beta}}{\partial q^\sigma}\Big)"))
    listed = nonzero_christoffel(tree, gamma) if gamma is not None else None
    if listed is None:
        christoffel.add("count", f"With {len(tree.q)} coordinates the symbols are not formed one by one; the "
                                 "velocity terms, the sums they make, are formed body by body from the accelerations:")
        christoffel.add("", Tex(r"h = \frac{\partial (M\dot q)}{\partial q}\,\dot q - \frac{\partial T}{\partial q}"))
    elif len(listed) <= CHRISTOFFEL_LISTING_LIMIT:
        for (s, a, b), value in listed.items():
            christoffel.add("", value, tex=christoffel_tex(s, a, b))
    else:
        christoffel.add("count", f"{len(listed)} symbols are nonzero, too many to list; their sums follow.")
    if listed == {}:
        christoffel.add("count", "All Christoffel symbols are zero.")
    christoffel.add("velocity terms", h, "h", tex=r"h_\sigma = \Gamma_{\sigma,\alpha\beta}\,\dot q^\alpha \dot q^\beta",
                    role="forcing")


def christoffel_tex(s: str, a: str, b: str) -> str:
    from eomlab.engine.symbolic.latex import symbol_latex

    return rf"\Gamma_{{{symbol_latex(s)},\,{symbol_latex(a)}{symbol_latex(b)}}}"


def add_constraint_sections(eq: Equations, tree: SymbolicTree, rows: AccelerationRows, M, Y,
                            saddle_point: bool = True) -> None:
    """A q̈ = b and (Lagrange's own) the saddle-point system."""
    eq.constraint_matrix, eq.constraint_rhs, eq.constraint_names = rows.A, rows.b, list(rows.names)
    k = rows.A.rows
    section = eq.section("Constraints, brought to the accelerations")
    section.add("", Tex(r"A\,\ddot q = b"), role="constraints")
    for name, level in zip(rows.names, rows.levels):
        section.add(f"constraint {name}", f"The constraint {name} is given at the {level} level.")
    section.add("constraint matrix", rows.A, "A", tex="A", role="constraints")
    section.add("constraint right-hand side", rows.b, "b", tex="b", role="constraints")
    if not saddle_point:
        return
    saddle = eq.section("The saddle-point system for the accelerations and the multipliers")
    K = sp.Matrix(sp.BlockMatrix([[M, rows.A.T], [rows.A, sp.zeros(k, k)]]))
    saddle.add("its matrix", K, "saddle_matrix",
               tex=r"\begin{bmatrix} M & A^{\mathsf T} \\ A & 0 \end{bmatrix}")
    saddle.add("its right-hand side", sp.Matrix.vstack(Y, rows.b), "saddle_rhs",
               tex=r"\begin{bmatrix} Q - h \\ b \end{bmatrix}")
    lam = sp.Matrix([sp.Symbol(f"lambda_{name}", real=True) for name in rows.names])
    saddle.add("constraint forces", rows.A.T * lam, "R", tex=r"R = A^{\mathsf T}\lambda", role="constraint_force")
    saddle.add("multipliers", Tex(r"\lambda = \big(A M^{-1} A^{\mathsf T}\big)^{-1}\big(b - A M^{-1}(Q - h)\big)"),
               role="multipliers")
