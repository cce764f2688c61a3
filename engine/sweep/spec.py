"""A sweep: one model, the things that vary, how they combine, and what to measure per run.

Things that vary, by name:

* an initial coordinate or speed (``upper_theta``, ``upper_theta_dot``, ``body_wx``),
* a numeric field of the model, by its path as error messages write it (``bodies[1].mass``,
  ``gravity[1]``, ``forces[0].stiffness``; a vector path such as ``gravity`` given one number
  sets the vector's length and keeps its direction),
* a setting: ``method`` (alias ``formulation``), ``coordinates``, ``integrator``, ``rtol``, ``atol``,
  ``tol`` (rtol = atol).

Values: ``A:B:N`` is N evenly spaced values from A to B (tolerances: spaced evenly in their
logarithm), ``A,B,C`` a list, and in random mode ``A:B`` a uniform range. Modes: ``grid`` (every
combination), ``list`` (the i-th value of each, all lists of one length; a single value goes with
every run) and ``random`` (`samples` draws with `seed`). Bad input raises ModelError whose path names
the option (``--vary lower_theta``).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.methods import METHODS
from eomlab.engine.model import COORDINATES, INTEGRATORS, Model, ModelError, speed_names

from eomlab.engine.sweep.measures import Measure, parse_measure

MAX_RUNS = 10**7  # a sweep beyond this would not finish on any machine here (and fills the disk)
MODES = ("grid", "list", "random")
METHOD_NAMES = ("method", "formulation")
CHOICE_SETTINGS = {"coordinates": COORDINATES, "integrator": INTEGRATORS}
TOLERANCE_NAMES = ("rtol", "atol", "tol")
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])*(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])*)*\Z")


@dataclass(frozen=True)
class Vary:
    """One varied name and its values (random mode: the range low, high)."""

    name: str
    kind: str  # "q", "u", "param", "setting"
    values: tuple
    index: int = -1  # coordinate or speed index for q and u


@dataclass(frozen=True)
class Sweep:
    model: Model
    varies: tuple[Vary, ...]
    measures: tuple[Measure, ...]
    mode: str = "grid"
    samples: int = 0
    seed: int = 0
    t_end: float = 10.0
    model_source: str = ""
    columns: tuple[str, ...] = field(default=())  # every output column, in order

    @property
    def n_runs(self) -> int:
        return count_runs(self.varies, self.mode, self.samples)

    def run_table(self, start: int = 0, stop: int | None = None) -> dict[str, np.ndarray]:
        """The varied values of runs start … stop−1, one array per varied name."""
        stop = self.n_runs if stop is None else min(stop, self.n_runs)
        index = np.arange(start, stop)
        table = {"run": index}
        if self.mode == "grid":
            sizes = [len(v.values) for v in self.varies]
            positions = np.unravel_index(index, sizes) if sizes else ()
            for v, pos in zip(self.varies, positions):
                table[v.name] = np.asarray(v.values, dtype=float if _numeric(v) else object)[pos]
        elif self.mode == "list":
            for v in self.varies:  # a single value goes with every run
                values = np.asarray(v.values, dtype=float if _numeric(v) else object)
                table[v.name] = values[index] if len(values) > 1 else np.repeat(values, len(index))
        else:
            draws = np.random.default_rng(self.seed).random((self.n_runs, len(self.varies)))[index]
            for j, v in enumerate(self.varies):
                low, high = v.values
                table[v.name] = _from_unit(v, low, high, draws[:, j])
        return table

    def fingerprint(self) -> str:
        """Equal for the same sweep: a resumed sweep must be the interrupted one."""
        from eomlab.engine.modelfile import model_to_dict

        text = json.dumps({"model": model_to_dict(self.model), "vary": [(v.name, list(map(str, v.values))) for v in self.varies],
                           "measures": [m.text for m in self.measures], "mode": self.mode, "samples": self.samples,
                           "seed": self.seed, "t_end": self.t_end}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _numeric(v: Vary) -> bool:
    return v.kind != "setting" or v.name in TOLERANCE_NAMES


def _from_unit(v: Vary, low: float, high: float, u: np.ndarray) -> np.ndarray:
    if v.name in TOLERANCE_NAMES:  # tolerances: uniform in the logarithm
        return np.exp(math.log(low) + u * (math.log(high) - math.log(low)))
    return low + u * (high - low)


def count_runs(varies, mode: str, samples: int) -> int:
    if mode == "random":
        return samples
    if mode == "list":
        return max((len(v.values) for v in varies), default=1)
    return math.prod(len(v.values) for v in varies)


# --- parsing -----------------------------------------------------------------------------------


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ModelError(where, f"expected a number, got {text.strip()!r}") from None
    if not math.isfinite(value):
        raise ModelError(where, f"expected a finite number, got {text.strip()!r}")
    return value


def classify(model: Model, name: str) -> tuple[str, int]:
    """What `name` varies in `model`: ("q", i), ("u", i), ("setting", -1) or ("param", -1)."""
    coordinates = model.coordinate_names
    speeds = tuple(s for b in model.bodies for s in speed_names(b.name, b.joint))
    if name in coordinates:
        return "q", coordinates.index(name)
    if name in speeds:
        return "u", speeds.index(name)
    if name in METHOD_NAMES or name in CHOICE_SETTINGS or name in TOLERANCE_NAMES:
        return "setting", -1
    if _PATH.match(name) and ("." in name or "[" in name or name == "gravity"):
        return "param", -1
    known = ", ".join([*coordinates, *speeds][:8])
    raise ModelError(f"--vary {name}", f"not a coordinate, speed, setting or model field (coordinates and speeds: {known})")


def parse_values(model: Model, name: str, text: str, mode: str) -> Vary:
    """``A:B:N``, ``A,B,C`` or (random) ``A:B`` for `name` in `model`."""
    where = f"--vary {name}"
    kind, index = classify(model, name)
    text = str(text).strip()
    if not text:
        raise ModelError(where, "no values (write A:B:N, A,B,C or, for random sampling, A:B)")
    if kind == "setting" and name not in TOLERANCE_NAMES:
        options = METHODS if name in METHOD_NAMES else CHOICE_SETTINGS[name]
        values = tuple(v.strip() for v in text.split(","))
        for v in values:
            if v not in options:
                raise ModelError(where, f"{v!r} is not one of {', '.join(options)}")
        if mode == "random":
            raise ModelError(where, "random sampling draws numbers; vary choices in grid or list mode")
        return Vary("method" if name in METHOD_NAMES else name, kind, values)
    log = name in TOLERANCE_NAMES
    if mode == "random":
        parts = text.split(":")
        if len(parts) != 2:
            raise ModelError(where, f"random sampling needs a range A:B, got {text!r}")
        low, high = (_number(p, where) for p in parts)
        if not high > low:
            raise ModelError(where, f"empty range {text!r}: B must exceed A")
        if log and low <= 0:
            raise ModelError(where, "tolerances must be positive")
        return Vary(name, kind, (low, high), index)
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ModelError(where, f"expected A:B:N, got {text!r}")
        low, high = _number(parts[0], where), _number(parts[1], where)
        try:
            n = int(parts[2])
        except ValueError:
            raise ModelError(where, f"N in A:B:N must be a whole number, got {parts[2]!r}") from None
        if n < 1:
            raise ModelError(where, f"empty range {text!r}: N must be at least 1")
        if n > 1 and low == high:
            raise ModelError(where, f"empty range {text!r}: A equals B")
        if n > MAX_RUNS:
            raise ModelError(where, f"{n} values is too many (at most {MAX_RUNS:.0e} runs in a sweep)")
        if log:
            if low <= 0 or high <= 0:
                raise ModelError(where, "tolerances must be positive")
            values = np.geomspace(low, high, n)
        else:
            values = np.linspace(low, high, n)
        return Vary(name, kind, tuple(float(v) for v in values), index)
    values = tuple(_number(p, where) for p in text.split(","))
    if log and min(values) <= 0:
        raise ModelError(where, "tolerances must be positive")
    return Vary(name, kind, values, index)


def make_sweep(model: Model, vary: dict | list, measures: list[str], mode: str = "grid", samples: int = 0,
               seed: int = 0, t_end: float | None = None, model_source: str = "") -> Sweep:
    """Check and build a Sweep; `vary` maps names to value texts (or is a list of "NAME=VALUES")."""
    if mode not in MODES:
        raise ModelError("--mode", f"{mode!r} is not one of {', '.join(MODES)}")
    pairs = _vary_pairs(vary)
    varies = tuple(parse_values(model, name, values, mode) for name, values in pairs)
    names = [v.name for v in varies]
    if len(set(names)) != len(names):
        raise ModelError("--vary", f"a name is varied twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
    if mode == "random" and samples < 1:
        raise ModelError("--samples", "random sampling needs the number of samples (at least 1)")
    if mode == "list" and len({len(v.values) for v in varies if len(v.values) > 1}) > 1:
        raise ModelError("--vary", "list mode takes the i-th value of every list: give lists of one length (or one value)")
    n = count_runs(varies, mode, samples)
    if n > MAX_RUNS:
        raise ModelError("--vary", f"{n:.3g} runs is too many (at most {MAX_RUNS:.0e} in one sweep)")
    t_end = model.settings.t_end if t_end is None else float(t_end)
    if not (math.isfinite(t_end) and t_end > 0):
        raise ModelError("--t-end", f"must be a positive number, got {t_end!r}")
    if not measures:
        raise ModelError("--measure", "nothing to measure (e.g. --measure final, --measure flip_time:NAME)")
    parsed = tuple(parse_measure(model, m) for m in measures)
    texts = [m.text for m in parsed]
    if len(set(texts)) != len(texts):
        raise ModelError("--measure", "a measure is given twice")
    sweep = Sweep(model=model, varies=varies, measures=parsed, mode=mode, samples=samples, seed=seed, t_end=t_end,
                  model_source=model_source)
    from eomlab.engine.sweep.members import check_parameters, output_columns

    check_parameters(sweep)
    return Sweep(**{**sweep.__dict__, "columns": tuple(output_columns(sweep))})


def _vary_pairs(vary) -> list[tuple[str, str]]:
    if isinstance(vary, dict):
        return [(str(k), ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)) for k, v in vary.items()]
    pairs = []
    for item in vary:
        name, sep, values = str(item).partition("=")
        if not sep or not name.strip():
            raise ModelError("--vary", f"expected NAME=VALUES, got {item!r}")
        pairs.append((name.strip(), values))
    return pairs
