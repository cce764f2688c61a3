"""A headless run that speaks when it is slow and stops cleanly on Ctrl+C.

    watch = RunWatch(sys.stderr)
    rows = watch.run(sim, "model.eom.json: kane")   # all samples, also after Ctrl+C
    watch.interrupted                                # True once Ctrl+C stopped a run

The run advances in slices of wall time; once it has taken NOTICE_AFTER seconds and goes more than
SLOW_FACTOR times slower than real time, one line on the stream says what it is doing, where it is
and with what step size. Ctrl+C stops the run where it is: `sim.failure` says so and every sample
taken so far is kept.
"""
from __future__ import annotations

import sys
import time

import numpy as np

NOTICE_AFTER = 3.0  # wall seconds before a slow run is reported
SLOW_FACTOR = 10.0  # wall seconds per simulated second beyond which a run counts as slow
SLICE = 0.25  # wall seconds per call of advance(): how often the pace is looked at
INTERRUPTED = "interrupted (Ctrl+C)"


class RunWatch:
    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.interrupted = False

    def run(self, sim, label: str) -> np.ndarray:
        """Integrate `sim` to its t_end; its samples (all of them, also when stopped)."""
        start = time.perf_counter()
        spoke = False
        try:
            while not sim.finished:
                sim.advance(sim.settings.t_end, wall_budget=SLICE)
                wall = time.perf_counter() - start
                if not spoke and wall >= NOTICE_AFTER and wall > SLOW_FACTOR * sim.t:
                    print(f"{label}: {slow_notice(sim, wall)}", file=self.stream, flush=True)
                    spoke = True
        except KeyboardInterrupt:
            self.interrupted = True
            sim.failure = f"run stopped at t = {sim.t:.6g} s: {INTERRUPTED}"
        return sim.samples()


def slow_notice(sim, wall: float) -> str:
    """What a slow run is doing, where it is, its step size and pace, in one line."""
    t, t_end = sim.t, sim.settings.t_end
    st = sim.stepper
    step = st.t - st.t_old if st.t_old is not None else float("nan")
    if t > 0:
        factor = wall / t
        pace = f"{factor:,.0f}x slower than real time, about {_duration((t_end - t) * factor)} to go"
    else:
        pace = "no progress yet"
    return (f"slow run: integrating with {sim.settings.integrator} at t = {t:.6g} s of {t_end:g} s after "
            f"{wall:.0f} s, steps of {step:.3g} s ({pace}); Ctrl+C stops it and keeps the samples")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"
