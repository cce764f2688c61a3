"""What goes to Qt is what a screen can show: a time curve with more samples than its plot has
pixel columns is reduced to the first, lowest, highest and last sample of each column-wide run of
samples (`m4_decimate`, the same picture: every column keeps its full vertical extent), always
ending at the latest sample; a phase portrait drops the samples that land on the pixel of the one
before (`pixel_decimate`), and so does a time curve after M4 (a smooth curve keeps about one
point a column instead of four: a quarter of the path to stroke). Both hand back arrays of their own, never views of the run's buffer,
whose rows move when it makes room (gui/ring_buffer.py)."""
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
    bins = n // per_bin
    full = bins * per_bin
    block = y[:full].reshape(bins, per_bin)
    base = np.arange(bins) * per_bin
    picks = np.stack((base, base + _arg(block, np.argmin), base + _arg(block, np.argmax), base + per_bin - 1),
                     axis=1)
    picks.sort(axis=1)
    index = np.concatenate((picks.ravel(), np.arange(full, n)))
    return x[index], y[index]


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
