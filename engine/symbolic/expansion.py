"""Products and integer powers of sums multiplied out, in one pass over the expression.

The result is sympy's `expand(expr, mul=True, multinomial=True)` with the other hints off (the
kinematics hold no logarithms, and sympy distributes integer powers over products itself). sympy
reaches it by walking the whole tree once per hint and again until nothing changes, and at every
product it splits off the denominator (`fraction`): on a derivation's sums of already expanded
parts that is most of the walking. Here each node is visited once and a part met twice is expanded
once. Products of sums are multiplied out in sympy's grouping and powers of sums by sympy's own
multinomial expansion, in sympy's order, so that float coefficients are summed alike and round alike.
What is not a sum, product, integer power or function (a square root of a sum, a noncommutative
product) is left to sympy.
"""
from __future__ import annotations

import sympy as sp
from sympy.simplify.radsimp import fraction


def sympy_expanded(expr):
    """sympy's own expansion with the same hints (the reference, and the fallback)."""
    return sp.expand(expr, power_base=False, power_exp=False, log=False, basic=False)


def expanded(expr):
    """expr with every product of sums and every integer power of a sum multiplied out."""
    expansion = _Expansion()
    result = expansion.of(expr)
    while _unfinished(result):  # a product formed a power of a sum, or a denominator sympy rewrites
        again = expansion.of(result)
        if again == result:
            break
        result = again
    return result


def _is_power_of_sum(expr) -> bool:
    return expr.is_Pow and expr.base.is_Add and expr.exp.is_Integer


def _unfinished(expr) -> bool:
    """Whether a term of the expansion still has a sum, a power of a sum or a sum in its denominator."""
    return any(term.is_Mul and any(factor.is_Add or _is_power_of_sum(factor) for factor in term.args)
               or _is_power_of_sum(term) and term.exp != -1 for term in sp.Add.make_args(expr))


class _Expansion:
    """One pass, as sympy's: each product's denominator rewritten (`_over_denominator`), then its sums
    multiplied out; each power of a sum multiplied out. The products the pass forms are left as they
    are, and a further pass finishes them, after their sum has gathered like terms (as sympy's next pass
    does)."""

    def __init__(self):
        self.done: dict = {}  # a subexpression -> its expansion (subexpressions repeat)

    def of(self, expr):
        if expr.is_Atom or not isinstance(expr, sp.Expr):
            return expr
        known = self.done.get(expr)
        if known is None:
            known = self.done[expr] = self._expand(expr)
        return known

    def _expand(self, expr):
        if not expr.is_commutative:
            return sympy_expanded(expr)
        if expr.is_Add:
            return sp.Add(*[self.of(term) for term in expr.args])
        if expr.is_Mul:
            return self._distributed(sp.Mul(*[self.of(factor) for factor in expr.args]))
        if expr.is_Pow:
            return self._power(expr)
        if isinstance(expr, sp.Function):
            arguments = [self.of(argument) for argument in expr.args]
            return expr.func(*arguments) if arguments != list(expr.args) else expr
        return sympy_expanded(expr)

    def _power(self, expr):
        base, exponent = expr.base, expr.exp
        if not exponent.is_Integer:
            expanded_base = self.of(base)
            if expanded_base.is_Add or not exponent.is_Number:  # (a + b)^(3/2) → (a + b) √(a + b), …
                return sympy_expanded(expr)
            return expr if expanded_base is base else expanded_base ** exponent
        if not base.is_Add or exponent == -1:
            expanded_base = self.of(base)
            return expr if expanded_base is base else expanded_base ** exponent
        # sympy raises the sum as it stands (its inner products not yet multiplied out), then multiplies out
        powered = sp.expand_multinomial(sp.Pow(base, abs(exponent)))
        multiplied = sp.Add(*[self.of(term) for term in sp.Add.make_args(powered)])
        return multiplied if exponent > 0 else 1 / multiplied

    def _distributed(self, product):
        """A product of expanded factors over its denominator, its sums multiplied out."""
        if not product.is_Mul:
            return product
        product = self._over_denominator(product)
        if not product.is_Mul:
            return product
        sums = [factor for factor in product.args if factor.is_Add]
        if not sums:
            return product
        plain = sp.Mul(*[factor for factor in product.args if not factor.is_Add])
        terms = [sp.Mul(plain, term) for term in self._grouped(sums)]
        return sp.Add(*[self._distributed(term) if term.is_Mul and any(f.is_Add for f in term.args) else term
                        for term in terms])

    def _grouped(self, sums: list) -> tuple:
        """The terms of a product of sums, its halves multiplied out first (sympy's grouping)."""
        if len(sums) == 1:
            return sums[0].args
        half = len(sums) // 2
        left, right = self._grouped(sums[:half]), self._grouped(sums[half:])
        return sp.Add.make_args(sp.Add(*[sp.Mul(a, b) for a in left for b in right]))

    def _over_denominator(self, product):
        """sympy's rule for a product with a sum in its denominator: the product is rewritten as numerator
        over denominator, the denominator multiplied out when it is itself a product (1/(x (x + 1)) →
        1/(x² + x), 1/(2 (a + b)) → 1/(2a + 2b))."""
        if not any(_is_power_of_sum(factor) and factor.exp < 0 for factor in product.args):
            return product
        numerator, denominator = fraction(product)
        if denominator.is_Mul:
            numerator = self._distributed(numerator) if numerator.is_Mul else numerator
            denominator = self._distributed(denominator)
        return numerator / denominator
