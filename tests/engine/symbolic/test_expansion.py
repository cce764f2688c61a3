"""engine/symbolic/expansion.py: one pass that multiplies out what sympy's `expand` (mul, multinomial) does.

Exact expressions must come out as the very sympy objects `expand` gives; with floats, the same terms with
coefficients equal to 1e-12 (the order in which like terms are summed may differ in the last bit); and a
derivation's pages must not change at all.
"""
import random

import pytest
import sympy as sp

from eomlab.engine import symbolic
from eomlab.engine.methods import SYMBOLIC_METHODS
from eomlab.engine.model import ModelError
from eomlab.engine.presets import preset
from eomlab.engine.symbolic import simplification
from eomlab.engine.symbolic.expansion import expanded, sympy_expanded

x, y, z, u, v = SYMBOLS = sp.symbols("x y z u v", real=True)

CASES = [
    (x + y) ** 2, (x + y) ** -2, x * (x + y) * (y + z), (x + y) ** 3 * (x - y), 1 / ((x + y) * (x - y)),
    x / (x + y) ** 2 * (x + 1), sp.sin(x * (y + z)) * (u + 1), sp.sqrt(x + y) * (x + 1), (x + y) ** sp.Rational(3, 2),
    (sp.cos(x) + sp.sin(y)) ** 2 * (1 - sp.cos(x) ** 2), ((x + y) * (x - y)) ** 2, x ** 2 * (1 / x + y),
    1 / (x * (x + 1)), x / (2 * (x + y)), sp.Rational(3, 2) * x / ((x + y) * (y + z)), 1 / ((x + y) ** 2 * (y + 1)),
    (x + y) / (x * (y + 1)), (1 / (x * (1 + y)) + 1) ** 2, 1 / (2 * (sp.Rational(3, 4) - sp.cos(x) ** 2 / 4)),
    (-(y ** 2) * sp.sin(x) / 2 - 3 * sp.cos(x + y)) * (5 / (sp.Rational(4, 3) - 3 * sp.cos(x) ** 2 / 4))
    + (-1 / (sp.Rational(4, 3) - 3 * sp.cos(x) ** 2 / 4)) * (u * sp.sin(x) - 3 * sp.cos(x + y)),  # like terms, then denominators
]


@pytest.mark.parametrize("expr", CASES, ids=[str(i) for i in range(len(CASES))])
def test_hand_cases_are_sympys_expansion(expr):
    assert expanded(expr) == sympy_expanded(expr)


def random_expression(rng: random.Random, depth: int, atoms: list):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(atoms)
    pick = rng.random()
    if pick < 0.35:
        return sp.Add(*[random_expression(rng, depth - 1, atoms) for _ in range(rng.randint(2, 3))])
    if pick < 0.7:
        return sp.Mul(*[random_expression(rng, depth - 1, atoms) for _ in range(rng.randint(2, 3))])
    if pick < 0.8:
        return sp.Pow(random_expression(rng, depth - 1, atoms), rng.choice([2, 3, -1, -2]))
    if pick < 0.9:
        return rng.choice([sp.sin, sp.cos])(random_expression(rng, depth - 1, atoms))
    return sp.sqrt(random_expression(rng, depth - 1, atoms))


EXACT_ATOMS = [*SYMBOLS, sp.Integer(2), sp.Rational(1, 2), sp.Integer(-1), sp.Rational(-3, 4)]


@pytest.mark.parametrize("seed", range(4))
def test_random_exact_expressions_are_sympys_expansion(seed):
    rng = random.Random(seed)
    for _ in range(150):
        expr = random_expression(rng, 4, EXACT_ATOMS)
        if expr.has(sp.zoo, sp.nan):
            continue
        assert expanded(expr) == sympy_expanded(expr), expr


@pytest.mark.parametrize("seed", range(2))
def test_random_float_expressions_have_sympys_terms_and_coefficients(seed):
    rng = random.Random(100 + seed)
    for _ in range(150):
        expr = random_expression(rng, 4, [*EXACT_ATOMS, sp.Float(0.3), sp.Float(1.7)])
        if expr.has(sp.zoo, sp.nan):
            continue
        ours, theirs = expanded(expr), sympy_expanded(expr)
        if ours == theirs:
            continue
        ours_terms = dict(term.as_coeff_Mul()[::-1] for term in sp.Add.make_args(ours))
        theirs_terms = dict(term.as_coeff_Mul()[::-1] for term in sp.Add.make_args(theirs))
        assert ours_terms.keys() == theirs_terms.keys(), expr
        for monomial, coefficient in theirs_terms.items():
            assert abs(complex(ours_terms[monomial] - coefficient)) <= 1e-12 * abs(complex(coefficient)), expr


@pytest.mark.parametrize("method", SYMBOLIC_METHODS)
@pytest.mark.parametrize("name", ["four_bar", "double_compound_pendulum"])
def test_a_derivations_page_is_the_one_sympys_expand_gives(name, method, monkeypatch):
    model = preset(name)

    def page():
        symbolic.derive.__globals__["_TREES"].clear()  # a fresh tree: nothing simplified before
        try:
            return symbolic.page_data(symbolic.build_page(symbolic.derive(model, method), model.name),
                                      html=False)["formulas"]
        except ModelError as refused:  # the linearized view of a closed loop: refused alike
            return str(refused)

    ours = page()
    monkeypatch.setattr(simplification, "expanded", sympy_expanded)
    assert page() == ours
