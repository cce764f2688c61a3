"""The exact Jacobian of a tree's first-order equations at a state, from its symbolic equations: the
reference the numeric linearization (engine.linearize) is checked and benchmarked against.

For Kane's form M(q) u̇ = f(q, u) with q̇ = u (the model in its rate speeds), the state x = (q, u) moves
by ẋ = (u, M⁻¹ f), and A = ∂ẋ/∂x is differentiated by sympy and evaluated at the state.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from eomlab.engine.symbolic.derived_equations import Equations


def state_jacobian(eq: Equations, q: dict[str, float], u: dict[str, float], digits: int = 30) -> np.ndarray:
    """A = ∂(u, M⁻¹ f)/∂(q, u) of unconstrained equations `eq` in rate speeds, at the coordinates `q` and
    speeds `u` (by name), evaluated to `digits` significant digits; rows and columns in the order
    eq.coordinates + eq.speeds."""
    by_name = {s.name: s for s in eq.mass_matrix.free_symbols | eq.forcing.free_symbols}
    coordinates = [by_name.get(n, sp.Symbol(n)) for n in eq.coordinates]
    speeds = [by_name.get(n, sp.Symbol(n)) for n in eq.speeds]
    rates = sp.Matrix([*speeds, *eq.mass_matrix.LUsolve(eq.forcing)])
    at = {**{s: q[s.name] for s in coordinates}, **{s: u[s.name] for s in speeds}}
    return np.array(rates.jacobian(coordinates + speeds).subs(at).evalf(digits), dtype=float)
