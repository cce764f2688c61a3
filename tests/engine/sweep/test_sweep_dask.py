"""A real Dask scheduler and two worker processes on loopback: a 400-run sweep through --scheduler
keeps all 400 results when one worker is killed mid-sweep."""
import os
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest

from eomlab.engine.sweep import sweep

from sweep_helpers import DOUBLE, ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
QUIET = dict(env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_workers(address: str, n: int) -> None:
    from dask.distributed import Client

    with Client(address, timeout="30s", set_as_default=False) as client:
        client.wait_for_workers(n, timeout=90)


@pytest.fixture
def cluster():
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                 "--port", str(port), "--no-dashboard"], **QUIET)]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the scheduler did not start"
                time.sleep(0.2)
        workers = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                     "--no-nanny", "--host", "127.0.0.1", "--no-dashboard"], **QUIET) for _ in range(2)]
        started += workers
        _wait_for_workers(address, 2)
        yield address, workers
    finally:
        for p in reversed(started):  # only the processes this test started, by their handles
            p.kill()
            p.wait(30)


def test_a_worker_killed_mid_sweep_loses_no_run(cluster, tmp_path):
    address, workers = cluster
    out = tmp_path / "flips.parquet"
    args = ["--vary", "upper_theta=-3:3:20", "--vary", "lower_theta=-3:3:20", "--measure", "final:lower_theta",
            "--measure", "flip_time:lower_theta", "--t-end", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "eomlab", "sweep", str(DOUBLE), *args, "--chunk-size", "25",
                             "--scheduler", address, "-o", str(out), "--quiet"], env=ENV, stderr=subprocess.PIPE, text=True)
    partial = tmp_path / "flips.parquet.partial"
    deadline = time.monotonic() + 180
    while not (partial.exists() and any(f.startswith("part-") for f in os.listdir(partial))):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "timeout"
        time.sleep(0.05)
    parts_before = len([f for f in os.listdir(partial) if f.startswith("part-")])
    workers[0].kill()  # no nanny: it does not come back; its chunk in flight must run on the other worker
    assert parts_before < 16
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    table = pd.read_parquet(out).sort_values("run", ignore_index=True)
    assert list(table["run"]) == list(range(400)) and set(table["failure"]) == {""}
    here = sweep(DOUBLE, vary=[a for a in args[1::2][:2]], measure=["final:lower_theta", "flip_time:lower_theta"],
                 t_end=1, workers=0, chunk_size=25)
    pd.testing.assert_frame_equal(table, here)
