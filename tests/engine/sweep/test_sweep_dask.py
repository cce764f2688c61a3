"""A real Dask scheduler and two worker processes on loopback: a 60-run sweep through --scheduler
keeps all 60 results when the worker running a chunk is killed mid-sweep, and when besides the scheduler is
restarted (its workers close with it; new ones join, as a supervisor would start them)."""
import os
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest

from eomlab.engine.compiled.tree_backend import fast_path_wanted
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


#: 60 runs in 15 chunks of 4, about 0.2–0.6 s of work each: a worker is still running one when the first part is
#: written (400 runs of 1 s in 16 chunks of 25 had all ended by then once the kernels were compiled beforehand).
#: A run of 300 s takes 56 ms on the compiled path; on the numpy path (EOMLAB_FAST_PATH=0) 4.5 s, so there 10 s
#: (0.15 s): 300 s runs made the sweep outlast the test's timeout
T_END = 300 if fast_path_wanted() else 10
ARGS = ["--vary", "upper_theta=-3:3:10", "--vary", "lower_theta=-3:3:6", "--measure", "final:lower_theta",
        "--measure", "flip_time:lower_theta", "--t-end", str(T_END)]
RUNS, CHUNK, CHUNKS = 60, 4, 15


def _sweep_started(address, out):
    """`eomlab sweep` on the scheduler at `address`, once its first chunk is written."""
    proc = subprocess.Popen([sys.executable, "-m", "eomlab", "sweep", str(DOUBLE), *ARGS, "--chunk-size", str(CHUNK),
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
    assert list(table["run"]) == list(range(RUNS)) and set(table["failure"]) == {""}
    here = sweep(DOUBLE, vary=ARGS[1:4:2], measure=["final:lower_theta", "flip_time:lower_theta"],
                 t_end=T_END, workers=0, chunk_size=CHUNK)
    pd.testing.assert_frame_equal(table, here)  # exactly: the same runs, the same numbers


def _busy_worker(address, workers) -> subprocess.Popen:
    """The worker process that is running a chunk now (the scheduler's view, matched by process id)."""
    from dask.distributed import Client

    with Client(address, timeout="30s", set_as_default=False) as client:
        processing = client.processing()
        pids = {pid: worker for worker, pid in client.run(os.getpid).items()}
    busy = [p for p in workers if processing.get(pids.get(p.pid), ())]
    assert busy, "no worker was running a chunk: the sweep ended before a worker could be killed mid-chunk"
    return busy[0]


def test_a_worker_killed_mid_sweep_loses_no_run(cluster, tmp_path):
    address, workers, _port, _started = cluster
    out = tmp_path / "flips.parquet"
    proc, parts_before = _sweep_started(address, out)
    _busy_worker(address, workers).kill()  # no nanny: it does not come back; its chunk must run on the other one
    assert parts_before < CHUNKS
    _equals_the_sweep_run_here(proc, out)


@pytest.mark.slow
def test_a_sweep_outlives_a_worker_killed_mid_chunk_and_its_scheduler_restarted(cluster, tmp_path):
    address, workers, port, started = cluster
    out = tmp_path / "flips.parquet"
    proc, parts_before = _sweep_started(address, out)
    _busy_worker(address, workers).kill()  # mid-chunk
    started[0].kill()  # the scheduler; the other worker closes with it
    started[0].wait(30)
    assert parts_before < CHUNKS
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
