"""Methods whose runs give the same numbers, so that each of their curves stays visible: in a group
of identical runs the first is drawn widest and lowest, each next one narrower on top (its colour
and dashes show as a band inside the one below), and the group is said in words with the largest
difference measured ("Lagrange = Maggi = Udwadia–Kalaba to 4.4e-16")."""
from __future__ import annotations

import pyqtgraph as pg

from eomlab.gui.compare.compare_math import coordinate_difference
from eomlab.gui.style.method_styles import method_label, method_style

#: runs whose coordinates differ by at most this (rad or m) at every common sample draw one curve
IDENTICAL = 1e-12
#: each member of a group below the top one is this many base widths wider than the one above it
WIDTH_STEP = 1.25


def largest_difference(a, b, until: float | None) -> float | None:
    """max |q_a − q_b| over the samples both runs have up to `until` (None: none in common)."""
    names = [n for n in a.series.info.coordinate_names if n in b.series.info.columns]
    t, diff = coordinate_difference(a.series.rows_until(until), b.series.rows_until(until),
                                    [a.series.info.columns.index(n) for n in names],
                                    [b.series.info.columns.index(n) for n in names], a.series.info.dt_out)
    return float(diff.max()) if len(t) else None


def identical_groups(runs, until: float | None = None) -> list[tuple[list[str], float]]:
    """Groups (methods in run order, largest pairwise difference) of two or more runs that agree
    to `IDENTICAL`."""
    runs = [r for r in runs if r.series is not None and len(r.series.buffer)]
    parent = list(range(len(runs)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    differences = {}
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            d = largest_difference(runs[i], runs[j], until)
            if d is not None and d <= IDENTICAL:
                differences[i, j] = d
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(runs)):
        groups.setdefault(root(i), []).append(i)
    found = []
    for members in groups.values():
        if len(members) > 1:
            worst = max(differences.get((i, j), 0.0) for i in members for j in members if i < j)
            found.append(([runs[i].method for i in members], worst))
    return found


def group_words(groups: list[tuple[list[str], float]]) -> str:
    """"Lagrange = Maggi to 4.4e-16; …" ("" for no group)."""
    return "; ".join(" = ".join(method_label(m) for m in methods) + (f" to {worst:.1e}" if worst > 0 else " exactly")
                     for methods, worst in groups)


def widths(groups: list[tuple[list[str], float]], base: float) -> dict[str, float]:
    """The pen width of each method in a group (others keep `base`): the first widest."""
    out = {}
    for methods, _ in groups:
        for i, method in enumerate(methods):
            out[method] = base * (1.0 + WIDTH_STEP * (len(methods) - 1 - i))
    return out


def restyle_curve(curve: pg.PlotDataItem, method: str, width: float, color=None) -> None:
    """The method's colour and dashes at `width`, wider curves lower (only when it changed)."""
    pen = curve.opts.get("pen")
    if pen is not None and not isinstance(pen, (str, tuple)) and abs(pg.mkPen(pen).widthF() - width) < 1e-9:
        return
    own_color, style = method_style(method)
    curve.setPen(pg.mkPen(color or own_color, width=width, style=style))
    curve.setZValue(-width)

