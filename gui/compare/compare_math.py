"""What compare mode computes from the runs (no widgets): the models to run, each method's own
settings, the difference between two runs and the largest drifts of one."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from eomlab.engine.methods import BAUMGARTE_DEFAULT
from eomlab.engine.model import Model, Stabilization
from eomlab.gui.style.method_styles import available_methods


@dataclass(frozen=True)
class RunSettings:
    """What one formulation may set for itself in compare mode."""

    integrator: str
    rtol: float
    atol: float
    stabilization: str

    @classmethod
    def of(cls, model: Model) -> RunSettings:
        s = model.settings
        return cls(s.integrator, s.rtol, s.atol, s.stabilization.kind)

    def applied_to(self, model: Model, method: str) -> Model:
        current = model.settings.stabilization
        if self.stabilization == current.kind:
            stabilization = current
        elif self.stabilization == "baumgarte":  # critically damped default, as the toolbar does
            stabilization = replace(current, kind="baumgarte",
                                    **{k: getattr(current, k) or v for k, v in BAUMGARTE_DEFAULT.items()})
        else:
            stabilization = Stabilization(kind=self.stabilization, tolerance=current.tolerance)
        return model.with_settings(method=method, integrator=self.integrator, rtol=self.rtol, atol=self.atol,
                                   stabilization=stabilization)


def run_models(model: Model, methods: list[str], own: dict[str, RunSettings] | None = None) -> list[Model]:
    """One model per formulation to run: the model's own method first, then the others in the
    engine's order; `own` overrides settings per method (None: the same for all)."""
    main = model.settings.method
    chosen = [main] + [m for m in available_methods() if m in methods and m != main]
    models = []
    for method in chosen:
        if own and method in own:
            models.append(own[method].applied_to(model, method))
        else:
            models.append(model if method == main else model.with_settings(method=method))
    return models


def coordinate_difference(reference: np.ndarray, other: np.ndarray, ref_q: list[int], other_q: list[int],
                          dt_out: float) -> tuple[np.ndarray, np.ndarray]:
    """(t, max_i |q_i − q_ref,i|) at the sample times both runs have.

    Samples fall on multiples of dt_out; matching them by that index (not by float equality) is
    robust to the last bits of t. `ref_q`/`other_q` are the columns of the same coordinates."""
    if not len(reference) or not len(other) or not ref_q:
        return np.zeros(0), np.zeros(0)
    k_ref = np.rint(reference[:, 0] / dt_out).astype(np.int64)
    k_other = np.rint(other[:, 0] / dt_out).astype(np.int64)
    common, i_ref, i_other = np.intersect1d(k_ref, k_other, assume_unique=False, return_indices=True)
    if not len(common):
        return np.zeros(0), np.zeros(0)
    diff = np.abs(reference[np.ix_(i_ref, ref_q)] - other[np.ix_(i_other, other_q)]).max(axis=1)
    return reference[i_ref, 0], diff


def largest_drifts(series, data: np.ndarray | None = None) -> tuple[float, float]:
    """(max relative energy drift, max |constraint residual|) of a run's samples (`data`, by
    default all it keeps); the drift is NaN where only forced stretches were run (non-conservative
    forces: their work and the drift cannot be told apart)."""
    data = series.buffer.view() if data is None else data
    if not len(data):
        return 0.0, 0.0
    energy, kinetic, potential = (series.column(data, c) for c in ("E", "T", "V"))
    if series.account.stretches:  # each stretch between edits from its own start (engine's account)
        drift = np.abs(series.account.balance(data[:, 0], energy)[1])
        drift_e = float(np.nanmax(drift)) if np.isfinite(drift).any() else float("nan")
    else:
        if series.energy_reference is not None:
            e0, scale = series.energy_reference
        else:
            e0, scale = energy[0], max(abs(energy[0]), kinetic[0] + abs(potential[0]), 1e-12)
        drift_e = float(np.max(np.abs(energy - e0)) / scale)
    residuals = [np.abs(series.column(data, c)) for c in ("drift_pos", "drift_vel")
                 if series.column(data, c) is not None]
    drift_c = float(max((r.max() for r in residuals), default=0.0))
    return drift_e, drift_c
