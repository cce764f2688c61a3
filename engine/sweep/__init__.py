"""Sweeps and ensembles: many runs of one model as one — batched where possible, on Dask when asked.

``sweep(...)`` (see `engine.sweep.sweep_function`) is the entry point; `spec` describes a sweep, `members`
makes its runs, `runner` runs a chunk (`planar` + `integrator`: the batched engine), `measures`
measures, `store` writes, `distribute` spreads chunks over processes or machines.
"""
from eomlab.engine.sweep.sweep_function import load_sweep_file, sweep

__all__ = ["sweep", "load_sweep_file"]
