"""The Jacobian of a right-hand side by central differences extrapolated to zero step (Richardson), for
every chart but a free tree on the compiled path (`Chart.exact_jacobian`: pinocchio's exact derivatives).

The engine's numpy and compiled paths are real-valued (LAPACK's real routines, pinocchio), so a
complex step cannot pass through them. Central differences D(h) = (F(x + h e) − F(x − h e)) / 2h
have an error series in h², h⁴, …; Richardson's table over h, h/2, h/4, h/8 removes the first three
terms, leaving O(h⁸) truncation and a rounding error of a few ε|F| / h. For the steps used here
(h = 0.02 times the variable's scale) both are near 1e-13 of the entries' scale, and a right-hand
side quadratic in the speeds (every model without velocity-dependent force expressions) is
differentiated along the speeds with no truncation error at all.
"""
from __future__ import annotations

import numpy as np

LEVELS = 4
BASE_STEP = 0.02


def jacobian(f, x: np.ndarray, scale: np.ndarray | None = None, levels: int = LEVELS) -> np.ndarray:
    """∂f/∂x at x (columns by Richardson-extrapolated central differences)."""
    x = np.asarray(x, float)
    n = x.size
    scale = np.ones(n) if scale is None else np.asarray(scale, float)
    columns = []
    for j in range(n):
        h = BASE_STEP * scale[j]
        table = []
        for level in range(levels):
            step = h / 2 ** level
            e = np.zeros(n)
            e[j] = step
            table.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2.0 * step))
        for order in range(1, levels):  # eliminate h^(2 order): (4^order D(h/2) − D(h)) / (4^order − 1)
            factor = 4.0 ** order
            table = [(factor * table[k + 1] - table[k]) / (factor - 1.0) for k in range(len(table) - 1)]
        columns.append(table[0])
    return np.column_stack(columns) if columns else np.zeros((0, 0))
