"""GrowingM4 (gui/plots/decimate.py): reducing a growing run refresh by refresh gives exactly what one
reduction of the same rows gives, reads only the new rows, keeps every run's extremes and the first
and latest samples, follows rows falling out of a ring buffer and a time cursor, and starts afresh
when its key or the run length changes."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.gui.plots.decimate import GrowingM4, m4_decimate
from eomlab.gui.runs.ring_buffer import RingBuffer


def _rows(n: int, seed: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n) * 0.01
    y = np.cumsum(rng.normal(size=n))
    y[rng.integers(0, n, 5)] = np.nan  # a wrapped angle's breaks
    return np.column_stack((t, y))


class Reader:
    """values(a, b) of a column of `data`, counting the rows asked for."""

    def __init__(self, data: np.ndarray):
        self.data, self.asked = data, 0

    def __call__(self, a: int, b: int) -> np.ndarray:
        self.asked += max(0, b - a)
        return self.data[a:b, 1]


def _once(data: np.ndarray, first: int, per_bin: int):
    return GrowingM4().reduce(data[:, 0], Reader(data), first, per_bin, "q")


def test_one_reduction_from_row_zero_is_m4_decimate():
    data = _rows(10_007)
    x, y = _once(data, 0, 12)
    mx, my = m4_decimate(data[:, 0], data[:, 1], 12)
    assert np.array_equal(x, mx) and np.array_equal(y, my, equal_nan=True)


@pytest.mark.parametrize("capacity", [30_000, 4_000])  # never full, and full with rows falling out
def test_growing_in_batches_equals_one_reduction_and_reads_each_row_about_once(capacity):
    rows = _rows(20_000)
    buffer, growing, rng = RingBuffer(2, capacity), GrowingM4(), np.random.default_rng(1)
    per_bin, asked, refreshes, done = 9, 0, 0, 0
    while done < len(rows):
        batch = int(rng.integers(1, 400))
        buffer.append(rows[done:done + batch])
        done += batch
        data = buffer.view()
        reader = Reader(data)
        x, y = growing.reduce(data[:, 0], reader, buffer.first_index(), per_bin, "q")
        asked += reader.asked
        refreshes += 1
        fx, fy = _once(data, buffer.first_index(), per_bin)
        assert np.array_equal(x, fx) and np.array_equal(y, fy, equal_nan=True)
        assert x[0] == data[0, 0] and x[-1] == data[-1, 0]  # from the oldest kept sample to the latest
        assert np.nanmin(y) == np.nanmin(data[:, 1]) and np.nanmax(y) == np.nanmax(data[:, 1])
    # each row once, plus the rows before the first whole run and after the last at each refresh
    assert asked <= len(rows) + refreshes * 2 * per_bin


def test_every_run_keeps_its_extremes_in_time_order():
    data = _rows(5_000)
    first, per_bin = 23, 10  # the runs start at row numbers that are multiples of 10
    x, y = _once(data, first, per_bin)
    assert np.all(np.diff(x) >= 0)  # (a run's first sample may also be its lowest)
    for start in range(-first % per_bin, len(data) - per_bin, per_bin):
        block = data[start:start + per_bin]
        inside = y[(x >= block[0, 0]) & (x <= block[-1, 0])]
        if np.isnan(block[:, 1]).all():
            continue
        assert np.nanmin(inside) == np.nanmin(block[:, 1]) and np.nanmax(inside) == np.nanmax(block[:, 1])


def test_a_time_cursor_uses_the_runs_held_and_keeps_them():
    data = _rows(8_000)
    growing = GrowingM4()
    growing.reduce(data[:, 0], Reader(data), 0, 8, "q")
    for k in (7_999, 5_001, 17, 3):  # scrubbing back
        reader = Reader(data[:k])
        x, y = growing.reduce(data[:k, 0], reader, 0, 8, "q")
        fx, fy = _once(data[:k], 0, 8)
        assert np.array_equal(x, fx) and np.array_equal(y, fy, equal_nan=True)
        assert reader.asked <= max(2 * 8, 0) or k < 2 * 8
    reader = Reader(data)
    growing.reduce(data[:, 0], reader, 0, 8, "q")
    assert reader.asked < 2 * 8  # the runs were kept


def test_a_new_key_or_a_finer_run_starts_afresh_and_a_slightly_coarser_one_does_not():
    data = _rows(6_000)
    growing = GrowingM4()
    growing.reduce(data[:, 0], Reader(data), 0, 10, "q")
    for per_bin, key, starts_afresh in ((12, "q", False), (10, "q", False), (13, "q", True), (9, "q", True),
                                        (9, "another column", True)):
        reader = Reader(data)
        x, _ = growing.reduce(data[:, 0], reader, 0, per_bin, key)
        assert (reader.asked == len(data)) == starts_afresh, (per_bin, key)
    few = Reader(data)
    x, y = growing.reduce(data[:, 0], few, 0, 4, "q")  # under five rows a column: every sample
    assert len(x) == len(data) and np.array_equal(y, data[:, 1], equal_nan=True)


def test_ring_buffer_counts_rows_taken_back_and_numbers_its_oldest_row():
    buffer = RingBuffer(2, 100)
    buffer.append(_rows(250))
    assert buffer.first_index() == 150 and buffer.rewrites == 0
    buffer.drop_from(2.0)
    assert buffer.rewrites == 1 and buffer.first_index() == 150 and len(buffer) == 50
    buffer.clear()
    assert buffer.rewrites == 2 and buffer.first_index() == 0
