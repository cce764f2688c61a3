"""engine/symbolic/latex.py: a matrix printed from its entries reads as sympy prints it."""
import sympy as sp

from eomlab.engine.symbolic.latex import MATRIX_CHARS, display_latex, expression_latex

x, u = sp.symbols("x u", real=True)


def test_a_matrix_is_sympys_matrix_with_plain_function_parentheses():
    M = sp.Matrix([[sp.cos(x) + 1, -u], [sp.sin(sp.cos(x)), 2]])
    sympys = sp.latex(M, mat_delim="[", mat_str="matrix")
    assert expression_latex(M) == sympys.replace(r"{\left(x \right)}", "(x)").replace(
        r"{\left(\cos(x) \right)}", r"(\cos(x))")
    assert expression_latex(M) == r"\left[\begin{matrix}\cos(x) + 1 & - u\\\sin(\cos(x)) & 2\end{matrix}\right]"


def test_a_wide_matrix_is_shown_entry_by_entry_with_its_entries_as_printed():
    long_sum = sum(sp.cos(k * x) * u ** k for k in range(1, 50))
    M = sp.Matrix([[long_sum, 0], [sp.sin(x), 0]])
    assert len(expression_latex(M)) > MATRIX_CHARS
    shown = display_latex("M", M, entry_symbol="M")
    assert shown[1] == rf"M_{{21}} = {expression_latex(sp.sin(x))}"
    assert shown[-1] == r"M_{ij} = 0 \ \text{for the other 2 entries}"
    assert shown[0].startswith(r"\begin{array}{rl} M_{11} & {} = ")  # a long sum in aligned lines


def test_a_short_matrix_is_one_formula():
    assert display_latex("v", sp.Matrix([x, u])) == [r"v = \left[\begin{matrix}x\\u\end{matrix}\right]"]
