"""Rank of constraint rows: which rows are redundant, and how well conditioned they are."""
from __future__ import annotations

import numpy as np
from eomlab.engine.lazy_imports import scipy_linalg

RANK_RTOL = 1e-10  # singular values below this times the largest count as zero


def numerical_rank(A: np.ndarray, scale: float = 0.0) -> int:
    """Singular values above RANK_RTOL × max(largest, scale) count."""
    if A.size == 0:
        return 0
    s = scipy_linalg.svdvals(A)
    return int(np.sum(s > RANK_RTOL * max(s[0], scale, 1e-300)))


def dependent_rows(A: np.ndarray) -> list[int]:
    """Rows that can be removed without lowering the rank (members of a dependent set)."""
    r = numerical_rank(A)
    return [i for i in range(A.shape[0]) if numerical_rank(np.delete(A, i, axis=0)) == r]


def describe_dependent_rows(A: np.ndarray, constraints) -> str:
    r = numerical_rank(A)
    if r == A.shape[0]:
        return f"the constraint rows have full rank {r} but the system is ill-conditioned (cond(A) = {condition_number(A):.3g})"
    rows = dependent_rows(A)
    names = ", ".join(constraints.row_label(i) for i in rows)
    return f"constraint rows are redundant (rank {r} of {A.shape[0]} rows; dependent rows: {names})"


def condition_number(A: np.ndarray) -> float:
    if A.size == 0:
        return 1.0
    s = scipy_linalg.svdvals(A)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


def independent_partition(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dependent and independent columns for coordinate partitioning.

    QR with column pivoting picks the best-conditioned square block A_d of A (rank columns);
    the remaining columns are the independent speeds.
    """
    n = A.shape[1]
    r = numerical_rank(A)
    if r == 0:
        return np.zeros(0, int), np.arange(n)
    _, _, piv = scipy_linalg.qr(A, pivoting=True, mode="economic")
    dep = np.sort(piv[:r])
    indep = np.setdiff1d(np.arange(n), dep)
    return dep, indep
