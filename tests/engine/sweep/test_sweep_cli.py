"""`eomlab sweep`: a table with a column per varied value and measure; bad input exits 2 with one line
and leaves nothing behind; an interrupted sweep finished with --resume equals an uninterrupted one."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from eomlab.cli import main
from eomlab.engine.sweep import sweep

from sweep_helpers import DOUBLE, ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _cli(*args):
    return [sys.executable, "-m", "eomlab", "sweep", *map(str, args)]


def test_the_table_has_a_column_per_varied_value_and_measure(tmp_path, capsys):
    out = tmp_path / "flips.parquet"
    code = main(["sweep", str(DOUBLE), "--vary", "upper_theta=-3.14:3.14:4", "--vary", "lower_theta=-3.14:3.14:3",
                 "--measure", "flip_time:lower_theta", "--measure", "max:lower_theta_dot**2", "--t-end", "1",
                 "-o", str(out), "--workers", "0", "--quiet"])
    assert code == 0
    table = pd.read_parquet(out).sort_values("run")
    assert list(table.columns) == ["run", "upper_theta", "lower_theta", "flip_time:lower_theta",
                                   "max:lower_theta_dot**2", "engine", "failure"]
    assert len(table) == 12 and sorted(table["run"]) == list(range(12))
    np.testing.assert_allclose(sorted(set(table["upper_theta"])), np.linspace(-3.14, 3.14, 4))
    assert os.path.exists(out / "_SUCCESS") and not os.path.exists(f"{out}.partial")
    assert "wrote" in capsys.readouterr().err


def test_sweep_file_and_python_api_agree(tmp_path):
    spec = {"model": str(DOUBLE), "vary": {"upper_theta": [0.5, 1.5], "method": ["kane", "lagrange"]},
            "measure": ["final:lower_theta", "rhs_evals"], "t_end": 0.5, "output": str(tmp_path / "a.parquet")}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    assert main(["sweep", str(path), "--workers", "0", "--quiet"]) == 0
    from_file = pd.read_parquet(tmp_path / "a.parquet").sort_values("run", ignore_index=True)
    from_api = sweep(DOUBLE, vary={"upper_theta": "0.5,1.5", "method": "kane,lagrange"},
                     measure=["final:lower_theta", "rhs_evals"], t_end=0.5, workers=0)
    pd.testing.assert_frame_equal(from_file, from_api, check_dtype=False)
    assert list(from_api["method"]) == ["kane", "lagrange", "kane", "lagrange"]


BAD = [
    (["--vary", "nosuch=0:1:3"], "--vary nosuch: not a coordinate"),
    (["--vary", "upper_theta=1:1:5"], "--vary upper_theta: empty range"),
    (["--vary", "upper_theta=0:1:0"], "--vary upper_theta: empty range"),
    (["--vary", "upper_theta=0:1:3", "--measure", "flip_time"], "flip_time needs an argument"),
    (["--vary", "upper_theta=0:1:3", "--measure", "speed_of_light"], "unknown measure"),
    (["--vary", "upper_theta=0:1:3", "--measure", "max:upper_theta +"], "--measure max:upper_theta +:"),
    (["--vary", "upper_theta=0:1:3", "--measure", "max:__import__('os')"], "--measure max:"),
    (["--vary", "upper_theta=0:1:100000", "--vary", "lower_theta=0:1:10000"], "1e+09 runs is too many"),
    (["--vary", "bodies[1].mass=-1:1:3"], "--vary bodies[1].mass:"),
    (["--vary", "bodies[7].mass=1:2:3"], "the model has no field"),
    (["--vary", "method=kane,hamilton"], "'hamilton' is not one of"),
]


@pytest.mark.parametrize("args, message", BAD)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "out.parquet"
    extra = [] if any(a.startswith("--measure") for a in args) else ["--measure", "final"]
    assert main(["sweep", str(DOUBLE), *args, *extra, "-o", str(out), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert os.listdir(tmp_path) == []


def test_unreachable_scheduler_exits_2_with_one_line(tmp_path):
    out = tmp_path / "out.parquet"
    proc = subprocess.run(_cli(DOUBLE, "--vary", "upper_theta=0:1:3", "--measure", "final", "-o", out,
                               "--scheduler", "tcp://127.0.0.1:9"), capture_output=True, text=True, env=ENV, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--scheduler: cannot reach tcp://127.0.0.1:9" in proc.stderr, proc.stderr
    assert os.listdir(tmp_path) == []


def test_interrupted_sweep_resumed_equals_uninterrupted(tmp_path):
    # 60 chunks: with the compiled kernels already in numba's cache the 600 runs take about 2 s, so that the
    # interrupt lands mid-sweep however late this process sees the third chunk (12 chunks once ended first)
    args = ["--vary", "upper_theta=-3:3:30", "--vary", "lower_theta=-3:3:20", "--measure", "final",
            "--measure", "flip_time:lower_theta", "--t-end", "2", "--chunk-size", "10", "--workers", "0", "--quiet"]
    out = tmp_path / "flips.parquet"
    partial = tmp_path / "flips.parquet.partial"
    # Ctrl+C's default action in the child, as at a terminal (a shell without job control hands SIGINT down ignored)
    proc = subprocess.Popen(_cli(DOUBLE, *args, "-o", out), env=ENV, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not (partial / "part-00002.parquet").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the sweep ended before it could be interrupted"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    status = proc.wait(60)
    assert status == 130, proc.stderr.read()[-3000:]  # (once 1, with a cold numba cache: say why if again)
    assert not out.exists(), "an interrupted sweep must not look finished"
    kept = sorted(f for f in os.listdir(partial) if f.startswith("part-"))
    assert 3 <= len(kept) < 60 and not any(f.endswith(".tmp") for f in os.listdir(partial))
    # without --resume the interrupted sweep is not overwritten by accident
    assert main(["sweep", str(DOUBLE), *args, "-o", str(out)]) == 2
    assert main(["sweep", str(DOUBLE), *args, "-o", str(out), "--resume"]) == 0
    resumed = pd.read_parquet(out).sort_values("run", ignore_index=True)
    whole = tmp_path / "whole.parquet"
    assert main(["sweep", str(DOUBLE), *args, "-o", str(whole)]) == 0
    uninterrupted = pd.read_parquet(whole).sort_values("run", ignore_index=True)
    pd.testing.assert_frame_equal(resumed, uninterrupted)
    assert len(resumed) == 600


def test_resume_refuses_a_different_sweep(tmp_path, capsys):
    out = tmp_path / "a.parquet"
    os.mkdir(f"{out}.partial")
    (tmp_path / "a.parquet.partial" / "_sweep.json").write_text(json.dumps({"fingerprint": "other", "chunk_size": 4}))
    assert main(["sweep", str(DOUBLE), "--vary", "upper_theta=0:1:3", "--measure", "final", "-o", str(out),
                 "--resume", "--workers", "0", "--quiet"]) == 2
    assert "is a different sweep" in capsys.readouterr().err


def test_plot_map_and_work_precision(tmp_path):
    picture = tmp_path / "map.png"
    assert main(["sweep", str(DOUBLE), "--vary", "upper_theta=-3:3:5", "--vary", "lower_theta=-3:3:4",
                 "--measure", "flip_time:lower_theta", "--t-end", "1", "-o", str(tmp_path / "m.parquet"),
                 "--workers", "0", "--quiet", "--plot", str(picture)]) == 0
    assert picture.stat().st_size > 10_000
    wp = tmp_path / "wp.png"
    assert main(["sweep", str(DOUBLE), "--vary", "tol=1e-5:1e-9:3", "--vary", "method=kane,lagrange",
                 "--measure", "energy_drift", "--measure", "rhs_evals", "--measure", "wall_time", "--t-end", "1",
                 "-o", str(tmp_path / "w.parquet"), "--workers", "0", "--quiet", "--plot", str(wp)]) == 0
    assert wp.stat().st_size > 10_000
