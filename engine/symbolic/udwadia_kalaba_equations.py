"""The Udwadia–Kalaba equation q̈ = a + M^{-1/2}(A M^{-1/2})⁺(b − A a) (Proc. R. Soc. A 439 (1992) 407–410)."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.about import UDWADIA_KALABA
from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.errors import constraints_too_long, operation_count
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.lagrange_equations import add_constraint_sections, lagrange_core, rate_constraints
from eomlab.engine.symbolic.matrix_product import product

#: the symbolic inverse of M is printed only up to this size and this many operations
INVERSE_DOF_LIMIT = 2
INVERSE_OPERATION_LIMIT = 200


def cheap_inverse(tree: SymbolicTree, M: sp.Matrix) -> sp.Matrix | None:
    """M⁻¹ when it stays readable, else None (the formula is shown instead)."""
    if M.rows > INVERSE_DOF_LIMIT or operation_count(M) > INVERSE_OPERATION_LIMIT:
        return None
    tree.progress.checkpoint("inverse mass matrix")
    return tree.simplify(M.inv(method="ADJ"))


def udwadia_kalaba_equations(tree: SymbolicTree) -> Equations:
    """Udwadia–Kalaba: q̈ = a + M^{-1/2}(A M^{-1/2})⁺(b − A a) with a = M⁻¹(Q − h);
    for full-rank A, q̈ = a + M⁻¹Aᵀ H⁻¹(b − A a), H = A M⁻¹ Aᵀ (the tensor form's K/L split)."""
    _T, _V, M, _gamma, h, Q = lagrange_core(tree)
    Y = tree.simplify(Q - h)
    rows = rate_constraints(tree)
    eq = Equations(
        method="udwadia_kalaba", title=UDWADIA_KALABA.name, reference=UDWADIA_KALABA.source,
        coordinates=list(tree.coordinate_names), speeds=[str(s) for s in tree.qd], accelerations=list(tree.qdd),
        mass_matrix=M, forcing=Y, parameters=dict(tree.params.values))
    free = eq.section("The unconstrained acceleration")
    free.add("", Tex(r"a = M^{-1}(Q - h)"), role="forcing")
    free.add("the mass matrix", M, "M", tex="M", role="mass")
    free.add("applied and velocity forces", Y, "Y", tex="Q - h", role="forcing")
    M_inv = cheap_inverse(tree, M)
    a = tree.simplify(product(M_inv, Y)) if M_inv is not None else None
    if a is not None:
        free.add("the unconstrained acceleration", a, "a", tex="a")
    else:
        free.add("a", "The unconstrained acceleration is solved numerically: its symbolic form is too long to print.")
    if not rows.A.rows:
        eq.section("No constraints").add("", Tex(r"\ddot q = a"), role="general")
        return eq
    add_constraint_sections(eq, tree, rows, M, Y, saddle_point=False)
    constrained = eq.section("The constrained acceleration")
    constrained.add("", Tex(r"\ddot q = a + M^{-1/2}\big(A\,M^{-1/2}\big)^{+}(b - A\,a)"), role="general")
    constrained.add("the constraint force", Tex(r"Q_c = M^{1/2}\big(A\,M^{-1/2}\big)^{+}(b - A\,a)"),
                    role="constraint_force")
    if a is not None and rows.A.rows <= 2 and not constraints_too_long(rows.A, rows.b):
        _tensor_split(eq, tree, rows, M, M_inv, Y, a)
    else:
        constrained.add("with a constraint matrix of full row rank",
                        Tex(r"\ddot q = a + M^{-1}A^{\mathsf T} H^{-1}(b - A\,a), \qquad H = A\,M^{-1}A^{\mathsf T}"))
    return eq


def _tensor_split(eq, tree, rows, M, M_inv, Y, a) -> None:
    """The K/L split in the kinetic-energy metric: W = W_K + W_L, W_L = P_L a unaffected by
    ideal constraints, W_K fixed by them, R = Aᵀλ with R_L = 0."""
    tree.progress.checkpoint("Udwadia–Kalaba K/L split")
    A, b = rows.A, rows.b
    H = tree.simplify(product(A, M_inv, A.T))
    H_inv = tree.simplify(H.inv())
    lam = tree.simplify(product(H_inv, b - product(A, a)))
    P_K = tree.simplify(product(M_inv, A.T, H_inv, A))  # M-orthogonal projector onto K
    W_L = tree.simplify(product(sp.eye(M.rows) - P_K, a))
    W_K = tree.simplify(product(M_inv, A.T, H_inv, b))
    T = r"^{\mathsf T}"
    split = eq.section("The split into the constrained directions K and the free directions L, "
                       "in the kinetic-energy metric")
    split.add("the Gram matrix of the constraint directions", H, "H", tex=rf"H = A\,M^{{-1}}A{T}")
    split.add("the multipliers", lam, "lambda", tex=r"\lambda = H^{-1}(b - A\,a)", role="multipliers")
    split.add("the part of the acceleration the ideal constraints leave alone", W_L, "W_L",
              tex=rf"W_L = \big(I - M^{{-1}}A{T} H^{{-1}} A\big)\,a")
    split.add("the part the constraints fix", W_K, "W_K", tex=rf"W_K = M^{{-1}}A{T} H^{{-1}} b")
    split.add("the forces in the free directions", tree.simplify(product(M, W_L)), "Y_L", tex=r"Y_L = M\,W_L")
    split.add("the forces in the constrained directions", tree.simplify(Y - product(M, W_L)), "Y_K", tex=r"Y_K = Y - Y_L")
    split.add("the constraint force, which has no part in the free directions", tree.simplify(product(A.T, lam)), "R",
              tex=rf"Q_c = A{T}\lambda", role="constraint_force")
    split.add("the constrained acceleration", tree.simplify(W_K + W_L), "qdd", tex=r"\ddot q = W_K + W_L")
