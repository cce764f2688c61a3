"""Long runs speak: a headless run far slower than real time says so once on standard error (what
it is doing, t, the step size), and Ctrl+C stops it with every sample kept."""
from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time

import numpy as np

from eomlab.commands import run_watch
from eomlab.commands.run_watch import RunWatch
from eomlab.engine.modelfile import loads_model
from eomlab.engine.simulation import Simulation

from reliability_helpers import ROOT, asset_dict, write_model

# gravity within the range check but 1e11 times Earth's: ω ≈ 1e6 rad/s, steps of ~1e-7 s
STIFF_GRAVITY = [0.0, -9.81e11, 0.0]


def _stiff_pendulum() -> dict:
    data = asset_dict("simple_pendulum")
    data["gravity"] = STIFF_GRAVITY
    return data


def _interrupted_after(sim, seconds: float):
    """Press Ctrl+C (as Python raises it) `seconds` into the run, from the sampling path."""
    start = time.perf_counter()
    sample = sim._sample

    def sample_then_ctrl_c(t, y):
        if time.perf_counter() - start > seconds:
            raise KeyboardInterrupt
        return sample(t, y)

    sim._sample = sample_then_ctrl_c


def test_a_slow_run_says_so_once_and_ctrl_c_keeps_its_samples(monkeypatch):
    monkeypatch.setattr(run_watch, "NOTICE_AFTER", 0.3)
    monkeypatch.setattr(run_watch, "CHECK_EVERY", 0.05)
    sim = Simulation(loads_model(json.dumps(_stiff_pendulum())), t_end=0.05, dt_out=1e-6)
    _interrupted_after(sim, 1.0)
    stream = io.StringIO()
    watch = RunWatch(stream)
    rows = watch.run(sim, "stiff.eom.json: kane")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stiff.eom.json: kane: slow run: integrating with DOP853 at t = ")
    assert "steps of " in lines[0] and "slower than real time" in lines[0] and "Ctrl+C" in lines[0]
    step = float(lines[0].split("steps of ")[1].split(" s")[0])
    assert 1e-9 < step < 1e-5  # ω ≈ 1e6 rad/s
    assert watch.interrupted and sim.failure.endswith("interrupted (Ctrl+C)")
    assert sim.failure.startswith(f"run stopped at t = {max(sim.t, sim.sampled_until):.6g} s")
    assert len(rows) >= 2 and np.all(np.isfinite(rows)) and rows[-1, 0] == sim.sampled_until


def test_a_run_lost_in_one_step_of_millions_of_samples_speaks_too(monkeypatch):
    """The fuzzer found it: dt_out = 1e-8 makes one step emit 5e6 samples; t only moves per step."""
    monkeypatch.setattr(run_watch, "NOTICE_AFTER", 0.3)
    monkeypatch.setattr(run_watch, "CHECK_EVERY", 0.05)
    sim = Simulation(loads_model(json.dumps(asset_dict("rigid_body_fixed_point"))), t_end=0.05, dt_out=1e-8)
    _interrupted_after(sim, 1.0)
    stream = io.StringIO()
    rows = RunWatch(stream).run(sim, "body")
    assert "slow run" in stream.getvalue() and "a sample every 1e-08 s" in stream.getvalue()
    assert sim.t == 0.0 < sim.sampled_until and len(rows) > 10
    assert sim.failure == f"run stopped at t = {rows[-1, 0]:.6g} s: interrupted (Ctrl+C)"


def test_a_quick_run_says_nothing():
    stream = io.StringIO()
    sim = Simulation(loads_model(json.dumps(asset_dict("simple_pendulum"))), t_end=0.5)
    rows = RunWatch(stream).run(sim, "pendulum")
    assert stream.getvalue() == "" and sim.failure is None and rows[-1, 0] == 0.5


def interruptible() -> None:
    """In the child before it starts: Ctrl+C's default action, as at a terminal (a suite started in the background
    by a shell without job control hands SIGINT down ignored, and Python then never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_on_the_real_command_writes_the_samples_and_exits_130(tmp_path):
    path = write_model(tmp_path, _stiff_pendulum(), "stiff.eom.json")
    out = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-m", "eomlab", "run", str(path), "--t-end", "0.05", "--dt-out", "1e-6",
                             "--out", str(out)], stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=interruptible)
    try:
        notice = proc.stderr.readline()  # NOTICE_AFTER (3 s) into the run
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()
    assert "stiff.eom.json: kane: slow run: integrating with DOP853 at t = " in notice
    lines = rest.splitlines()
    assert len(lines) == 1 and "interrupted (Ctrl+C)" in lines[0] and "samples kept" in lines[0], rest
    kept = int(lines[0].split("(")[-1].split(" samples")[0])
    csv = out.read_text().splitlines()
    assert csv[0].startswith("t,bob_theta,") and len(csv) == kept + 1 and kept >= 1
