"""Pictures of a sweep's table (matplotlib, no window): a map for two varied numbers, a curve for one,
a work–precision diagram when the tolerance varies.

The work–precision diagram puts the error measure (``energy_drift``, or a ``max:``/``end:``
measure) against ``rhs_evals`` and ``wall_time``, one curve per formulation and integrator.
"""
from __future__ import annotations

import math
import os
import tempfile

import numpy as np

from eomlab.engine.model import ModelError, joint_type

FORMATS = (".png", ".svg", ".pdf")
TOLERANCES = ("tol", "rtol", "atol")
CHOICES = ("method", "coordinates", "integrator")
RUN_COLUMNS = ("run", "engine", "failure")


def _numeric_varies(spec):
    return [v for v in spec.varies if v.kind != "setting"]


def _kind(spec) -> str:
    if any(v.name in TOLERANCES for v in spec.varies):
        return "work_precision"
    return "map" if len(_numeric_varies(spec)) == 2 else "curve"


def check_plot(spec, path: str) -> None:
    """Refuse, before any run, a picture that cannot be drawn from this sweep."""
    if not path.lower().endswith(FORMATS):
        raise ModelError("--plot", f"the picture's name must end in {', '.join(FORMATS)}, got {path!r}")
    kind = _kind(spec)
    measures = [m.text for m in spec.measures]
    if kind == "work_precision":
        if "rhs_evals" not in measures or not _error_measure(spec):
            raise ModelError("--plot", "a work-precision diagram needs --measure rhs_evals and an error measure "
                             "(energy_drift, max:EXPR or end:EXPR)")
    elif not 1 <= len(_numeric_varies(spec)) <= 2:
        raise ModelError("--plot", "vary one number (a curve) or two (a map), or tol (a work-precision diagram)")


def _error_measure(spec) -> str | None:
    for m in spec.measures:
        if m.kind in ("energy_drift", "constraint_drift", "max", "end"):
            return m.text
    return None


def _value_column(spec, table) -> str:
    skip = {*RUN_COLUMNS, *(v.name for v in spec.varies)}
    return next(c for c in table.columns if c not in skip)


def _label(spec, name: str) -> str:
    model = spec.model
    for b in model.bodies:
        if name in b.joint.names:
            return f"{name} (rad)" if joint_type(b.joint.type).single_turn else name
        if name in (f"{n}_dot" for n in b.joint.names):
            return f"{name} (rad/s)" if joint_type(b.joint.type).single_turn else name
    if name.startswith(("flip_time", "over_top", "wall_time")):
        return f"{name} (s)"
    return name


def plot_sweep(spec, table, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = _kind(spec)
    with plt.rc_context({"font.size": 13}):
        if kind == "work_precision":
            fig = _work_precision(plt, spec, table)
        elif kind == "map":
            fig = _map(plt, spec, table)
        else:
            fig = _curve(plt, spec, table)
        _save(fig, path)
        plt.close(fig)


def _save(fig, path: str) -> None:
    """Write the picture under a temporary name, then rename: no half-written picture."""
    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    fd, tmp = tempfile.mkstemp(prefix=".eomlab-", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _map(plt, spec, table):
    vx, vy = _numeric_varies(spec)
    value = _value_column(spec, table)
    fig, ax = plt.subplots(figsize=(8.5, 7))
    data = table[value].to_numpy(dtype=float)
    positive = data[np.isfinite(data)]
    log = value.startswith(("flip_time", "over_top")) and positive.size and positive.min() > 0
    norm = matplotlib_lognorm(positive) if log else None
    cmap = plt.get_cmap("viridis").with_extremes(bad="#f0f0f0")  # runs that never flip
    if spec.mode == "grid":
        grid = table.pivot_table(index=vy.name, columns=vx.name, values=value, dropna=False, aggfunc="first")
        x, y = grid.columns.to_numpy(float), grid.index.to_numpy(float)
        image = ax.pcolormesh(_edges(x), _edges(y), grid.to_numpy(float), cmap=cmap, norm=norm, shading="flat")
    else:
        image = ax.scatter(table[vx.name], table[vy.name], c=data, cmap=cmap, norm=norm, s=12)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(_label(spec, value) + ("; grey: never within t_end" if np.isnan(data).any() else ""))
    ax.set_xlabel(_label(spec, vx.name))
    ax.set_ylabel(_label(spec, vy.name))
    ax.set_title(f"{spec.model.name}: {value}, t_end = {spec.t_end:g} s, {len(table)} runs")
    ax.set_aspect("auto")
    return fig


def matplotlib_lognorm(values):
    from matplotlib.colors import LogNorm

    return LogNorm(vmin=float(values.min()), vmax=float(values.max()))


def _edges(centres: np.ndarray) -> np.ndarray:
    if len(centres) == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    mid = 0.5 * (centres[1:] + centres[:-1])
    return np.concatenate(([2 * centres[0] - mid[0]], mid, [2 * centres[-1] - mid[-1]]))


def _curve(plt, spec, table):
    (vx,) = _numeric_varies(spec)
    value = _value_column(spec, table)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    groups = [c.name for c in spec.varies if c.kind == "setting"]
    for key, part in (table.groupby(groups) if groups else [("", table)]):
        part = part.sort_values(vx.name)
        ax.plot(part[vx.name], part[value], ".-", lw=1.5, label=", ".join(map(str, np.atleast_1d(key))) or None)
    if groups:
        ax.legend(loc="best")
    ax.set_xlabel(_label(spec, vx.name))
    ax.set_ylabel(_label(spec, value))
    ax.set_title(f"{spec.model.name}: {value}, t_end = {spec.t_end:g} s")
    ax.grid(alpha=0.3)
    return fig


def _work_precision(plt, spec, table):
    error = _error_measure(spec)
    has_wall = "wall_time" in table.columns
    fig, axes = plt.subplots(1, 2 if has_wall else 1, figsize=(14 if has_wall else 8, 6), squeeze=False)
    groups = [c for c in CHOICES if c in table.columns]
    tol = next(v.name for v in spec.varies if v.name in TOLERANCES)
    markers = "osD^v<>ph*"
    for n, (key, part) in enumerate(table.groupby(groups) if groups else [("", table)]):
        part = part[part["failure"] == ""].groupby(tol).mean(numeric_only=True).reset_index()
        label = ", ".join(map(str, np.atleast_1d(key))) or spec.model.settings.method
        for ax, cost in zip(axes[0], ("rhs_evals", "wall_time")):
            ax.loglog(part[cost], np.maximum(part[error], 1e-17), marker=markers[n % len(markers)], lw=1.8, ms=6,
                      label=label)
    from matplotlib.ticker import FuncFormatter

    def leading_1_2_5(value, _position):  # every tick labelled ran into each other; 1, 2, 5 × 10^k read well
        return f"{value:g}" if value > 0 and f"{value:.0e}"[0] in "125" else ""

    for ax, cost in zip(axes[0], ("rhs_evals", "wall_time")):
        ax.xaxis.set_major_formatter(FuncFormatter(leading_1_2_5))
        ax.xaxis.set_minor_formatter(FuncFormatter(leading_1_2_5))
        ax.set_xlabel("right-hand-side evaluations per run" if cost == "rhs_evals" else "wall time per run (s)")
        ax.set_ylabel(error)
        ax.grid(alpha=0.3, which="both")
    axes[0][0].legend(loc="best", fontsize=10)
    low, high = min(spec_values(spec, tol)), max(spec_values(spec, tol))
    fig.suptitle(f"{spec.model.name}: work–precision, {tol} from {low:.0e} to {high:.0e}, t_end = {spec.t_end:g} s")
    return fig


def spec_values(spec, name):
    values = next(v.values for v in spec.varies if v.name == name)
    return [float(v) for v in values if math.isfinite(float(v))]
