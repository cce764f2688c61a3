"""A real Dask scheduler and two worker processes on loopback: a 400-run sweep through --scheduler
keeps all 400 results when one worker is killed mid-sweep, and when besides the scheduler is
restarted (its workers close with it; new ones join, as a supervisor would start them)."""
import os
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest

from eomlab.engine.sweep import sweep
from eomlab.engine.sweep.sweep_function import prepare, run_sweep

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


def _scheduler(port: int) -> subprocess.Popen:
    """A scheduler process on `port`, once it accepts connections."""
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], **QUIET)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return scheduler
        except OSError:
            if scheduler.poll() is not None or time.monotonic() > deadline:
                scheduler.kill()
                raise AssertionError("the scheduler did not start") from None
            time.sleep(0.2)


def _workers(address: str, n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                              "--no-nanny", "--host", "127.0.0.1", "--no-dashboard"], **QUIET) for _ in range(n)]


@pytest.fixture
def cluster():
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [_scheduler(port)]
    try:
        workers = _workers(address, 2)
        started += workers
        _wait_for_workers(address, 2)
        yield address, workers, port, started
    finally:
        for p in reversed(started):  # only the processes this test started, by their handles
            p.kill()
            p.wait(30)


ARGS = ["--vary", "upper_theta=-3:3:20", "--vary", "lower_theta=-3:3:20", "--measure", "final:lower_theta",
        "--measure", "flip_time:lower_theta", "--t-end", "1"]


def _sweep_started(address, out):
    """`eomlab sweep` on the scheduler at `address`, once its first chunk is written."""
    proc = subprocess.Popen([sys.executable, "-m", "eomlab", "sweep", str(DOUBLE), *ARGS, "--chunk-size", "25",
                             "--scheduler", address, "-o", str(out), "--quiet"], env=ENV, stderr=subprocess.PIPE, text=True)
    partial = out.parent / (out.name + ".partial")
    deadline = time.monotonic() + 180
    while not (partial.exists() and any(f.startswith("part-") for f in os.listdir(partial))):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "timeout"
        time.sleep(0.05)
    return proc, len([f for f in os.listdir(partial) if f.startswith("part-")])


def _equals_the_sweep_run_here(proc, out):
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    table = pd.read_parquet(out).sort_values("run", ignore_index=True)
    assert list(table["run"]) == list(range(400)) and set(table["failure"]) == {""}
    here = sweep(DOUBLE, vary=ARGS[1:4:2], measure=["final:lower_theta", "flip_time:lower_theta"],
                 t_end=1, workers=0, chunk_size=25)
    pd.testing.assert_frame_equal(table, here)  # exactly: the same runs, the same numbers


def test_a_worker_killed_mid_sweep_loses_no_run(cluster, tmp_path):
    address, workers, _port, _started = cluster
    out = tmp_path / "flips.parquet"
    proc, parts_before = _sweep_started(address, out)
    workers[0].kill()  # no nanny: it does not come back; its chunk in flight must run on the other worker
    assert parts_before < 16
    _equals_the_sweep_run_here(proc, out)


@pytest.mark.slow
def test_a_sweep_outlives_a_worker_killed_mid_chunk_and_its_scheduler_restarted(cluster, tmp_path):
    address, workers, port, started = cluster
    out = tmp_path / "flips.parquet"
    proc, parts_before = _sweep_started(address, out)
    workers[0].kill()  # mid-chunk
    started[0].kill()  # the scheduler; the other worker closes with it
    started[0].wait(30)
    assert parts_before < 16
    started.append(_scheduler(port))  # restarted on its address, and workers as a supervisor would start them
    started += _workers(address, 2)
    _equals_the_sweep_run_here(proc, out)


def test_a_sweep_outlives_its_scheduler_restarted(tmp_path):
    """In-process (threads): the scheduler closed after the first chunk came back and another started
    on its port; the chunks not yet delivered run again there, and the table equals the clean one."""
    from dask.distributed import Client, LocalCluster

    from sweep_helpers import five_link_chain

    port = _free_port()
    options = dict(n_workers=1, threads_per_worker=1, processes=False, scheduler_port=port, dashboard_address=None)
    clusters = [LocalCluster(**options)]
    restarted = []

    def restart_after_the_first_chunk(k, columns, notes):
        if not restarted:
            restarted.append(k)
            clusters[0].close()
            clusters.append(LocalCluster(**options))

    vary, measure = {"link1_theta": "-1:1:32"}, ["final:link5_theta"]
    try:
        with Client(f"tcp://127.0.0.1:{port}", timeout="5s", set_as_default=False) as client:
            table = run_sweep(prepare(five_link_chain(), vary, measure, t_end=0.3), client=client, chunk_size=4,
                              on_chunk=restart_after_the_first_chunk)
    finally:
        for cluster in clusters:
            cluster.close()
    assert restarted
    clean = sweep(five_link_chain(), vary=vary, measure=measure, t_end=0.3, workers=0, chunk_size=4)
    pd.testing.assert_frame_equal(table, clean)
