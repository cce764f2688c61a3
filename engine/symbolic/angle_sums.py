"""Products of sines and cosines folded into sines and cosines of angle sums, by hashing.

    c·X·cos a·cos b ∓ c·X·sin a·sin b  →  c·X·cos(a ± b)
    c·X·sin a·cos b ± c·X·cos a·sin b  →  c·X·sin(a ± b)

for any common factor X and numeric c, repeated until nothing folds (so θ1 + θ2 + θ3 folds in two
rounds). The tree kinematics' sums are written by rotating vectors through a chain of joints; this
gives the same folds as sympy's `fu.TR10i` there at a tenth of its cost: TR10i tries every pair of
terms, this looks each pair's partner up by its key (linear in the number of terms).
"""
from __future__ import annotations

from itertools import combinations

import sympy as sp
from sympy.core.traversal import bottom_up

#: the partner of each product of two factors, and the folded function when the partner's coefficient
#: is −c (first) or +c (second): cos a cos b − sin a sin b = cos(a+b), + = cos(a−b); and so on
_PARTNER = {("cos", "cos"): ("sin", "sin"), ("sin", "sin"): ("cos", "cos"),
            ("sin", "cos"): ("cos", "sin"), ("cos", "sin"): ("sin", "cos")}


def _folded(kinds: tuple[str, str], a, b, same_sign: bool):
    """The fold of c·(kinds[0] a · kinds[1] b) with its partner carrying ±c, over c."""
    if kinds == ("cos", "cos"):
        return sp.cos(a - b) if same_sign else sp.cos(a + b)
    if kinds == ("sin", "sin"):  # c sin a sin b with c cos a cos b (+) or −c cos a cos b (−)
        return sp.cos(a - b) if same_sign else -sp.cos(a + b)
    if kinds == ("sin", "cos"):
        return sp.sin(a + b) if same_sign else sp.sin(a - b)
    return sp.sin(a + b) if same_sign else sp.sin(b - a)  # cos a sin b with ±sin a cos b


class _Term:
    """One term of a sum: its number, and its factors' powers (sines and cosines to any integer power)."""

    def __init__(self, term):
        self.term = term
        self.coefficient, rest = term.as_coeff_Mul()
        self.powers = rest.as_powers_dict()
        self.trig = [f for f, p in self.powers.items() if isinstance(f, (sp.sin, sp.cos)) and p.is_Integer]

    def pairs(self):
        """(rest, kinds, a, b) for each two of its sines and cosines of different angles a before b: the term
        is coefficient · rest · kinds[0](a) · kinds[1](b). A power other than 1 lends one factor to the pair
        (c·X·cos(x)/sin(r) pairs cos x with sin r over c·X/sin²r): terms whose common factor holds one of the
        pair's functions fold too, as sympy's TR10i folds them."""
        for f, g in combinations(self.trig, 2):
            if f.args[0] == g.args[0]:
                continue
            if sp.default_sort_key(g.args[0]) < sp.default_sort_key(f.args[0]):
                f, g = g, f
            powers = dict(self.powers)
            powers[f] -= 1
            powers[g] -= 1
            rest = sp.Mul(*(base**power for base, power in powers.items() if power != 0))
            yield rest, (type(f).__name__, type(g).__name__), f.args[0], g.args[0]


def _fold_once(terms: list[_Term]):
    """One round of folds: (the new sum, whether anything folded)."""
    waiting: dict = {}  # (rest, kinds, a, b) -> index of a term not yet folded
    used: set[int] = set()
    folded = []
    for index, term in enumerate(terms):
        for rest, kinds, a, b in term.pairs():
            partner = waiting.get((rest, _PARTNER[kinds], a, b))
            if partner is None or partner in used:
                continue
            c, d = terms[partner].coefficient, term.coefficient
            if c != d and c != -d:
                continue
            partner_kinds = _PARTNER[kinds]
            folded.append(c * rest * _folded(partner_kinds, a, b, same_sign=(c == d)))
            used.update((partner, index))
            break
        else:
            for rest, kinds, a, b in term.pairs():
                waiting.setdefault((rest, kinds, a, b), index)
    if not used:
        return None
    kept = [t.term for i, t in enumerate(terms) if i not in used]
    return sp.Add(*folded, *kept)


def _fold_sum(expr):
    """A sum with every pair of products above folded, until none is left (anything else: unchanged)."""
    if not expr.is_Add:
        return expr
    for _ in range(16):  # each round folds at least one pair: a sum of n terms stops within n/2 rounds
        terms = [_Term(t) for t in expr.args]
        if sum(1 for t in terms if len(t.trig) >= 2) < 2:
            return expr
        folded = _fold_once(terms)
        if folded is None:
            return expr
        expr = sp.expand(folded)
        if not expr.is_Add:
            return expr
    return expr


def fold_angle_sums(expr):
    """`expr` with the sums inside it folded from the innermost out (a denominator's sum too)."""
    return bottom_up(expr, _fold_sum)
