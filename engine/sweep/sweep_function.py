"""``sweep(...)``: thousands of runs of one model as one call, and the JSON sweep file.

>>> from eomlab.engine.presets import preset
>>> table = sweep(preset("double_compound_pendulum"), vary={"upper_theta": "-3:3:3"},
...               measure=["final:upper_theta"], t_end=0.5, workers=0)
>>> list(table.columns)
['run', 'upper_theta', 'final:upper_theta', 'engine', 'failure']
"""
from __future__ import annotations

import json
import os
from typing import Callable

from eomlab.engine.model import Model, ModelError

from eomlab.engine.sweep.distribute import connect, default_chunk_size, execute, local_workers
from eomlab.engine.sweep.spec import MODES, Sweep, make_sweep
from eomlab.engine.sweep.store import MemoryStore, ParquetStore

SWEEP_FILE_FIELDS = ("model", "vary", "measure", "mode", "samples", "seed", "t_end", "output", "chunk_size")
MAX_SWEEP_FILE_BYTES = 1 << 20


def load_model_argument(model: Model | str) -> tuple[Model, str]:
    if isinstance(model, Model):
        return model, ""
    from eomlab.engine.modelfile import load_model

    return load_model(model), os.fspath(model)


def prepare(model: Model | str, vary, measure, mode: str = "grid", samples: int = 0, seed: int = 0,
            t_end: float | None = None) -> Sweep:
    """The checked sweep (raises ModelError naming the bad option)."""
    loaded, source = load_model_argument(model)
    measures = [measure] if isinstance(measure, str) else list(measure)
    return make_sweep(loaded, vary, measures, mode=mode, samples=samples, seed=seed, t_end=t_end, model_source=source)


def run_sweep(spec: Sweep, output: str | None = None, *, resume: bool = False, overwrite: bool = False,
              workers: int | None = None, scheduler: str | None = None, client=None, chunk_size: int | None = None,
              batched: bool = True, on_chunk: Callable | None = None, on_notes: Callable | None = None):
    """Run a prepared sweep; the table (pandas DataFrame, one row per run, in run order)."""
    with _client(scheduler, client) as active:
        n_workers = len(active.scheduler_info()["workers"]) if active is not None else local_workers(workers)
        size = chunk_size or default_chunk_size(spec.n_runs, n_workers)
        store = ParquetStore(output, spec, size, resume, overwrite) if output else MemoryStore()
        size = store.chunk_size or size
        notes = execute(spec, store, size, client=active, workers=workers, batched=batched, on_chunk=on_chunk)
        if on_notes is not None and notes:
            on_notes(notes)
        table = store.finish()
        table.attrs["notes"] = notes  # which runs fell back to single runs, and why
        return table


class _client:
    """The client to use: the caller's, one connected to `scheduler` (closed after), or None."""

    def __init__(self, scheduler, client):
        self.scheduler, self.client, self.own = scheduler, client, None

    def __enter__(self):
        if self.client is None and self.scheduler:
            self.own = connect(self.scheduler)
            return self.own
        return self.client

    def __exit__(self, *exc):
        if self.own is not None:
            self.own.close()


def sweep(model: Model | str, vary, measure, *, mode: str = "grid", samples: int = 0, seed: int = 0,
          t_end: float | None = None, output: str | None = None, resume: bool = False, overwrite: bool = False,
          workers: int | None = None, scheduler: str | None = None, client=None, chunk_size: int | None = None,
          batched: bool = True):
    """Run `model` once per combination of the varied values and measure each run.

    Parameters
    ----------
    model : Model or str
        The model, or its file.
    vary : dict or list of str
        ``{"upper_theta": "-3.14:3.14:200", "method": ["kane", "lagrange"]}`` or
        ``["upper_theta=-3.14:3.14:200", ...]`` (see `engine.sweep.spec`).
    measure : str or list of str
        ``final``, ``final:NAME``, ``flip_time:NAME``, ``over_top:NAME``, ``energy_drift``, ``constraint_drift``,
        ``rhs_evals``, ``wall_time``, ``end:EXPR``, ``max:EXPR`` (see `engine.sweep.measures`).
    mode, samples, seed : grid / list / random with `samples` draws from `seed`.
    t_end : simulated seconds per run (default: the model's).
    output : a Parquet dataset folder to write (chunk by chunk; see `engine.sweep.store`), or None.
    resume, overwrite : finish an interrupted sweep in `output`; replace an existing one.
    workers : 0 runs here in this process; N a LocalCluster of N processes (default: one per core).
    scheduler, client : a Dask scheduler's address, or a connected ``dask.distributed.Client``.
    batched : False runs every run singly (for comparison).

    Returns
    -------
    pandas.DataFrame
        One row per run: ``run``, a column per varied name and per measure (named as given),
        ``engine`` ("compiled", "batched" or "single") and ``failure`` ("" or why the run stopped early);
        ``table.attrs["notes"]`` says which runs fell back to single runs and why.
    """
    spec = prepare(model, vary, measure, mode, samples, seed, t_end)
    return run_sweep(spec, output, resume=resume, overwrite=overwrite, workers=workers, scheduler=scheduler,
                     client=client, chunk_size=chunk_size, batched=batched)


def load_sweep_file(path: str) -> dict:
    """A JSON sweep file as keyword arguments of `sweep` (the model path relative to the file)."""
    where = os.fspath(path)
    try:
        if os.path.getsize(where) > MAX_SWEEP_FILE_BYTES:
            raise ModelError(where, "file is too large for a sweep file")
        with open(where, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise ModelError(where, f"cannot read the file: {err.strerror or err}") from None
    except ValueError as err:
        raise ModelError(where, f"not JSON: {err}") from None
    if not isinstance(data, dict):
        raise ModelError(where, "a sweep file holds one JSON object")
    unknown = [k for k in data if k not in SWEEP_FILE_FIELDS]
    if unknown:
        raise ModelError(f"{where}: {unknown[0]}", f"unknown field (fields: {', '.join(SWEEP_FILE_FIELDS)})")
    for required in ("model", "vary", "measure"):
        if required not in data:
            raise ModelError(f"{where}: {required}", "missing")
    if not isinstance(data["vary"], dict):
        raise ModelError(f"{where}: vary", 'expected an object {"NAME": "A:B:N" or [values]}')
    if data.get("mode", "grid") not in MODES:
        raise ModelError(f"{where}: mode", f"one of {', '.join(MODES)}")
    model = data["model"]
    if not isinstance(model, str):
        raise ModelError(f"{where}: model", "expected the model file's path")
    data["model"] = os.path.join(os.path.dirname(os.path.abspath(where)), model)
    return data
