"""Runs that go wrong keep their samples and say when and why; long runs keep memory bounded."""
from __future__ import annotations

import gc
import re
import time
from dataclasses import replace

import numpy as np
import psutil
import pytest

from eomlab.cli import main
from eomlab.engine.model import JointEffort
from eomlab.engine.modelfile import save_model
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from reliability_helpers import fingerprint


def _pendulum_with_effort(expression: str, **settings):
    model = preset("simple_pendulum")
    model = replace(model, forces=(JointEffort("drive", "bob", (expression,)),))
    return model.with_settings(**settings) if settings else model


def _stop_time(failure: str) -> float:
    return float(re.match(r"run stopped at t = ([0-9.e+-]+) s", failure).group(1))


def _assert_kept_until(rows: np.ndarray, t_stop: float, dt_out: float = 0.01):
    """Every sample up to the stop is kept, finite, on the dt_out grid."""
    assert np.all(np.isfinite(rows))
    assert np.allclose(rows[:, 0], np.arange(len(rows)) * dt_out, atol=1e-9)
    assert rows[-1, 0] <= t_stop + 1e-9 and rows[-1, 0] > t_stop - 2 * dt_out


def test_nan_in_the_equations_stops_the_run_naming_it_and_keeps_the_samples():
    sim = Simulation(_pendulum_with_effort("sqrt(0.3 - t)"), t_end=1.0)
    rows = sim.run()
    assert sim.failure is not None and "NaN or infinite" in sim.failure
    assert abs(_stop_time(sim.failure) - 0.3) < 1e-3
    _assert_kept_until(rows, 0.3)


def test_nan_in_the_state_with_a_fixed_step_stops_the_run():
    sim = Simulation(_pendulum_with_effort("sqrt(0.3 - t)"), integrator="RK4", dt=1e-3, t_end=1.0)
    rows = sim.run()
    assert sim.failure is not None and "the state became NaN or infinite" in sim.failure
    _assert_kept_until(rows, 0.3)


def test_infinite_growth_stops_as_a_blow_up():
    sim = Simulation(_pendulum_with_effort("exp(exp(10*t))"), integrator="RK4", dt=0.01, t_end=2.0)
    rows = sim.run()
    assert sim.failure is not None and "blew up" in sim.failure
    _assert_kept_until(rows, _stop_time(sim.failure))


def test_collapsing_step_size_stops_the_run_with_a_message():
    sim = Simulation(_pendulum_with_effort("tan(5*t)"), t_end=1.0)  # a pole at t = π/10
    rows = sim.run()
    assert sim.failure is not None and "step size collapsed" in sim.failure
    assert abs(_stop_time(sim.failure) - np.pi / 10) < 1e-3
    _assert_kept_until(rows, np.pi / 10)


def test_no_numpy_warnings_escape_a_failing_run(recwarn):
    sim = Simulation(_pendulum_with_effort("log(0.3 - t)"), t_end=1.0)
    sim.run()
    assert sim.failure is not None
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_cli_writes_every_kept_sample_of_a_failed_run_and_exits_1(tmp_path, capsys):
    model_path = tmp_path / "pole.eom.json"
    save_model(_pendulum_with_effort("tan(5*t)", t_end=1.0), model_path)
    before = fingerprint(model_path)
    out = tmp_path / "pole.csv"
    assert main(["run", str(model_path), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "step size collapsed" in err and "samples kept" in err
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    assert len(table) == 32 and abs(table[-1, 0] - 0.31) < 1e-9
    assert fingerprint(model_path) == before


def test_sample_cap_keeps_the_newest_samples_and_advance_returns_all_new_rows():
    model = preset("simple_pendulum")
    capped = Simulation(model, t_end=1.0, dt_out=0.01, max_samples=25)
    pieces = [capped.advance(t) for t in (0.3, 0.7, 1.0)]
    assert sum(len(p) for p in pieces) == 100  # every new row was handed out
    kept = capped.samples()
    assert len(kept) == 25 and abs(kept[-1, 0] - 1.0) < 1e-12 and abs(kept[0, 0] - 0.76) < 1e-9
    full = Simulation(model, t_end=1.0, dt_out=0.01).run()
    assert len(full) == 101  # no cap: the command line's runs keep everything
    assert np.allclose(full[-25:], kept)


def test_window_worker_runs_with_a_sample_cap(monkeypatch):
    import eomlab.gui.runs.run_thread as runner

    made = []

    class Recording(Simulation):
        def __init__(self, *args, **kwargs):
            made.append(kwargs.get("max_samples"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(runner, "Simulation", Recording)
    thread = runner.RunThread(preset("simple_pendulum").with_settings(t_end=0.05), speed=runner.AS_FAST_AS_POSSIBLE)
    thread.run()  # on this thread: the worker's body, without Qt's event loop
    assert made == [runner.WORKER_MAX_SAMPLES] and 0 < runner.WORKER_MAX_SAMPLES <= 10_000


def _resident_mb() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def _grow_run(steps: int, max_samples: int) -> tuple[float, float, Simulation]:
    """RK4 on the pendulum for `steps` steps, a sample every second step, advanced in pieces as
    the window's worker does; returns (growth in MB, seconds, the simulation)."""
    dt = 1e-4
    model = preset("simple_pendulum", theta0=1.0).with_settings(integrator="RK4", dt=dt, dt_out=2 * dt,
                                                                 t_end=steps * dt)
    sim = Simulation(model, method="lagrange", max_samples=max_samples)
    sim.advance(100 * dt)  # warm up: first allocations are not growth
    before, start = _resident_mb(), time.perf_counter()
    while not sim.finished:
        sim.advance(sim.t + 0.5)
    return _resident_mb() - before, time.perf_counter() - start, sim


def test_a_long_capped_run_keeps_resident_memory_flat():
    growth, seconds, sim = _grow_run(20_000, max_samples=1000)
    assert sim.failure is None and sim.stepper.steps >= 20_000
    assert len(sim.samples()) == 1000
    assert growth < 10, f"resident memory grew by {growth:.1f} MB over 2e4 steps ({seconds:.0f} s)"


@pytest.mark.slow
def test_a_million_steps_grow_resident_memory_by_less_than_50_mb():
    growth, seconds, sim = _grow_run(1_000_000, max_samples=1000)
    print(f"\n10^6 RK4 steps: {seconds:.0f} s, resident memory grew by {growth:.1f} MB")
    assert sim.failure is None and sim.stepper.steps >= 1_000_000
    assert growth < 50
