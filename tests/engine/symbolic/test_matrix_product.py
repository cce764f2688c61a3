"""engine/symbolic/matrix_product.py: the derivations' matrix product equals sympy's, entry for entry."""
import pytest
import sympy as sp
from sympy.matrices.exceptions import ShapeError

from eomlab.engine.symbolic.matrix_product import product

x, y, u = sp.symbols("x y u", real=True)
A = sp.Matrix([[sp.cos(x) * u + 1, 0, sp.Rational(1, 2)], [0, sp.sin(x - y) ** 2, -u * sp.cos(y)]])
B = sp.Matrix([[u ** 2, 0], [sp.Float(0.25) * sp.cos(x), 1], [0, sp.sin(y) / (1 + sp.cos(x))]])
C = sp.Matrix([[1, -u], [sp.cos(x + y), 0]])


@pytest.mark.parametrize("factors", [(A, B), (B, A), (A, B, C), (C, C.T, C), (A.T, A), (sp.zeros(2, 3), B)],
                         ids=["2x3·3x2", "3x2·2x3", "three", "with a transpose", "Aᵀ A", "zeros"])
def test_product_is_sympys_product_structurally(factors):
    expected = factors[0]
    for right in factors[1:]:
        expected = expected * right
    got = product(*factors)
    assert got.shape == expected.shape
    assert list(got) == list(expected)  # the same sympy objects, not only equal values


def test_an_entry_with_no_nonzero_product_is_zero():
    got = product(sp.Matrix([[x, 0]]), sp.Matrix([[0], [y]]))
    assert got == sp.Matrix([[0]]) and got[0, 0] is sp.S.Zero


def test_shapes_that_do_not_fit_are_refused():
    with pytest.raises(ShapeError, match="2 × 3 matrix times a 2 × 2"):
        product(A, C)
