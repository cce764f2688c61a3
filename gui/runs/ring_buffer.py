"""A fixed-capacity buffer of sample rows: the plots' memory of a run.

The rows sit in time order in one array with room after them; appending writes into the room and,
when it runs out, moves the kept rows back to the front (one move per `capacity // 2` rows
appended). So `view()` is always a slice, never a copy: every plot reads it at every frame, and a
full buffer of a long chain is megabytes.
"""
from __future__ import annotations

import numpy as np

#: rows kept per run for plots and CSV export (~ 200 s at the default dt_out = 0.01 s)
DEFAULT_CAPACITY = 20_000


class RingBuffer:
    def __init__(self, n_columns: int, capacity: int = DEFAULT_CAPACITY):
        self.capacity = int(capacity)
        self._data = np.empty((self.capacity + max(1, self.capacity // 2), n_columns), dtype=float)
        self._start = 0  # index of the oldest kept row
        self._size = 0
        self.total_appended = 0  # rows ever appended (so callers can tell what was dropped)
        #: counts the times kept rows were taken back (cleared, or dropped from a time on): the rows
        #: at an index may then be others than before, so a reader's work on them is void
        self.rewrites = 0

    @property
    def n_columns(self) -> int:
        return self._data.shape[1]

    def __len__(self) -> int:
        return self._size

    def clear(self) -> None:
        self._start = self._size = 0
        self.total_appended = 0
        self.rewrites += 1

    def drop_from(self, t: float) -> None:
        """Forget the rows at time t and later (a run edited back in time goes on from there)."""
        kept = int(np.searchsorted(self.view()[:, 0], t, side="left"))
        self.total_appended -= self._size - kept
        self._size = kept
        self.rewrites += 1

    def first_index(self) -> int:
        """The number of the oldest kept row among all rows appended (0 until rows fall out)."""
        return self.total_appended - self._size

    def append(self, rows: np.ndarray) -> None:
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        if rows.shape[1] != self.n_columns:
            raise ValueError(f"expected {self.n_columns} columns, got {rows.shape[1]}")
        self.total_appended += len(rows)
        if len(rows) >= self.capacity:
            self._data[:self.capacity] = rows[-self.capacity:]
            self._start, self._size = 0, self.capacity
            return
        end = self._start + self._size
        if end + len(rows) > len(self._data):  # no room left: the rows still kept move to the front
            keep = min(self._size, self.capacity - len(rows))
            self._data[:keep] = self._data[end - keep:end]
            self._start, self._size, end = 0, keep, keep
        self._data[end:end + len(rows)] = rows
        self._size += len(rows)
        if self._size > self.capacity:  # the oldest fall out
            self._start += self._size - self.capacity
            self._size = self.capacity

    def view(self) -> np.ndarray:
        """All kept rows, oldest first (a slice of the buffer: the next append may change it)."""
        return self._data[self._start:self._start + self._size]

    def last(self) -> np.ndarray | None:
        if not self._size:
            return None
        return self._data[self._start + self._size - 1]

    def count_until(self, t: float) -> int:
        """How many kept rows have time ≤ t (the times rise)."""
        if not self._size or self.last()[0] <= t:
            return self._size
        return int(np.searchsorted(self.view()[:, 0], t, side="right"))

    def tail_until(self, t: float, n: int, columns=None) -> np.ndarray:
        """A copy of the last n (or fewer) kept rows with time ≤ t, oldest first (of `columns` only,
        a list of indices: a 200-link chain's rows are 1,000 columns wide)."""
        end = self.count_until(t)
        rows = self.view()[max(0, end - n):end]
        return rows.copy() if columns is None else rows[:, columns]
