"""Representatives of case matrices whose cells repeat one code path: `make test` runs the
representatives, which keep every distinct feature, and `make test-all` (-m "slow or not slow")
every cell (the others are marked slow)."""
from __future__ import annotations

import pytest

#: presets that take the code path of another one: the same joints and constraint kind from another
#: start (the sleigh's knife edge off its mass centre; the disk upright instead of leaning)
SAME_PATH_AS = {"chaplygin_sleigh": "knife_edge", "rolling_disk_vertical": "rolling_disk_leaning"}


def without_same_path(cases) -> list:
    """`cases` (preset names, or tuples whose first item is one) as pytest params, those of a
    SAME_PATH_AS preset marked slow."""
    params = []
    for case in cases:
        name = case[0] if isinstance(case, tuple) else case
        values = case if isinstance(case, tuple) else (case,)
        params.append(pytest.param(*values, marks=pytest.mark.slow if name in SAME_PATH_AS else ()))
    return params


def first_row_everywhere(rows, columns) -> list:
    """(row, column) pytest params of rows × columns: the first row in every column and each other
    row in one column (the columns in turn) unmarked, the other cells marked slow."""
    params = []
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            kept = i == 0 or j == (i - 1) % len(columns)
            params.append(pytest.param(row, column, marks=() if kept else pytest.mark.slow, id=f"{row}-{column}"))
    return params
