"""The Udwadia–Kalaba equations (THEORY.md §3, seed 002 (5.3); Proc. R. Soc. A 439 (1992) 407–410)."""
from __future__ import annotations

import sympy as sp

from .base import Equations
from .errors import constraints_too_long
from .kinematics import SymbolicTree
from .lagrange import add_constraint_sections, lagrange_core, rate_constraints

#: the symbolic inverse of M is printed only up to this size and this many operations
INVERSE_DOF_LIMIT = 2
INVERSE_OPERATION_LIMIT = 200


def cheap_inverse(tree: SymbolicTree, M: sp.Matrix) -> sp.Matrix | None:
    """M⁻¹ when it stays readable, else None (the formula is shown instead)."""
    if M.rows > INVERSE_DOF_LIMIT or sp.count_ops(M) > INVERSE_OPERATION_LIMIT:
        return None
    tree.progress.checkpoint("inverse mass matrix")
    return tree.simplify(M.inv(method="ADJ"))


def udwadia_kalaba_equations(tree: SymbolicTree) -> Equations:
    """Udwadia–Kalaba (5.3): q̈ = a + M^{-1/2}(A M^{-1/2})⁺(b − A a) with a = M⁻¹(Q − h);
    for full-rank A, q̈ = a + M⁻¹Aᵀ H⁻¹(b − A a), H = A M⁻¹ Aᵀ (the tensor form's K/L split)."""
    _T, _V, M, _gamma, h, Q = lagrange_core(tree)
    Y = tree.simplify(Q - h)
    rows = rate_constraints(tree)
    eq = Equations(
        method="udwadia_kalaba", title="Udwadia–Kalaba equations",
        reference="THEORY.md §3, seed 002 (5.3)", coordinates=list(tree.coordinate_names),
        speeds=[str(s) for s in tree.qd], accelerations=list(tree.qdd), mass_matrix=M, forcing=Y,
        parameters=dict(tree.params.values))
    free = eq.section("Unconstrained acceleration: a = M⁻¹(Q − h)")
    free.add("M", M, "M").add("Q − h  (= Y, the force in the tangent space)", Y, "Y")
    M_inv = cheap_inverse(tree, M)
    a = tree.simplify(M_inv * Y) if M_inv is not None else None
    if a is not None:
        free.add("a", a, "a")
    else:
        free.add("a", "M⁻¹(Q − h), solved numerically (too large to print symbolically)")
    if not rows.A.rows:
        eq.section("No constraints: q̈ = a").add("q̈", a if a is not None else "a")
        return eq
    add_constraint_sections(eq, tree, rows, M, Y)
    constrained = eq.section("Constrained acceleration (5.3)")
    constrained.add("q̈", "a + M^{-1/2} (A M^{-1/2})⁺ (b − A a)   (any G with G Gᵀ = M⁻¹ may replace M^{-1/2})")
    constrained.add("reaction", "Q_c = M^{1/2} (A M^{-1/2})⁺ (b − A a)")
    if a is not None and rows.A.rows <= 2 and not constraints_too_long(rows.A, rows.b):
        _tensor_split(eq, tree, rows, M, M_inv, Y, a)
    else:
        constrained.add("full-rank A", "q̈ = a + M⁻¹Aᵀ H⁻¹ (b − A a),  H = A M⁻¹ Aᵀ")
    return eq


def _tensor_split(eq, tree, rows, M, M_inv, Y, a) -> None:
    """The K/L split of the tensor form (seed 002 §3, §5): W = W_K + W_L, W_L = P_L a unaffected,
    W_K fixed by the constraints, R = Aᵀλ with R_L = 0."""
    tree.progress.checkpoint("Udwadia–Kalaba K/L split")
    A, b = rows.A, rows.b
    H = tree.simplify(A * M_inv * A.T)
    H_inv = tree.simplify(H.inv())
    lam = tree.simplify(H_inv * (b - A * a))
    P_K = tree.simplify(M_inv * A.T * H_inv * A)  # M-orthogonal projector onto K
    W_L = tree.simplify((sp.eye(M.rows) - P_K) * a)
    W_K = tree.simplify(M_inv * A.T * H_inv * b)
    split = eq.section("Tensor form: K/L split in the kinetic-energy metric (3.9)–(3.11)")
    split.add("H = A M⁻¹ Aᵀ (Gram matrix of the ε^{l+κ})", H, "H")
    split.add("λ = H⁻¹ (b − A a)", lam, "lambda")
    split.add("W_L = (I − M⁻¹Aᵀ H⁻¹ A) a  (unaffected by ideal constraints)", W_L, "W_L")
    split.add("W_K = M⁻¹Aᵀ H⁻¹ b  (fixed by the constraints)", W_K, "W_K")
    split.add("Y_L = M W_L", tree.simplify(M * W_L), "Y_L")
    split.add("Y_K = Y − Y_L", tree.simplify(Y - M * W_L), "Y_K")
    split.add("R = Aᵀλ = Q_c (R_L = 0)", tree.simplify(A.T * lam), "R")
    split.add("q̈ = W_K + W_L", tree.simplify(W_K + W_L), "qdd")
