"""What a sweep measures per run, and measuring it — along a batched run or from a single run's samples.

``final`` (every coordinate and speed at t_end, columns ``final:NAME``; or ``final:NAME`` for one),
``flip_time:NAME`` (the first time coordinate NAME reaches ±π; NaN if never), ``over_top:NAME``
(the first time angle NAME is π from its hanging value, engine/sweep/hanging.py: a pendulum going
over the top, whatever its zero; NaN if never), ``energy_drift``
(max |E − E(0)| / max(|E(0)|, T(0) + |V(0)|), THEORY.md §5), ``constraint_drift`` (max position or
velocity residual), ``rhs_evals``, ``wall_time``, ``end:EXPR`` and ``max:EXPR`` (a user expression
in t, the coordinates and the speeds, at t_end or its maximum). Batched runs take maxima over
their steps, single runs over their samples (every dt_out). Expressions go through
`engine.expressions` (parsed against a whitelist, compiled once per process).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from eomlab.engine.expressions import Expression, compile_expressions, parse_expression
from eomlab.engine.model import Model, ModelError, speed_names

KINDS = ("final", "flip_time", "over_top", "energy_drift", "constraint_drift", "rhs_evals", "wall_time", "end", "max")
_NEEDS_ARGUMENT = ("flip_time", "over_top", "end", "max")
#: measures of the first time an angle is π from a reference (flip_time: from 0; over_top: from hanging)
CROSSINGS = ("flip_time", "over_top")
_NO_ARGUMENT = ("energy_drift", "constraint_drift", "rhs_evals", "wall_time")


@dataclass(frozen=True)
class Measure:
    text: str  # as given: the column's name
    kind: str
    arg: str = ""
    expression: Expression | None = None
    offset: float = 0.0  # a crossing's reference angle: |angle − offset| reaching π
    chain: tuple[int, ...] = ()  # a crossing's angle: the sum of these coordinates (engine/sweep/hanging.py)


def state_names(model: Model) -> tuple[str, ...]:
    """Coordinates then speeds: the order of a run's state."""
    return (*model.coordinate_names, *(s for b in model.bodies for s in speed_names(b.name, b.joint)))


def parse_measure(model: Model, text: str) -> Measure:
    where = f"--measure {text}"
    kind, sep, arg = str(text).strip().partition(":")
    kind, arg = kind.strip(), arg.strip()
    if kind not in KINDS:
        raise ModelError(where, f"unknown measure {kind!r}; measures: {', '.join(KINDS)} (flip_time:NAME, over_top:NAME, end:EXPR, max:EXPR)")
    if kind in _NEEDS_ARGUMENT and not arg:
        raise ModelError(where, f"{kind} needs an argument: {kind}:{'NAME' if kind in CROSSINGS else 'EXPR'}")
    if kind in _NO_ARGUMENT and sep:
        raise ModelError(where, f"{kind} takes no argument")
    names = state_names(model)
    if kind in CROSSINGS and arg not in model.coordinate_names:
        raise ModelError(where, f"{arg!r} is not a coordinate of the model ({', '.join(model.coordinate_names[:8])})")
    offset, chain = 0.0, ((model.coordinate_names.index(arg),) if kind in CROSSINGS else ())
    if kind == "over_top":
        from eomlab.engine.sweep.hanging import hanging_position, turning_chain

        try:
            chain = turning_chain(model, arg)
        except ValueError as err:
            raise ModelError(where, str(err)) from None
        offset = sum(hanging_position(model)[c] for c in chain)
    if kind == "final" and arg and arg not in names:
        raise ModelError(where, f"{arg!r} is not a coordinate or speed of the model")
    expression = parse_expression(arg, names, where) if kind in ("end", "max") else None
    return Measure(text=f"{kind}:{arg}" if arg else kind, kind=kind, arg=arg, expression=expression, offset=offset,
                   chain=chain)


def measure_columns(model: Model, m: Measure) -> list[str]:
    if m.kind == "final" and not m.arg:
        return [f"final:{n}" for n in state_names(model)]
    return [m.text]


@lru_cache(maxsize=64)
def _compiled(expression: Expression, names: tuple[str, ...]):
    return compile_expressions([expression.sympy], ["t", *names])


def evaluate_expression(m: Measure, names: tuple[str, ...], t: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The expression at times t (k,) and states (k, n): values (k,)."""
    fn = _compiled(m.expression, names)
    with np.errstate(all="ignore"):
        value = fn(np.asarray(t, float), *states.T)
    return np.broadcast_to(np.asarray(value, float).reshape(-1), (len(t),)).copy()


def hermite_crossing(t0, t1, q0, q1, v0, v1, target, a0=None, a1=None) -> np.ndarray:
    """When the Hermite interpolant of q over a step reaches `target`: cubic from values q and rates v
    at t0, t1, quintic when the accelerations a are given too; bisection on arrays (the crossing is
    bracketed by the step's ends)."""
    h = t1 - t0
    lo, hi = np.zeros_like(h), np.ones_like(h)
    rising = q1 > q0

    def at(s):
        s2, s3 = s * s, s * s * s
        if a0 is None:
            return ((2 * s3 - 3 * s2 + 1) * q0 + (s3 - 2 * s2 + s) * h * v0 + (-2 * s3 + 3 * s2) * q1
                    + (s3 - s2) * h * v1)
        s4, s5 = s3 * s, s3 * s2
        return ((1 - 10 * s3 + 15 * s4 - 6 * s5) * q0 + (s - 6 * s3 + 8 * s4 - 3 * s5) * h * v0
                + (0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5) * h * h * a0 + (0.5 * s3 - s4 + 0.5 * s5) * h * h * a1
                + (-4 * s3 + 7 * s4 - 3 * s5) * h * v1 + (10 * s3 - 15 * s4 + 6 * s5) * q1)

    for _ in range(45):  # 2⁻⁴⁵ of a step: far below the interpolant's own error
        mid = 0.5 * (lo + hi)
        past = np.where(rising, at(mid) >= target, at(mid) <= target)
        hi, lo = np.where(past, mid, hi), np.where(past, lo, mid)
    return t0 + hi * h


def _sum(values: np.ndarray, columns) -> np.ndarray:
    return values[:, list(columns)].sum(axis=1)


def _angle(m: Measure, states: np.ndarray) -> np.ndarray:
    """A crossing measure's angle over states (k, n): the chain's sum less the reference."""
    return _sum(states, m.chain) - m.offset


class Measurements:
    """Per-member results of one group of runs, filled along a batched run or from samples."""

    def __init__(self, model: Model, measures, size: int):
        self.model, self.measures, self.size = model, measures, size
        self.names = state_names(model)
        self.n_q = len(model.coordinate_names)
        self.flips = [m for m in measures if m.kind in CROSSINGS]
        self.maxima = [m for m in measures if m.kind == "max"]
        self.wants_energy = any(m.kind == "energy_drift" for m in measures)
        self.flip_time = np.full((size, len(self.flips)), np.nan)
        self.expr_max = np.full((size, len(self.maxima)), -np.inf)
        self.energy_drift = np.zeros(size)
        self.constraint_drift = np.zeros(size)
        self.E0 = np.zeros(size)
        self.E_scale = np.ones(size)

    # --- along a batched run ----------------------------------------------------------------

    def start(self, members, y0, energy=None) -> None:
        if self.wants_energy:
            T, V = energy(members, y0)
            self.E0[members] = T + V
            self.E_scale[members] = np.maximum(np.maximum(np.abs(T + V), T + np.abs(V)), 1e-12)
        for j, m in enumerate(self.flips):
            self.flip_time[members[np.abs(_angle(m, y0)) >= math.pi], j] = 0.0
        self._maxima(members, np.zeros(len(members)), y0)

    def step(self, members, t0, y0, f0, t1, y1, f1, energy=None) -> None:
        """After an accepted step from (t0, y0) to (t1, y1); f are the derivatives ẏ there, and the
        speeds are the coordinates' rates (the batched path), so f's speed part is q̈."""
        for j, m in enumerate(self.flips):
            a1 = _angle(m, y1)
            new = np.isnan(self.flip_time[members, j]) & (np.abs(a1) >= math.pi)
            if np.any(new):
                k = np.flatnonzero(new)
                rates, accelerations = _sum(f0[k], m.chain), _sum(f1[k], m.chain)
                shift = [self.n_q + c for c in m.chain]
                self.flip_time[members[k], j] = hermite_crossing(
                    t0[k], t1[k], _angle(m, y0[k]), a1[k], rates, accelerations, math.pi * np.sign(a1[k]),
                    _sum(f0[k], shift), _sum(f1[k], shift))
        if self.wants_energy:
            T, V = energy(members, y1)
            drift = np.abs(T + V - self.E0[members]) / self.E_scale[members]
            self.energy_drift[members] = np.maximum(self.energy_drift[members], np.where(np.isfinite(drift), drift, np.inf))
        self._maxima(members, t1, y1)

    def _maxima(self, members, t, y) -> None:
        for j, m in enumerate(self.maxima):
            value = evaluate_expression(m, self.names, t, y)
            self.expr_max[members, j] = np.fmax(self.expr_max[members, j], value)

    # --- from a single run's samples -----------------------------------------------------------

    def from_samples(self, b: int, columns: list[str], rows: np.ndarray, relative_energy_drift) -> None:
        index = {c: i for i, c in enumerate(columns)}
        t = rows[:, 0]
        states = np.column_stack([rows[:, index[n]] if n in index else np.full(len(rows), np.nan) for n in self.names])
        if self.wants_energy and len(rows):
            self.energy_drift[b] = float(np.max(relative_energy_drift(rows[:, index["E"]])))
        if len(rows):
            self.constraint_drift[b] = float(np.max(rows[:, [index["drift_pos"], index["drift_vel"]]]))
        for j, m in enumerate(self.flips):
            q = _angle(m, states)
            past = np.flatnonzero(np.abs(q) >= math.pi)
            if not past.size:
                continue
            k = past[0]
            if k == 0:
                self.flip_time[b, j] = 0.0
                continue
            rates = [f"{self.names[c]}_dot" for c in m.chain]
            v = (np.sum([rows[:, index[r]] for r in rates], axis=0) if all(r in index for r in rates)
                 else np.full(len(rows), (q[k] - q[k - 1]) / (t[k] - t[k - 1])))
            self.flip_time[b, j] = hermite_crossing(t[k - 1:k], t[k:k + 1], q[k - 1:k], q[k:k + 1], v[k - 1:k], v[k:k + 1],
                                                    np.array([math.pi * np.sign(q[k])]))[0]
        for j, m in enumerate(self.maxima):
            if len(rows):
                self.expr_max[b, j] = float(np.nanmax(evaluate_expression(m, self.names, t, states), initial=-np.inf))

    # --- the columns ---------------------------------------------------------------------------

    def columns(self, t_final, y_final, ok, rhs_evals, wall_time) -> dict[str, np.ndarray]:
        """Output columns; `ok` marks members that reached t_end (others get NaN final values)."""
        out: dict[str, np.ndarray] = {}
        y = np.where(ok[:, None], y_final, np.nan)
        flips = {m.text: j for j, m in enumerate(self.flips)}
        maxima = {m.text: j for j, m in enumerate(self.maxima)}
        for m in self.measures:
            if m.kind == "final":
                for name in (m.arg,) if m.arg else self.names:
                    out[f"final:{name}"] = y[:, self.names.index(name)]
            elif m.kind in CROSSINGS:
                out[m.text] = self.flip_time[:, flips[m.text]]
            elif m.kind == "energy_drift":
                out[m.text] = self.energy_drift.copy()
            elif m.kind == "constraint_drift":
                out[m.text] = self.constraint_drift.copy()
            elif m.kind == "rhs_evals":
                out[m.text] = np.asarray(rhs_evals, dtype=np.int64)
            elif m.kind == "wall_time":
                out[m.text] = np.asarray(wall_time, dtype=float)
            elif m.kind == "end":
                out[m.text] = np.where(ok, evaluate_expression(m, self.names, t_final, np.nan_to_num(y_final)), np.nan)
            elif m.kind == "max":
                out[m.text] = np.where(np.isfinite(self.expr_max[:, maxima[m.text]]), self.expr_max[:, maxima[m.text]], np.nan)
        return out
