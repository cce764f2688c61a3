"""Angle sums folded by hashing (engine.symbolic.angle_sums): the identities, sympy's TR10i's folds on
the tree kinematics' own sums, and equality at random points."""
from __future__ import annotations

import importlib
from collections import OrderedDict

import numpy as np
import pytest
import sympy as sp
from sympy.simplify.fu import TR10i

from eomlab.engine.modelfile.reading import load_model
from eomlab.engine.symbolic.angle_sums import fold_angle_sums
from project_paths import ROOT

a, b, c, m, L = sp.symbols("a b c m L", real=True)


@pytest.mark.parametrize("expr, folded", [
    (sp.cos(a) * sp.cos(b) - sp.sin(a) * sp.sin(b), sp.cos(a + b)),
    (sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), sp.cos(a - b)),
    (sp.sin(a) * sp.cos(b) + sp.cos(a) * sp.sin(b), sp.sin(a + b)),
    (sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b), sp.sin(a - b)),
    (sp.cos(a) * sp.sin(b) - sp.sin(a) * sp.cos(b), sp.sin(b - a)),
    (-sp.sin(a) * sp.sin(b) + sp.cos(a) * sp.cos(b) + m, sp.cos(a + b) + m),
    # a common factor, a number, and a third angle folded in a second round
    (3 * m * L * (sp.cos(a) * sp.cos(b) - sp.sin(a) * sp.sin(b)), 3 * m * L * sp.cos(a + b)),
    (sp.expand(sp.cos(c) * sp.expand_trig(sp.cos(a + b)) - sp.sin(c) * sp.expand_trig(sp.sin(a + b))),
     sp.cos(a + b + c)),
    # the pair's function borrowed from the common factor: sin a·(cos(a+b) sin b − sin(a+b) cos b)/sin²b
    (sp.sin(a) * sp.cos(a + b) / sp.sin(b) - sp.sin(a) * sp.sin(a + b) * sp.cos(b) / sp.sin(b) ** 2,
     -sp.sin(a) ** 2 / sp.sin(b) ** 2),
    # inside a denominator
    (1 / (sp.sin(a) * sp.cos(b) + sp.cos(a) * sp.sin(b)), 1 / sp.sin(a + b)),
])
def test_the_identities(expr, folded):
    assert sp.expand(fold_angle_sums(expr)) == sp.expand(folded)


@pytest.mark.parametrize("expr", [
    2 * sp.cos(a) * sp.cos(b) - sp.sin(a) * sp.sin(b),  # coefficients that do not match
    sp.sin(a) * sp.cos(a) + m,  # one angle
    sp.cos(a) ** 2 + sp.sin(b),
    m * L,
])
def test_what_does_not_fold_is_left_as_it_is(expr):
    assert fold_angle_sums(expr) == expr


def _random_sum(rng) -> sp.Expr:
    """A sum of products of sines and cosines of three angles, with shared factors, so that pairs fold."""
    angles = (a, b, c, a + b)
    terms = []
    for _ in range(rng.integers(2, 9)):
        x, y = rng.choice(len(angles), 2, replace=False)
        k = sp.Rational(int(rng.integers(1, 4)), int(rng.integers(1, 3))) * (m if rng.random() < 0.5 else L)
        if rng.random() < 0.5:
            terms += [k * sp.cos(angles[x]) * sp.cos(angles[y]), -k * sp.sin(angles[x]) * sp.sin(angles[y])]
        else:
            terms += [k * sp.sin(angles[x]) * sp.cos(angles[y]), k * sp.cos(angles[x]) * sp.sin(angles[y])]
    return sp.expand(sp.Add(*terms))


def test_random_sums_keep_their_value_and_do_not_grow():
    rng = np.random.default_rng(7)
    for _ in range(40):
        expr = _random_sum(rng)
        folded = fold_angle_sums(expr)
        assert sp.count_ops(folded) <= sp.count_ops(expr)
        values = {s: float(rng.uniform(-3, 3)) for s in (a, b, c, m, L)}
        assert float(folded.subs(values)) == pytest.approx(float(expr.subs(values)), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["four_bar", "cardan_shaft"])
def test_the_same_folds_as_tr10i_on_the_kinematics_sums(name, monkeypatch):
    """Every sum the kinematics fold in a Kane derivation (96 on the four-bar, 79 on the cardan shaft): the
    result equals sympy's TR10i's, expanded (the folds were TR10i's before, at 10–40× the cost)."""
    kinematics = importlib.import_module("eomlab.engine.symbolic.simplification")
    deriving = importlib.import_module("eomlab.engine.symbolic.derive")
    monkeypatch.setattr(deriving, "_TREES", OrderedDict())  # not a tree an earlier test derived (folded already)
    derive_now = deriving.derive
    seen = []
    original = kinematics.fold_angle_sums
    monkeypatch.setattr(kinematics, "fold_angle_sums", lambda e: seen.append(e) or original(e))
    derive_now(load_model(ROOT / "assets" / "models" / f"{name}.eom.json"), "kane", parameters="numbers")
    assert len(seen) > 50
    for expr in seen:
        assert sp.expand(fold_angle_sums(expr)) == sp.expand(TR10i(expr))
