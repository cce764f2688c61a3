"""The symbolic partition's choice of dependent variables (engine/symbolic/partition.py)."""
import numpy as np
import pytest
import scipy.linalg

from eomlab.engine.symbolic.partition import pivoted_columns


def _matrices(count: int):
    """Random rows × columns matrices with the cases that decide ties: equal, opposite and zero columns."""
    rng = np.random.default_rng(3)
    for trial in range(count):
        rows, columns = int(rng.integers(1, 5)), int(rng.integers(2, 9))
        values = rng.normal(size=(rows, columns))
        if trial % 3 == 0:
            values[:, rng.integers(0, columns)] = 0.0
        if trial % 5 == 0:
            values[:, 1] = values[:, 0]
        if trial % 7 == 0:
            values[:, -1] = -values[:, 0]
        yield values


def test_pivots_are_lapacks_wherever_the_rank_is_judged_full():
    """The columns and |R|'s diagonal of scipy's QR with column pivoting (LAPACK xGEQP3), ties included, wherever
    the partition would accept the choice (its k-th diagonal above 1e-9 of the first); 3000 matrices."""
    compared = same = 0
    for values in _matrices(3000):
        k = min(values.shape)
        _, R, expected = scipy.linalg.qr(values, pivoting=True)
        diagonal = np.abs(np.diag(R))
        if diagonal[k - 1] <= 1e-9 * max(1.0, diagonal[0]):
            continue  # rank deficient: refused either way
        pivots, ours = pivoted_columns(values, k)
        np.testing.assert_allclose(ours, diagonal[:k], rtol=1e-10)
        for mine, lapacks in zip(pivots, expected[:k]):  # a tie may go either way by rounding: ± the same column
            assert mine == lapacks or _parallel(values[:, mine], values[:, lapacks])
        same += pivots == [int(p) for p in expected[:k]]
        compared += 1
    assert compared > 1500 and same > 0.99 * compared


def _parallel(a: np.ndarray, b: np.ndarray) -> bool:
    return abs(a @ b) >= (1.0 - 1e-12) * np.linalg.norm(a) * np.linalg.norm(b)


@pytest.mark.parametrize("values", [np.zeros((2, 3)), np.array([[1.0, 2.0, 2.0]])])
def test_a_zero_rank_matrix_stops_at_its_rank(values):
    pivots, diagonal = pivoted_columns(values, 2)
    assert len(pivots) == len(diagonal) == 1
    assert diagonal[0] == pytest.approx(np.linalg.norm(values, axis=0).max())
