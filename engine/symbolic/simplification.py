"""The derivations' simplification: multiplied out, then a cheap trigsimp for tree kinematics.

sympy's `trigsimp` costs seconds per entry on 3-DOF models. Tree kinematics needs two rewrites
only: sin² θ + cos² θ = 1 (Pythagoras, by lowering sine powers and multiplying out) and the
products of sines and cosines of joint angles that are a sine or cosine of their sum
(cos θ1 cos θ2 − sin θ1 sin θ2 → cos(θ1 + θ2), `angle_sums.fold_angle_sums`).
"""
from __future__ import annotations

import sympy as sp

from eomlab.engine.symbolic.angle_sums import fold_angle_sums
from eomlab.engine.symbolic.expansion import expanded


def simplified(expr):
    """expr multiplied out, then `quick_trigsimp` where it has sines or cosines."""
    expr = expanded(expr)
    if expr == 0 or not expr.has(sp.sin, sp.cos):
        return expr
    return quick_trigsimp(expr)


def _pythagoras(expr):
    """sin(x)**n -> sin(x)**(n-2) (1 - cos(x)**2): removes sin² + cos² = 1 by plain expansion."""
    def is_sine_power(e):
        return e.is_Pow and isinstance(e.base, sp.sin) and e.exp.is_Integer and e.exp >= 2

    def lowered(e):
        return e.base ** (e.exp - 2) * (1 - sp.cos(e.base.args[0]) ** 2)

    for _ in range(8):
        replaced = expr.replace(is_sine_power, lowered)
        if replaced == expr:  # no sine power left (most calls): expanding again would change nothing
            break
        expr = expanded(replaced)
    return expr


#: sums with more terms are not folded (their expansion and Pythagoras' pass cost more than folding saves)
FOLD_TERM_LIMIT = 24


def quick_trigsimp(expr):
    """A cheap trigsimp for tree kinematics, of an expression already expanded (`expanded`): Pythagoras,
    then products of sines and cosines of angles folded into sines and cosines of sums (`fold_angle_sums`),
    e.g. cos θ1 cos θ2 − sin θ1 sin θ2 → cos(θ1 + θ2). Full trigsimp costs seconds per entry on 3-DOF
    models; this costs little."""
    reduced = _pythagoras(expr)
    if len(sp.Add.make_args(reduced)) > FOLD_TERM_LIMIT:
        return reduced
    folded = fold_angle_sums(reduced)
    if folded == reduced:  # nothing to fold (about 3 calls in 4): expanding and counting again changes nothing
        return reduced
    folded = expanded(folded)
    return folded if sp.count_ops(folded) <= sp.count_ops(reduced) else reduced
