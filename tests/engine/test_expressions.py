"""Safe user expressions: what the whitelist accepts evaluates right; everything else is refused."""
import math
import os

import numpy as np
import pytest
import sympy as sp

from eomlab.engine.expressions import (
    Expression,
    compile_expressions,
    expression_names,
    parse_expression,
    symbol,
)
from eomlab.engine.model import ModelError

ALLOWED = {"x", "y", "x_dot"}


def evaluate(text, **values):
    """Parse `text` and evaluate it numerically at `values` (t defaults to 0)."""
    values.setdefault("t", 0.0)
    expr = parse_expression(text, ALLOWED)
    names = sorted(values)
    return float(compile_expressions([expr.sympy], names)(*[values[n] for n in names])[0])


@pytest.mark.parametrize(
    "text, values, expected",
    [
        ("1 + 2*3", {}, 7.0),
        ("2**-1", {}, 0.5),
        ("-x + +y", {"x": 1.5, "y": 4.0}, 2.5),
        ("x**2 / 4 - 1", {"x": 3.0}, 1.25),
        ("sin(x) + cos(y)", {"x": 0.3, "y": 0.7}, math.sin(0.3) + math.cos(0.7)),
        ("tan(x) * exp(y)", {"x": 0.2, "y": 0.5}, math.tan(0.2) * math.exp(0.5)),
        ("log(x) + sqrt(y)", {"x": 2.0, "y": 9.0}, math.log(2.0) + 3.0),
        ("abs(x) * sign(y)", {"x": -2.0, "y": -5.0}, -2.0),
        ("atan2(y, x)", {"x": -1.0, "y": 1.0}, math.atan2(1.0, -1.0)),
        ("sinh(x) + cosh(x) - tanh(y)", {"x": 0.4, "y": 0.9}, math.exp(0.4) - math.tanh(0.9)),
        ("2*pi*t", {"t": 0.25}, math.pi / 2),
        ("x_dot**2 + 1e-3", {"x_dot": 3.0}, 9.001),
        ("sin(2*t)", {"t": 0.6}, math.sin(1.2)),
        ("(x + y) * (x - y)", {"x": 3.0, "y": 2.0}, 5.0),
    ],
)
def test_whitelisted_expressions_evaluate(text, values, expected):
    assert evaluate(text, **values) == pytest.approx(expected, rel=1e-12, abs=1e-14)


def test_expression_records_names_and_symbols():
    expr = parse_expression("x*sin(t) + pi", ALLOWED, "forces[0].value[0]")
    assert isinstance(expr, Expression)
    assert expr.text == "x*sin(t) + pi"
    assert expr.names == frozenset({"x", "t"})
    assert expr.sympy == symbol("x") * sp.sin(symbol("t")) + sp.pi
    assert symbol("x").is_real and symbol("t") == sp.Symbol("t", real=True)


def test_expression_names():
    assert expression_names(["a", "b"]) == {"a", "a_dot", "a_ddot", "b", "b_dot", "b_ddot", "t"}
    assert expression_names([]) == {"t"}


def test_compile_broadcasts_constants_over_arrays():
    x, y = symbol("x"), symbol("y")
    f = compile_expressions([x + y, sp.Integer(2), 1.5], ["x", "y"])
    scalar = f(1.0, 2.0)
    assert scalar.shape == (3,) and scalar.dtype == float
    np.testing.assert_allclose(scalar, [3.0, 2.0, 1.5])
    arrays = f(np.array([1.0, 2.0, 3.0]), 1.0)
    assert arrays.shape == (3, 3)
    np.testing.assert_allclose(arrays[1], [2.0, 2.0, 2.0])
    assert compile_expressions([], ["x"])(1.0).shape == (0,)


def test_compile_survives_names_that_clash_with_generated_code():
    numpy_symbol = symbol("numpy")
    f = compile_expressions([sp.sin(numpy_symbol) + 1], ["numpy"])
    assert f(0.0)[0] == pytest.approx(1.0)


def test_compile_refuses_strings_and_unknown_symbols():
    with pytest.raises(TypeError):
        compile_expressions(["x + 1"], ["x"])
    with pytest.raises(ValueError, match="'z'"):
        compile_expressions([symbol("z")], ["x"])


HOSTILE = [
    ("__import__('os').system('touch /tmp/x')", "attribute access"),
    ("__import__('os')", "calls are allowed only to sin, cos"),
    ("().__class__", "attribute access"),
    ("x.real", "attribute access"),
    ("[1,2]", "lists are not allowed"),
    ("'a'", "strings are not allowed"),
    ("lambda: 1", "lambda"),
    ("2**10**10", "exponent is too large"),
    ("9**999", "exponent is too large"),
    ("x**1000", "exponent is too large"),
    ("(9**99)**99", "constant power is too large"),
    ("(1 if x else 2)", "conditional"),
    ("x[0]", "subscripts"),
    ("foo(1)", "calls are allowed only to sin, cos"),
    ("x" + "+x" * 1500, "too long"),
    ("(" * 200 + "x" + ")" * 200, "nested too deeply"),
    ("-" * 60 + "x", "nested too deeply"),
    ("x == 1", "comparisons"),
    ("sin(x=1)", "keyword arguments"),
    ("1j", "complex"),
    ("True", "True is not allowed"),
    ("None", "None is not allowed"),
    ("foo + 1", "unknown name 'foo'"),
    ("x // 2", "FloorDiv is not allowed"),
    ("x and y", "'and'/'or'"),
    ("not x", "operator 'not'"),
    ("sin(*[x])", "starred"),
    ("f'{x}'", "strings are not allowed"),
    ("[c for c in x]", "comprehensions"),
    ("(y := 2)", "assignment"),
    ("sin", "must be called"),
    ("atan2(x)", "atan2 takes 2 arguments"),
    ("sin(x, y)", "sin takes 1 argument"),
    ("123456789012345678901234567890", "integer literal is too large"),
    ("1e400", "not finite"),
    ("1/0", "division by zero"),
    ("log(0)", "undefined"),
    ("x +", "syntax error"),
    ("", "empty"),
    ("x; y", "syntax error"),
    ("import os", "syntax error"),
    ("x if", "syntax error"),
    ("{1: 2}", "dicts"),
    ("{1}", "sets"),
    ("(x, y)", "tuples"),
    ("x.__class__.__mro__", "attribute access"),
    ("E", "unknown name 'E'"),
]


@pytest.mark.parametrize("text, problem", HOSTILE, ids=[h[0][:30] for h in HOSTILE])
def test_hostile_expressions_are_refused(text, problem):
    with pytest.raises(ModelError) as info:
        parse_expression(text, ALLOWED, "forces[0].value[1]")
    error = info.value
    assert error.path == "forces[0].value[1]"
    assert problem in error.message
    assert "\n" not in str(error)


def test_hostile_expression_had_no_effect():
    marker = "/tmp/x"
    existed = os.path.exists(marker)
    with pytest.raises(ModelError):
        parse_expression("__import__('os').system('touch /tmp/x')", ALLOWED)
    with pytest.raises(ModelError):
        parse_expression("sin(__import__('os').system('touch /tmp/x'))", ALLOWED)
    assert os.path.exists(marker) == existed


def test_time_is_always_allowed_and_others_are_not():
    assert parse_expression("2*t", ()).names == frozenset({"t"})
    with pytest.raises(ModelError, match="unknown name 'x'"):
        parse_expression("x + t", ())


def test_non_string_is_refused():
    with pytest.raises(ModelError, match="expected an expression string"):
        parse_expression(3, ALLOWED)  # type: ignore[arg-type]


def test_multiline_text_gives_one_line_message():
    with pytest.raises(ModelError) as info:
        parse_expression("(x +\n foo)", ALLOWED)
    assert "\n" not in str(info.value)


# --- property checks ---------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SAMPLE = {"x": 0.7, "y": -1.3}


def leaf():
    numbers = st.floats(min_value=-5, max_value=5, allow_nan=False).map(lambda v: (repr(v), v))
    names = st.sampled_from(sorted(SAMPLE)).map(lambda n: (n, SAMPLE[n]))
    return numbers | names


def combine(children):
    """(text, value) pairs built together, so the reference value needs no evaluation of text."""
    binary = st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(
        lambda t: (f"({t[0][0]} {t[1]} {t[2][0]})",
                   {"+": t[0][1] + t[2][1], "-": t[0][1] - t[2][1], "*": t[0][1] * t[2][1]}[t[1]]))
    unary = st.tuples(st.sampled_from(["sin", "cos", "tanh", "-"]), children).map(
        lambda t: (f"{t[0]}({t[1][0]})", {"sin": math.sin, "cos": math.cos, "tanh": math.tanh,
                                           "-": lambda v: -v}[t[0]](t[1][1])))
    return binary | unary


EXPRESSIONS = st.recursive(leaf(), combine, max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(EXPRESSIONS)
def test_generated_expressions_evaluate_like_the_reference(pair):
    text, expected = pair
    expr = parse_expression(text, ALLOWED)
    value = compile_expressions([expr.sympy], ["x", "y"])(SAMPLE["x"], SAMPLE["y"])[0]
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("xy t01.e+-*/()[],'_ab sincoqrtlg=<>:!@^%~|&\\\n")), max_size=60))
def test_arbitrary_text_is_parsed_or_refused_with_model_error(text):
    try:
        expr = parse_expression(text, ALLOWED)
    except ModelError as error:
        assert "\n" not in str(error)
    else:
        assert expr.names <= ALLOWED | {"t"}
