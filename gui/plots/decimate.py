"""What goes to Qt is what a screen can show: a time curve with more samples than its plot has
pixel columns is reduced to the first, lowest, highest and last sample of each column-wide run of
samples (`m4_decimate`, the same picture: every column keeps its full vertical extent), always
ending at the latest sample; a phase portrait drops the samples that land on the pixel of the one
before (`pixel_decimate`), and so does a time curve after M4 (a smooth curve keeps about one
point a column instead of four: a quarter of the path to stroke). While a run grows, `GrowingM4`
keeps a curve's reduced runs between refreshes and reduces only the new rows. All hand back arrays
of their own, never views of the run's buffer, whose rows move when it makes room
(gui/runs/ring_buffer.py)."""
from __future__ import annotations

import numpy as np


def m4_decimate(x: np.ndarray, y: np.ndarray, per_bin: int) -> tuple[np.ndarray, np.ndarray]:
    """Reduce a curve sampled along increasing x to the first, lowest, highest and last point of
    each run of `per_bin` samples, in their order (M4). With runs no wider than a pixel column
    the line drawn through them covers the same pixels as the full curve. The samples after the
    last full run are kept as they are, so the result always ends at the last sample."""
    n = len(x)
    if per_bin < 5 or n < 2 * per_bin:
        return x.copy(), y.copy()  # few samples: a copy, since Qt keeps what it is handed (see ring_buffer)
    full = (n // per_bin) * per_bin
    bx, by = _m4_runs(x[:full], y[:full], per_bin)
    return np.concatenate((bx, x[full:])), np.concatenate((by, y[full:]))


def _m4_runs(x: np.ndarray, y: np.ndarray, per_bin: int) -> tuple[np.ndarray, np.ndarray]:
    """M4 of samples that make whole runs of `per_bin`: four points a run, in their order."""
    bins = len(x) // per_bin
    block = y.reshape(bins, per_bin)
    base = np.arange(bins) * per_bin
    picks = np.stack((base, base + _arg(block, np.argmin), base + _arg(block, np.argmax), base + per_bin - 1),
                     axis=1)
    picks.sort(axis=1)
    index = picks.ravel()
    return x[index], y[index]


class GrowingM4:
    """M4 of one curve over a run's kept rows, kept from one refresh to the next so that a refresh
    reads only the rows added since the last (O(new rows + points drawn), not O(rows kept), which a
    full buffer makes a share of every frame).

    Rows are numbered from the run's first (the buffer's `first_index`) and the runs of `per_bin`
    rows start at multiples of `per_bin`, so a run once reduced stays as it is: rows that fall out
    of the buffer take their runs with them, and a time cursor before the latest row uses the runs
    before it. A finer `per_bin` than the runs held, a coarser one by more than `COARSER`, or a new
    `key` (another column, another energy reference, rows taken back) starts afresh."""

    #: the runs held serve while the wanted run length is at most this much longer (a run a little
    #: shorter than a pixel column draws the same; the estimate of samples a column wavers)
    COARSER = 1.25

    def __init__(self):
        self._key = None
        self._per_bin = 0
        self._first_run = 0  # number of the first run held
        self._x = self._y = np.zeros(0)

    def reduce(self, t: np.ndarray, values, first: int, per_bin: int, key) -> tuple[np.ndarray, np.ndarray]:
        """The curve to draw over rows with times `t`, row i being row number `first + i`;
        `values(a, b)` gives the curve's values at rows a..b-1 (asked only for rows not reduced
        yet); `per_bin` rows make a pixel column. Returns arrays of its own."""
        per_bin = per_bin if per_bin >= 5 else 1  # fewer than five a column: every sample (as m4_decimate)
        held = self._per_bin
        if key != self._key or not (held == per_bin or (held >= 5 and held <= per_bin <= held * self.COARSER)):
            self._key, self._per_bin = key, per_bin
            self._first_run, self._x, self._y = -(-first // per_bin), np.zeros(0), np.zeros(0)
        size, points = self._per_bin, (4 if self._per_bin > 1 else 1)
        self._drop_runs_before(-(-first // size), points)
        end_run = (first + len(t)) // size  # the last run wholly present ends before this one
        next_run = self._first_run + len(self._x) // points
        if end_run > next_run:
            a, b = next_run * size - first, end_run * size - first
            x, y = t[a:b], np.asarray(values(a, b), dtype=float)
            if size > 1:
                x, y = _m4_runs(x, y, size)
            self._x, self._y = np.concatenate((self._x, x)), np.concatenate((self._y, y))
        used = min(len(self._x) // points, end_run - self._first_run)
        if used <= 0:
            return t.copy(), np.array(values(0, len(t)), dtype=float)
        head, tail = self._first_run * size - first, (self._first_run + used) * size - first
        return (np.concatenate((t[:head], self._x[:used * points], t[tail:])),
                np.concatenate((values(0, head), self._y[:used * points], values(tail, len(t)))))

    def _drop_runs_before(self, run: int, points: int) -> None:
        if run > self._first_run:
            dropped = min(run - self._first_run, len(self._x) // points)
            self._x, self._y = self._x[dropped * points:], self._y[dropped * points:]
            self._first_run = run


def _arg(block: np.ndarray, which) -> np.ndarray:
    """argmin/argmax along rows, ignoring NaN (a row of NaN gives its first index)."""
    if not np.isnan(block).any():
        return which(block, axis=1)
    fill = np.inf if which is np.argmin else -np.inf
    return which(np.where(np.isnan(block), fill, block), axis=1)


def pixel_decimate(x: np.ndarray, y: np.ndarray, x_range, y_range, size) -> tuple[np.ndarray, np.ndarray]:
    """Drop the points that fall on the same pixel as the point before them (a path drawn through
    the rest covers the same pixels within one); first and last points are kept."""
    keep = pixel_keep(x, y, x_range, y_range, size)
    return (x.copy(), y.copy()) if keep is None else (x[keep], y[keep])


def pixel_keep(x: np.ndarray, y: np.ndarray, x_range, y_range, size) -> np.ndarray | None:
    """Which points land on another pixel than the point before them (first and last always), for
    a plot showing `x_range` × `y_range` on `size` = (width, height) pixels; None: keep them all."""
    n = len(x)
    if n < 3:
        return None
    (x0, x1), (y0, y1), (w, h) = x_range, y_range, size
    if not (x1 > x0 and y1 > y0 and w > 0 and h > 0):
        return None
    with np.errstate(invalid="ignore"):
        px = np.floor((x - x0) * (w / (x1 - x0)))
        py = np.floor((y - y0) * (h / (y1 - y0)))
    keep = np.ones(n, dtype=bool)
    keep[1:] = (px[1:] != px[:-1]) | (py[1:] != py[:-1])
    keep[-1] = True
    return keep


def on_new_pixels(x: np.ndarray, y: np.ndarray, view_range, size, log: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The points of a time curve that land on another pixel than the point before, for a plot
    showing `view_range` = ((x0, x1), (y0, y1)) on `size` pixels (y on a log10 scale for `log`)."""
    (x_range, y_range) = view_range
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            keep = pixel_keep(x, np.log10(y), x_range, y_range, size)
    else:
        keep = pixel_keep(x, y, x_range, y_range, size)
    return (x, y) if keep is None else (x[keep], y[keep])


def _finite_range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    return (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 0.0)
