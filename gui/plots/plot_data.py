"""What a plot's curves show, computed from a run's samples: coordinates (spinning angles wrapped),
rates, energies, drifts and multipliers; and which coordinates are worth plotting by default."""
from __future__ import annotations

import numpy as np

from eomlab.gui.plots.decimate import GrowingM4
from eomlab.gui.style.plot_style import coordinate_unit
from eomlab.gui.runs.run_thread import RunInfo

#: log plots cannot show zero: smaller values are drawn at this floor
LOG_FLOOR = 1e-17
#: an angle that has turned through more than a full turn (radians) is drawn wrapped into (−π, π]
WRAP_SPAN = 2.0 * np.pi


def wrapped(values: np.ndarray) -> np.ndarray:
    """An angle wrapped into (−π, π], broken (NaN) where it jumps, so no line crosses the plot."""
    out = np.mod(values + np.pi, 2.0 * np.pi) - np.pi
    jumps = np.flatnonzero(np.abs(np.diff(out)) > np.pi)
    out[jumps + 1] = np.nan
    return out


def spins(values: np.ndarray | None, unit: str) -> bool:
    if values is None or unit != "rad" or not len(values):
        return False
    finite = values[np.isfinite(values)]
    return bool(len(finite)) and float(finite.max() - finite.min()) > WRAP_SPAN


def speed_for(info: RunInfo, coordinate: str) -> str | None:
    """The speed paired with a coordinate: `<name>_dot` if the run has it, else the same index."""
    if f"{coordinate}_dot" in info.speed_names:
        return f"{coordinate}_dot"
    if coordinate in info.coordinate_names:
        i = info.coordinate_names.index(coordinate)
        if i < len(info.speed_names):
            return info.speed_names[i]
    return None


def plottable_coordinates(info: RunInfo, model) -> list[str]:
    """The coordinates a motion plot offers: not Euler parameters (pure numbers that say little
    at a glance); a body of Euler parameters alone offers its body rates instead."""
    names = [n for n in info.coordinate_names if coordinate_unit(n, model) != "1"]
    return names or [n for n in info.speed_names]


def moving_first(series, data: np.ndarray, names: list[str], count: int) -> list[str]:
    """The `count` names whose samples spread most (a pinned point's x, 1e-14 of noise, last), in
    their own order."""
    spread = []
    for name in names:
        values = series.column(data, name)
        finite = values[np.isfinite(values)] if values is not None else np.zeros(0)
        spread.append(float(np.ptp(finite)) if len(finite) else 0.0)
    ranked = sorted(range(len(names)), key=lambda i: -spread[i])[:count]
    moving = [i for i in ranked if spread[i] > 1e-9] or ranked
    return [names[i] for i in sorted(moving)]


def curve_values(series, data: np.ndarray, key: str, phase_name: str = "") -> np.ndarray | None:
    """The y values of curve `key` (see `plot_of`) over the rows `data`."""
    if key.startswith("q:"):
        return series.column(data, key[2:])
    if key.startswith("lam:"):
        return series.column(data, key[4:])
    if key == "phase":
        speed = speed_for(series.info, phase_name)
        return series.column(data, speed) if speed else None
    if key in ("T", "V", "E"):
        return series.column(data, key)
    if key == "drift_E":
        energy = series.column(data, "E")
        if energy is None:
            return None
        if series.account.stretches:  # E − E_s − (W − W_s) of each stretch between edits (NaN: forced)
            return np.maximum(np.abs(energy_balance(series, data)[1]), LOG_FLOOR)
        e0, scale = energy_reference(series, data)
        return np.maximum(np.abs(energy - e0) / scale, LOG_FLOOR)
    if key in ("drift_pos", "drift_vel"):
        values = series.column(data, key)
        return None if values is None else np.maximum(np.abs(values), LOG_FLOOR)
    return None


def time_curve(series, data: np.ndarray, curve_key: str, unit: str, per_bin: int | None):
    """(t, values, spins) of the curve `curve_key` against time over the rows `data` (a prefix of the
    run's kept rows); None if the run has no such column. `per_bin` None: every sample; else the
    rows a pixel column holds, and the curve is M4-reduced to the columns reducing only the rows
    added since the last call (a `GrowingM4` per curve and form, kept in `series.reductions`). A
    coordinate in radians (`unit`) that has turned through more than a turn comes wrapped."""
    if per_bin is None:
        y = curve_values(series, data, curve_key)
        if y is None:
            return None
        spin = spins(y, unit)
        return data[:, 0], (wrapped(y) if spin else y), spin
    if curve_values(series, data[:0], curve_key) is None:
        return None
    t, buffer = data[:, 0], series.buffer
    first, valid = buffer.first_index(), (buffer.rewrites, series.energy_reference, series.account.version)
    x, y = series.reductions.setdefault(curve_key, GrowingM4()).reduce(
        t, lambda a, b: curve_values(series, data[a:b], curve_key), first, per_bin, valid)
    spin = spins(y, unit)  # M4 keeps every run's extremes: the span is the full curve's
    if spin:
        column = curve_values(series, data, curve_key)
        x, y = series.reductions.setdefault(curve_key + " wrapped", GrowingM4()).reduce(
            t, lambda a, b: wrapped(column[max(a - 1, 0):b])[min(a, 1):], first, per_bin, valid)
    return x, y, spin


def energy_reference(series, data: np.ndarray) -> tuple | None:
    """E(0) and the scale of the relative drift, taken from the first of the rows `data` the first
    time and kept (E(0) may later fall out of the ring buffer); None without energies or rows."""
    if series.energy_reference is None and len(data):
        energy, kinetic, potential = (series.column(data, c) for c in ("E", "T", "V"))
        if energy is not None:  # the same scale as the engine's relative_energy_drift
            series.energy_reference = (energy[0], max(abs(energy[0]), kinetic[0] + abs(potential[0]), 1e-12))
    return series.energy_reference


def energy_balance(series, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W, relative drift) at the rows `data` from the run's energy account (engine/run/energy_account.py);
    W is 0 and the drift E − E₀ over its scale before any stretch was begun."""
    energy = series.column(data, "E")
    if energy is None:
        return np.zeros(len(data)), np.zeros(len(data))
    if not series.account.stretches:
        reference = energy_reference(series, data)
        e0, scale = reference if reference is not None else (0.0, 1.0)
        return np.zeros(len(data)), (energy - e0) / scale
    return series.account.balance(data[:, 0], energy)


def plot_of(curve_key: str) -> str:
    """The plot a curve (by its key in `RunSeries.curves`) is drawn in."""
    if curve_key.startswith("q:"):
        return "motion"
    if curve_key.startswith("lam:"):
        return "multipliers"
    return {"phase": "phase", "T": "energy", "V": "energy", "E": "energy", "drift_E": "energy_drift",
            "drift_pos": "constraint_drift", "drift_vel": "constraint_drift"}[curve_key]


def has_constraint_rows(info: RunInfo) -> bool:
    return bool(getattr(info, "constraint_rows", 1))


def multiplier_columns(info: RunInfo) -> list[str]:
    return [c for c in info.columns if c.startswith("lambda_")]
