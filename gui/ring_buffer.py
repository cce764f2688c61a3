"""A fixed-capacity buffer of sample rows: the plots' memory of a run.

Appending never allocates once the buffer is full; the oldest rows fall out. `view()` returns the
rows in time order as one contiguous array (a copy only after the buffer has wrapped).
"""
from __future__ import annotations

import numpy as np

#: rows kept per run for plots and CSV export (~ 200 s at the default dt_out = 0.01 s)
DEFAULT_CAPACITY = 20_000


class RingBuffer:
    def __init__(self, n_columns: int, capacity: int = DEFAULT_CAPACITY):
        self.capacity = int(capacity)
        self._data = np.empty((self.capacity, n_columns), dtype=float)
        self._start = 0  # index of the oldest row
        self._size = 0
        self.total_appended = 0  # rows ever appended (so callers can tell what was dropped)

    @property
    def n_columns(self) -> int:
        return self._data.shape[1]

    def __len__(self) -> int:
        return self._size

    def clear(self) -> None:
        self._start = self._size = 0
        self.total_appended = 0

    def drop_from(self, t: float) -> None:
        """Forget the rows at time t and later (a run edited back in time goes on from there)."""
        kept = int(np.searchsorted(self.view()[:, 0], t, side="left"))
        self.total_appended -= self._size - kept
        self._size = kept

    def append(self, rows: np.ndarray) -> None:
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        if rows.shape[1] != self.n_columns:
            raise ValueError(f"expected {self.n_columns} columns, got {rows.shape[1]}")
        self.total_appended += len(rows)
        if len(rows) >= self.capacity:
            self._data[:] = rows[-self.capacity:]
            self._start, self._size = 0, self.capacity
            return
        end = (self._start + self._size) % self.capacity
        first = min(len(rows), self.capacity - end)
        self._data[end:end + first] = rows[:first]
        self._data[:len(rows) - first] = rows[first:]
        overflow = max(0, self._size + len(rows) - self.capacity)
        self._size = min(self.capacity, self._size + len(rows))
        self._start = (self._start + overflow) % self.capacity

    def view(self) -> np.ndarray:
        """All kept rows, oldest first."""
        if self._start + self._size <= self.capacity:
            return self._data[self._start:self._start + self._size]
        return np.concatenate((self._data[self._start:], self._data[:(self._start + self._size) % self.capacity]))

    def last(self) -> np.ndarray | None:
        if not self._size:
            return None
        return self._data[(self._start + self._size - 1) % self.capacity]

    def count_until(self, t: float) -> int:
        """How many kept rows have time ≤ t (the times rise), found without copying the rows."""
        if not self._size or self.last()[0] <= t:
            return self._size
        head = self._data[self._start:min(self._start + self._size, self.capacity), 0]
        wrapped = self._start + self._size - self.capacity  # rows at the array's start after wrapping
        if wrapped > 0 and self._data[0, 0] <= t:
            return len(head) + int(np.searchsorted(self._data[:wrapped, 0], t, side="right"))
        return int(np.searchsorted(head, t, side="right"))

    def tail_until(self, t: float, n: int) -> np.ndarray:
        """The last n (or fewer) kept rows with time ≤ t, oldest first: a copy of those rows only
        (`view` copies every row once the buffer has wrapped: too much for each frame)."""
        end = self.count_until(t)
        logical = np.arange(max(0, end - n), end)
        return self._data[(self._start + logical) % self.capacity]

