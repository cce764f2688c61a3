"""A headless run that speaks when it is slow and stops cleanly on Ctrl+C.

    watch = RunWatch(sys.stderr)
    rows = watch.run(sim, "model.eom.json: kane")   # all samples, also after Ctrl+C
    watch.interrupted                                # True once Ctrl+C stopped a run

A watcher thread looks at the run's pace every CHECK_EVERY seconds; once the run has taken
NOTICE_AFTER seconds and goes more than SLOW_FACTOR times slower than real time, one line on the
stream says what it is doing, where it is and with what step size (a thread, because one step
may take long: a tiny dt_out makes a single step emit millions of samples). Ctrl+C stops the run
where it is: `sim.failure` says so and every sample taken so far is kept.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

import numpy as np

NOTICE_AFTER = 3.0  # wall seconds before a slow run is reported
SLOW_FACTOR = 10.0  # wall seconds per simulated second beyond which a run counts as slow
CHECK_EVERY = 0.25  # wall seconds between looks at the pace
INTERRUPTED = "interrupted (Ctrl+C)"


class RunWatch:
    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.interrupted = False

    def run(self, sim, label: str) -> np.ndarray:
        """Integrate `sim` to its t_end; its samples (all of them, also when stopped)."""
        with self.watching(sim, label):
            sim.advance(sim.settings.t_end)
        return sim.samples()

    @contextlib.contextmanager
    def watching(self, sim, label: str):
        """Watch `sim` while the block integrates it; Ctrl+C inside the block stops the run (the
        block ends, `sim.failure` says so, `interrupted` is set) instead of escaping."""
        done = threading.Event()
        watcher = threading.Thread(target=self._watch, args=(sim, label, done, time.perf_counter()), daemon=True)
        watcher.start()
        try:
            yield self
        except KeyboardInterrupt:
            self.interrupted = True
            sim.failure = f"run stopped at t = {_now(sim):.6g} s: {INTERRUPTED}"
        finally:
            done.set()
            watcher.join()

    def _watch(self, sim, label: str, done: threading.Event, start: float) -> None:
        while not done.wait(CHECK_EVERY):
            wall = time.perf_counter() - start
            if wall >= NOTICE_AFTER and wall > SLOW_FACTOR * _now(sim):
                print(f"{label}: {slow_notice(sim, wall)}", file=self.stream, flush=True)
                return


def _now(sim) -> float:
    return max(sim.t, sim.sampled_until)


def slow_notice(sim, wall: float) -> str:
    """What a slow run is doing, where it is, its step size and pace, in one line."""
    t, t_end = _now(sim), sim.settings.t_end
    st = sim.stepper
    t_old = st.t_old
    step = st.t - t_old if t_old is not None else float("nan")
    if t > 0:
        factor = wall / t
        pace = f"{factor:,.0f}x slower than real time, about {_duration((t_end - t) * factor)} to go"
    else:
        pace = "no progress yet"
    return (f"slow run: integrating with {sim.settings.integrator} at t = {t:.6g} s of {t_end:g} s after "
            f"{wall:.0f} s, steps of {step:.3g} s, a sample every {sim.settings.dt_out:g} s ({pace}); "
            "Ctrl+C stops it and keeps the samples")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"
