"""The Python API: load or build a model, simulate it, read the samples by column name.

>>> import eomlab
>>> model = eomlab.preset("simple_pendulum", theta0=0.1)
>>> result = eomlab.simulate(model, t_end=1.0, dt_out=0.1)
>>> result.columns[:3]
['t', 'bob_theta', 'bob_theta_dot']
>>> len(result), round(float(result["bob_theta"][-1]), 4)
(11, -0.1)

The options are the command line's (`eomlab run`): `method`, `coordinates`, `integrator`, `t_end`,
`dt_out`, `rtol`, `atol`, `dt` (RK4's step) and `maggi_basis`; each defaults to the model's setting.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from eomlab.engine.model import Model, ModelError

#: seconds of computing between two batches of a stream (and progress reports of `eomlab run`)
BATCH_WALL_TIME = 0.25


def load(path: str | os.PathLike) -> Model:
    """The model in a ``*.eom.json`` file; a bad file raises ModelError naming the field.

    >>> import eomlab, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "pendulum.eom.json")
    >>> eomlab.save(eomlab.preset("simple_pendulum"), path)
    >>> eomlab.load(path).bodies[0].name
    'bob'
    """
    from eomlab.engine.modelfile import load_model

    return load_model(path)


def save(model: Model, path: str | os.PathLike) -> None:
    """Write `model` as a ``*.eom.json`` file (atomically)."""
    from eomlab.engine.modelfile import save_model

    save_model(model, path)


def preset(name: str, **params) -> Model:
    """A built-in model with optional parameters; `presets()` lists the names.

    >>> import eomlab
    >>> [b.name for b in eomlab.preset("planar_chain", n=2).bodies]
    ['link1', 'link2']
    """
    from eomlab.engine.presets import preset as build

    return build(name, **params)


def presets() -> list[str]:
    """The names of the built-in models."""
    from eomlab.engine.presets import PRESETS

    return list(PRESETS)


def checked(model: Model | str | os.PathLike) -> Model:
    """A model as the loader would give it: validated, default coordinate names filled in.

    A path is loaded; a model built in code goes through the file format's checks, so it fails
    with the same one-line ModelError as a bad file would.
    """
    if isinstance(model, (str, os.PathLike)):
        return load(model)
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    return model_from_dict(model_to_dict(model))


@dataclass
class Batch:
    """Consecutive samples of a run: `rows` (one per sample) under `columns`; ``batch["E"]`` is a column."""

    columns: list[str]
    rows: np.ndarray

    def __getitem__(self, name: str) -> np.ndarray:
        return self.rows[:, _column_index(self.columns, name)]

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def t(self) -> np.ndarray:
        return self.rows[:, 0]


def _column_index(columns: list[str], name: str) -> int:
    try:
        return columns.index(name)
    except ValueError:
        raise KeyError(f"no column {name!r}; columns: {', '.join(columns)}") from None


class Run:
    """A simulation in progress, iterated as batches of samples (`Batch`), memory bounded.

    After the iteration `failure` is None or says when and why the run stopped (the samples up to
    then were all yielded); `notes` lists what was adjusted at the start; `stats` has the cost.

    >>> import eomlab
    >>> run = eomlab.stream(eomlab.preset("simple_pendulum"), t_end=2.0, dt_out=0.01)
    >>> sum(len(batch) for batch in run), run.failure
    (201, None)
    """

    def __init__(self, model, *, method=None, coordinates=None, integrator=None, t_end=None, dt_out=None,
                 rtol=None, atol=None, dt=None, maggi_basis=None, q0=None, u0=None,
                 batch_wall_time: float = BATCH_WALL_TIME):
        from eomlab.engine.simulation import Simulation
        from eomlab.mechanics_api import with_initial_state

        self.model = checked(model) if q0 is None and u0 is None else with_initial_state(model, q0, u0)
        # max_samples: the simulation keeps only the newest samples, the batches carry the rest away
        self.simulation = Simulation(self.model, method=method, coordinates=coordinates, integrator=integrator,
                                     t_end=t_end, dt_out=dt_out, rtol=rtol, atol=atol, dt=dt,
                                     variant=maggi_basis, max_samples=2)
        self.batch_wall_time = batch_wall_time
        self._started = False

    @property
    def columns(self) -> list[str]:
        return list(self.simulation.columns)

    @property
    def settings(self):
        return self.simulation.settings

    @property
    def method(self) -> str:
        return self.simulation.settings.method

    @property
    def t(self) -> float:
        """Simulated time reached."""
        return self.simulation.t

    @property
    def t_end(self) -> float:
        return self.simulation.settings.t_end

    @property
    def failure(self) -> str | None:
        return self.simulation.failure

    @property
    def notes(self) -> list[str]:
        return list(self.simulation.notes)

    @property
    def stats(self) -> dict:
        """Cost: `rhs_evals` (derivative evaluations by the integrator), `sample_evals`, `steps`,
        `wall_time` (s of integration), and more."""
        return self.simulation.stats

    def __iter__(self) -> Iterator[Batch]:
        if self._started:
            raise RuntimeError("a Run can be iterated once")
        self._started = True
        sim = self.simulation
        yield Batch(self.columns, sim.samples()[:1].copy())  # the sample at t = 0
        while not sim.finished:
            rows = sim.advance(sim.settings.t_end, wall_budget=self.batch_wall_time)
            if len(rows):
                yield Batch(self.columns, rows)


def stream(model, **options) -> Run:
    """A run of `model` to iterate as batches of samples: for long runs, memory stays bounded.
    The options are `simulate`'s."""
    return Run(model, **options)


@dataclass
class Result:
    """A finished run: ``result["bob_theta"]`` is a column (numpy array), `result.t` the times.

    `failure` is None, or when and why the run stopped (the samples up to then are kept);
    `rhs_evals` and `wall_time` are the cost, `stats` has more.
    """

    columns: list[str]
    data: np.ndarray
    method: str
    coordinates: str  # the coordinate choice ("joint" or "absolute"); also `coordinates_used`
    failure: str | None = None
    notes: list[str] = field(default_factory=list)
    stats: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[:, _column_index(self.columns, name)]

    def __contains__(self, name: str) -> bool:
        return name in self.columns

    def __len__(self) -> int:
        return len(self.data)

    @property
    def t(self) -> np.ndarray:
        return self.data[:, 0]

    @property
    def coordinates_used(self) -> str:
        """The coordinate choice the run integrated in: "joint" or "absolute" (also `coordinates`)."""
        return self.coordinates

    @property
    def coordinate_names(self) -> list[str]:
        """The joint coordinates' columns (the model's `coordinate_names`), in either coordinate choice."""
        return list(self.stats.get("coordinate_names", ()))

    @property
    def rhs_evals(self) -> int:
        return int(self.stats.get("rhs_evals", 0))

    @property
    def wall_time(self) -> float:
        return float(self.stats.get("wall_time", 0.0))

    def to_pandas(self):
        """The samples as a pandas DataFrame indexed by `t`, one column per other name (pandas is optional).

        >>> import eomlab
        >>> frame = eomlab.simulate(eomlab.preset("simple_pendulum"), t_end=0.1).to_pandas()
        >>> frame.shape, frame.index.name, list(frame.columns[:2])
        ((11, 10), 't', ['bob_theta', 'bob_theta_dot'])
        """
        try:
            import pandas
        except ImportError:
            raise ImportError("Result.to_pandas() needs pandas: pip install pandas "
                              "(result.columns and result[name] work without it)") from None
        return pandas.DataFrame(self.data[:, 1:], columns=self.columns[1:],
                                index=pandas.Index(self.data[:, 0], name=self.columns[0]))

    def __repr__(self) -> str:
        status = "finished" if self.failure is None else f"failed: {self.failure}"
        return (f"<Result {self.method}, {self.coordinates} coordinates, {len(self)} samples × "
                f"{len(self.columns)} columns, {status}>")


def simulate(model, *, method=None, coordinates=None, integrator=None, t_end=None, dt_out=None, rtol=None,
             atol=None, dt=None, maggi_basis=None, q0=None, u0=None, stream: bool = False):
    """Integrate `model` (a Model, or a path to a model file) and return a `Result`.

    Options override the model's settings, as `eomlab run`'s do: `method` (one of
    `eomlab.engine.methods.METHODS`: 'lagrange', 'maggi', 'udwadia_kalaba', 'kane', 'gibbs_appell'), `coordinates` ('joint', 'absolute'), `integrator` ('DOP853', 'RK45',
    'Radau', 'BDF', 'LSODA', 'RK4'), `t_end`, `dt_out`, `rtol`, `atol`, `dt` (RK4's step),
    `maggi_basis`. `q0` and `u0` set the initial state: a vector over `model.coordinate_names`
    (`model.speed_names`) or a dict by name, the others keeping the model's. With ``stream=True`` it
    returns a `Run` to iterate in batches instead.
    Bad input raises ModelError (one line, naming the field); a run that blows up returns the
    samples it had with `failure` set.

    >>> import eomlab
    >>> r = eomlab.simulate(eomlab.preset("double_compound_pendulum"), method="lagrange", t_end=1.0)
    >>> r.failure is None, r.rhs_evals > 0, float(abs(r["E"] - r["E"][0]).max()) < 1e-7
    (True, True, True)
    >>> r = eomlab.simulate(eomlab.preset("simple_pendulum"), q0={"bob_theta": 0.5}, u0=[1.0], t_end=0.1)
    >>> float(r["bob_theta"][0]), float(r["bob_theta_dot"][0]), r.coordinates_used
    (0.5, 1.0, 'joint')
    """
    run = Run(model, method=method, coordinates=coordinates, integrator=integrator, t_end=t_end, dt_out=dt_out,
              rtol=rtol, atol=atol, dt=dt, maggi_basis=maggi_basis, q0=q0, u0=u0)
    if stream:
        return run
    started = time.perf_counter()
    batches = [batch.rows for batch in run]
    stats = dict(run.stats, total_wall_time=time.perf_counter() - started,
                 coordinate_names=list(run.model.coordinate_names))
    return Result(run.columns, np.concatenate(batches), run.method, run.settings.coordinates, run.failure,
                  run.notes, stats)


def equations(model, method: str | None = None, fmt: str | None = None):
    """The equations of motion of `model` in formulation `method`, derived with sympy.

    Without `fmt`: an object with sympy matrices `mass_matrix` and `forcing` (mass_matrix ·
    accelerations = forcing), `coordinates`, `speeds`, and the constrained form in `sections`.
    With `fmt` 'text', 'latex' or 'json': the same as `eomlab equations` prints.

    >>> import eomlab
    >>> eq = eomlab.equations(eomlab.preset("simple_pendulum"), "lagrange")
    >>> eq.coordinates, eq.mass_matrix.shape
    (['bob_theta'], (1, 1))
    """
    model = checked(model)
    if fmt is not None:
        from eomlab.engine.symbolic import equations_text

        return equations_text(model, method, fmt=fmt)
    from eomlab.engine.symbolic.derive import derive

    return derive(model, method)


__all__ = ["load", "save", "preset", "presets", "checked", "simulate", "stream", "equations", "Result", "Run",
           "Batch", "ModelError"]
