"""The energy balance of a run that was edited: the work W of non-conservative forces and the
drift E − E_s − (W − W_s) of the integration, per stretch between edits.

An edit that changes the model or the state (a parameter, a drag, a new state) starts a new
stretch from the state after it: the jump of E there is nobody's work, so W carries over and the
drift starts again from zero. Within a stretch where non-conservative forces act (damping,
efforts, loads, rheonomic rows; a pull's spring while it holds) the change of E is their work —
the balance has no other term to give it to, so the drift is not measured there (NaN). In a
stretch of a conservative model W stays constant and every change of E is drift.

    account = EnergyAccount()
    account.begin(0.0, E0, T0, V0, forced=False)
    account.begin(1.0, E1, T1, V1, forced=False, energy_before=E_before)  # gravity changed at 1 s
    W, drift = account.balance(t, E)      # drift relative to each stretch's energy scale
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: two stretches starting closer than this (s) are one (a drag while paused edits the same sample)
SAME_TIME = 1e-9


@dataclass(frozen=True)
class Stretch:
    t0: float  # the stretch holds the samples from t0 on (the sample at t0 is the state after the edit)
    e0: float  # E at t0
    scale: float  # of the relative drift: max(|E|, T + |V|) at t0, as Simulation.relative_energy_drift
    w0: float  # W at t0
    forced: bool  # non-conservative forces act: ΔE is their work


class EnergyAccount:
    """The stretches of one run (see the module docstring)."""

    def __init__(self):
        self.stretches: list[Stretch] = []
        #: changes whenever the stretches do (a cached curve computed with older ones is stale)
        self.version = 0

    def begin(self, t0: float, energy: float, kinetic: float, potential: float, forced: bool,
              energy_before: float | None = None) -> None:
        """A stretch from t0 (E, T, V of the state after the edit); `energy_before`: E of the last
        sample before the edit, which closes the stretch before (its work so far)."""
        last = self.stretches[-1] if self.stretches else None
        if last is not None and abs(t0 - last.t0) <= SAME_TIME:
            w0 = last.w0  # the same instant edited again: the stretch before it is closed already
            self.stretches.pop()
        elif last is not None:
            w0 = last.w0 + (energy_before - last.e0 if last.forced and energy_before is not None else 0.0)
        else:
            w0 = 0.0
        scale = max(abs(energy), kinetic + abs(potential), 1e-12)
        self.stretches.append(Stretch(float(t0), float(energy), float(scale), float(w0), bool(forced)))
        self.version += 1

    def drop_after(self, t: float) -> None:
        """Forget the stretches begun after t (the run went back to t)."""
        kept = [s for s in self.stretches if s.t0 <= t + SAME_TIME]
        if len(kept) != len(self.stretches):
            self.stretches = kept
            self.version += 1

    def balance(self, t: np.ndarray, energy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(W, relative drift) at the samples (t, E); NaN before the first stretch, and the drift
        NaN where non-conservative forces act."""
        t, energy = np.asarray(t, dtype=float), np.asarray(energy, dtype=float)
        work, drift = np.full(t.shape, np.nan), np.full(t.shape, np.nan)
        if not self.stretches:
            return work, drift
        t0, e0, scale, w0, forced = (np.array(v) for v in zip(*((s.t0, s.e0, s.scale, s.w0, s.forced)
                                                                  for s in self.stretches)))
        k = np.searchsorted(t0 - SAME_TIME, t, side="right") - 1
        on = k >= 0
        k = k[on]
        change = energy[on] - e0[k]
        work[on] = w0[k] + np.where(forced[k], change, 0.0)
        drift[on] = np.where(forced[k], np.nan, change / scale[k])
        return work, drift
