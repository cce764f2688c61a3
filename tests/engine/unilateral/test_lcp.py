"""The contact LCP beyond enumeration: many rows at once (a robot's joint limits) solved exactly and fast."""
import numpy as np
import pytest

from eomlab.engine.unilateral.lcp import ENUMERATE_UP_TO, solve_lcp


@pytest.mark.parametrize("k", [ENUMERATE_UP_TO + 1, 12, 40])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_many_rows_meet_the_complementarity_conditions(k, seed):
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(k, k + 3))  # rows of a mechanism with more speeds than rows: W positive definite
    W = G @ G.T
    a = rng.normal(size=k)
    lam = solve_lcp(W, a, tol=1e-10)
    w = W @ lam + a
    scale = np.max(np.abs(W)) * np.max(np.abs(lam)) + np.max(np.abs(a))
    assert np.all(lam >= -1e-12 * scale) and np.all(w >= -1e-9 * scale)  # no pull, no penetration
    assert abs(lam @ w) <= 1e-9 * scale * max(1.0, np.max(np.abs(lam)))  # each row pushes or separates, not both


def test_dependent_rows_still_solve():
    """Two limits on one coordinate's row (W singular): the impulse is shared, the speeds are the same."""
    g = np.array([[1.0, 0.5], [1.0, 0.5], [0.0, 1.0], [0.2, 0.3], [1.0, 1.0], [0.0, 2.0]])
    W = g @ g.T
    a = np.array([-1.0, -1.0, -0.5, 0.2, -0.3, -1.0])
    lam = solve_lcp(W, a, tol=1e-10)
    w = W @ lam + a
    assert np.all(lam >= -1e-9) and np.all(w >= -1e-8) and abs(lam @ w) < 1e-8
