"""Cut a sweep into chunks and run them: in this process, on a Dask LocalCluster, or on a scheduler.

Chunks go to ``dask.distributed`` as tasks; results come back as they finish and are written at
once (by this process only), so an interruption loses only the chunks in flight. When a worker
dies, the scheduler runs its chunks again on another worker (Dask's own retry of lost tasks).

When the scheduler itself goes (restarted), Dask's client cancels every future it holds (reason
"scheduler-connection-lost": "re-run your work"), or a result being fetched breaks off, and the
client reconnects to the same address. The sweep then waits for the scheduler and a worker to be
back (at most RECONNECT_WAIT s; a client that gave up is replaced by a new one) and submits again
the chunks not yet delivered; those delivered are in the store already and do not run again.
"""
from __future__ import annotations

import itertools
import logging
import math
import os
import time
import uuid
from concurrent.futures import CancelledError
from contextlib import ExitStack
from typing import Callable

from eomlab.engine.model import ModelError

from eomlab.engine.sweep.chunk_runs import describe_fallbacks, run_chunk

MAX_CHUNK, MIN_CHUNK = 1000, 16
CONNECT_TIMEOUT = "5s"
TASK_RETRIES = 2  # a chunk whose task raised (not a dead worker: Dask re-runs those anyway)
RECONNECT_WAIT = 60.0  # seconds a sweep waits for its restarted scheduler, and a worker on it
RECONNECTS = 5  # scheduler restarts one sweep lives through
LOST = "scheduler-connection-lost"  # the reason Dask's client gives the futures it cancels then


def default_chunk_size(n_runs: int, workers: int) -> int:
    """About four chunks per worker (a steady progress bar, little lost on interrupt), batches
    large enough for the batched engine."""
    return max(MIN_CHUNK, min(MAX_CHUNK, math.ceil(n_runs / (4 * max(workers, 1)))))


def chunks(n_runs: int, chunk_size: int) -> list[tuple[int, int, int]]:
    return [(k, start, min(start + chunk_size, n_runs)) for k, start in enumerate(range(0, n_runs, chunk_size))]


def connect(scheduler: str):
    """A client of the scheduler at `scheduler`; one line naming it when it cannot be reached."""
    from dask.distributed import Client

    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ModelError("--scheduler", f"cannot reach {scheduler}: {str(err).splitlines()[0] if str(err) else type(err).__name__}") from None


def local_workers(workers: int | None) -> int:
    return workers if workers else (os.cpu_count() or 1)


def execute(sweep, store, chunk_size: int, *, client=None, workers: int | None = None, batched: bool = True,
            on_chunk: Callable[[int, dict, dict], None] | None = None) -> list[str]:
    """Run every chunk not yet in `store`; returns the notes (runs that fell back to single runs, why).

    workers = 0 runs the chunks here, one after another; otherwise `client` (an existing
    ``dask.distributed.Client``) or a LocalCluster of `workers` processes (default: one per core).
    """
    finished = store.done()
    todo = [c for c in chunks(sweep.n_runs, chunk_size) if c[0] not in finished]
    fallbacks: dict[str, int] = {}

    def deliver(k, columns, chunk_fallbacks):
        store.write(k, columns)
        for why, n in chunk_fallbacks.items():
            fallbacks[why] = fallbacks.get(why, 0) + n
        if on_chunk is not None:
            on_chunk(k, columns, chunk_fallbacks)

    if client is None and workers == 0:
        for k, start, stop in todo:
            deliver(k, *run_chunk(sweep, start, stop, batched))
        return describe_fallbacks(fallbacks)
    if not todo:
        return []
    with ExitStack() as stack:
        if client is None:
            from dask.distributed import Client, LocalCluster

            cluster = stack.enter_context(LocalCluster(n_workers=local_workers(workers), threads_per_worker=1,
                                                       processes=True, dashboard_address=None,
                                                       silence_logs=logging.CRITICAL))
            # CRITICAL: at the cluster's close a worker's heartbeat can miss the scheduler that just
            # stopped, and distributed logged that as an ERROR with its traceback; a chunk's failure
            # comes back through its future (and `failure` column), not through the log
            client = stack.enter_context(Client(cluster, set_as_default=False))
        _run_on(client, sweep, todo, batched, deliver)
    return describe_fallbacks(fallbacks)


def _run_on(client, sweep, todo, batched, deliver) -> None:
    delivered: set[int] = set()

    def keep(k, columns, chunk_notes):
        deliver(k, columns, chunk_notes)
        delivered.add(k)

    with ExitStack() as replaced:  # the clients made here, when Dask's own one gave up reconnecting
        for restarts in itertools.count():
            try:
                _submit(client, sweep, [c for c in todo if c[0] not in delivered], batched, keep)
                return
            except (CancelledError, OSError) as error:  # OSError: CommClosedError, a result's fetch cut off
                from distributed.comm.core import CommClosedError

                lost = isinstance(error, CommClosedError) or getattr(error, "reason", None) == LOST
                if not lost or restarts >= RECONNECTS:
                    raise
            client = _reconnected(client, replaced)


def _submit(client, sweep, todo, batched, deliver) -> None:
    from dask.distributed import as_completed

    token = uuid.uuid4().hex[:8]
    chunk_of = {}
    futures = []
    for k, start, stop in todo:
        future = client.submit(run_chunk, sweep, start, stop, batched, key=f"eomlab-sweep-{token}-{k}",
                               pure=False, retries=TASK_RETRIES)
        chunk_of[future.key] = k
        futures.append(future)
    try:
        for future in as_completed(futures, loop=client.loop):
            columns, chunk_notes = future.result()
            deliver(chunk_of[future.key], columns, chunk_notes)
            future.release()
    finally:
        if client.status == "running":
            client.cancel([f for f in futures if not f.done()])


def _reconnected(client, replaced: ExitStack):
    """`client` once it is connected again to its (restarted) scheduler with a worker there, or a new
    client of that address if Dask's one gave up; ModelError after RECONNECT_WAIT seconds."""
    address = client.scheduler.address
    deadline = time.monotonic() + RECONNECT_WAIT
    while time.monotonic() < deadline:
        if client.status in ("closing", "closed"):
            try:
                client = replaced.enter_context(connect(address))
            except ModelError:
                time.sleep(0.5)
                continue
        if client.status == "running":
            try:
                client.wait_for_workers(1, timeout=max(0.1, deadline - time.monotonic()))
                return client
            except (TimeoutError, OSError):
                pass  # not back yet, or the client has not yet seen that it was gone
        time.sleep(0.1)
    raise ModelError("--scheduler", f"lost the scheduler at {address}, which was not back with a worker within "
                     f"{RECONNECT_WAIT:g} s; with -o, --resume runs the chunks not yet written")
