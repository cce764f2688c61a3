"""The matrix product of the derivations: entries are finite expressions, so no entry is checked for infinities.

sympy's `A * B` on matrices of expressions first multiplies every nonzero entry by zero to find
infinities (0 · ∞ is nan). For an entry that is a long sum, that query walks the whole sum's
assumptions: 0.05–0.07 s of a four-bar's constrained page (Gibbs–Appell, Kane, Maggi), a sixth of
its derivation. The kinematics, masses and forces of a model are finite, and the entries (each a sum
of the nonzero products, `Add` in sympy's own canonical order) are those of sympy's product.
"""
from __future__ import annotations

import sympy as sp
from sympy.matrices.exceptions import ShapeError


def product(*factors: sp.MatrixBase) -> sp.Matrix:
    """factors[0] · factors[1] · …, left to right."""
    result = factors[0]
    for right in factors[1:]:
        result = _times(result, right)
    return result


def _times(left: sp.MatrixBase, right: sp.MatrixBase) -> sp.Matrix:
    if left.cols != right.rows:
        raise ShapeError(f"a {left.rows} × {left.cols} matrix times a {right.rows} × {right.cols} one")
    rows = [list(left.row(i)) for i in range(left.rows)]
    columns = [list(right.col(j)) for j in range(right.cols)]
    return sp.Matrix(left.rows, right.cols, [
        sp.Add(*[a * b for a, b in zip(row, column) if a and b]) for row in rows for column in columns])
