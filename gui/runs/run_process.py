"""A run's integration in a forked child process (`RunThread(process=True)`, gui/runs/run_thread.py): the
worker thread forks the child, re-emits what it sends as the thread's signals and passes the
window's controls on; the child applies them between integration calls.

The child is forked, not spawned: it starts in milliseconds with the engine already imported (a
spawned one would import numpy, scipy and sympy again, over a second, at every reset and edit).
It never touches Qt: it freezes the objects it inherited so that no garbage collection frees a
Qt object in it, and it leaves through `os._exit` (its own, see `_child_main`) without running the
parent's exit handlers.
"""
from __future__ import annotations

import gc
import math
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
import traceback

from eomlab.engine.blas_threads import one_blas_thread_for_good
from eomlab.gui.runs.run_messages import End
from eomlab.gui.runs.warm_up import FORK_LOCK, RUN_MOVING

#: a run's child process yields to the window: on two cores a run as fast as possible and the GUI
#: thread each want one, and the frames should not be the ones to wait
RUN_NICENESS = 5
#: run the integration in a forked child process (gui/runs/run_thread.py's docstring): only where `fork` is
#: the platform's way (Linux); macOS and Windows keep the worker thread
PROCESS_WORKERS = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
#: how long the worker thread waits for a stopped child to end before it kills it (seconds)
CHILD_STOP_GRACE = 0.5


class Readable:
    """Whether a connection has something to read, waiting up to a timeout: one poll object kept for the
    connection's descriptor. `Connection.poll` builds a selector at every call (~50 µs of CPU); a paced
    run waits on its pipe hundreds of times a second, and compare mode has five."""

    def __init__(self, conn):
        self._poll = select.poll()
        self._poll.register(conn.fileno(), select.POLLIN)

    def __call__(self, timeout: float = 0.0) -> bool:
        return bool(self._poll.poll(max(0, math.ceil(timeout * 1000))))


class ChildProcess:
    """The process side of `RunThread` (a mixin: the thread's lock, controls and signals are its;
    the messages both ways are gui/runs/run_messages.py's)."""

    #: kill the child at a stop instead of waiting for its answer (`RunThread.request_stop`)
    stop_at_once = False

    def _host_child(self) -> None:
        """On the worker thread: fork the child, re-emit what it sends, end it when asked."""
        context = multiprocessing.get_context("fork")
        ours, theirs = context.Pipe(duplex=True)
        with self._lock:  # controls from now on are sent; the child starts from this state
            if self._stop:
                ours.close()
                theirs.close()
                return
            self._conn = ours
        child = context.Process(target=self._child_main, args=(theirs,), daemon=True,
                                name=f"eomlab-run-{self.run_id}")
        while not FORK_LOCK.acquire(timeout=0.05):  # not while the warm-up imports (gui/runs/warm_up.py)
            if self._stopped():
                with self._lock:
                    self._conn = None
                ours.close()
                theirs.close()
                return
        try:
            child.start()
        except OSError as error:  # no memory or process slots left: say so, as an engine error
            with self._lock:
                self._conn = None
            ours.close()
            theirs.close()
            self.crashed.emit(self.run_id, f"could not start the simulation process: {error}")
            return
        finally:
            FORK_LOCK.release()
        theirs.close()
        self.child_pid = child.pid
        readable = Readable(ours)
        ended = False
        stop_seen = None
        try:
            while True:
                if self._stopped():
                    stop_seen = stop_seen or time.perf_counter()
                    if self.stop_at_once or time.perf_counter() - stop_seen > CHILD_STOP_GRACE:
                        break  # stuck in a long engine call: it is killed below
                if readable(0.02):
                    try:
                        message = ours.recv()
                    except (EOFError, OSError):
                        break
                    if isinstance(message, End):
                        ended = True
                        break
                    if stop_seen is None:  # after a stop the window wants nothing more
                        self._signal(message)
                        RUN_MOVING.set()
                elif not child.is_alive() and not readable():
                    break
        finally:
            with self._lock:
                self._conn = None
            child.join(CHILD_STOP_GRACE if ended and not self.stop_at_once else 0.05)
            if child.is_alive():
                child.kill()
                child.join()
            self.exitcode = child.exitcode
            ours.close()
        if not ended and not self._stopped():
            self.crashed.emit(self.run_id, f"The simulation process ended unexpectedly (exit code {child.exitcode}); "
                              "the samples so far are kept.")

    def _child_main(self, conn) -> None:
        """In the forked child: run the integration, sending everything through `conn`; then leave
        through `os._exit` with 0, or 1 after printing what escaped. Not through multiprocessing's
        own exit: it runs threading's shutdown, which fails silently (exit code 1) when threading knew
        the forking Qt thread as a dummy thread (any `current_thread()` there, or a reused thread id)."""
        code = 0
        try:
            self._child_work(conn)
        except BaseException:  # noqa: BLE001 - the child's last word, before it is gone
            code = 1
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError, AttributeError):
                    pass
            os._exit(code)

    def _child_work(self, conn) -> None:
        """The child's whole work: the integration, its messages, and End."""
        gc.freeze()  # what we inherited (Qt objects among it) is never collected here
        one_blas_thread_for_good()  # a BLAS first loaded here (scipy.linalg, on first use) too
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the window's to handle
        os.nice(RUN_NICENESS)
        if self._conn is not None:
            self._conn.close()  # the parent's end
        self._conn = None
        self._child = conn
        self._readable = Readable(conn)
        self._parent_pid = os.getppid()
        # fresh: the parent's copies may have been held by another thread at the fork
        self._lock = threading.Lock()
        self._wake = threading.Event()
        try:
            self._run_here()
            conn.send(End())
        except (OSError, EOFError, ValueError):  # the parent went away: nothing left to tell
            pass
        finally:
            conn.close()

    def _take_messages(self, timeout: float = 0.0) -> None:
        """In the child: apply the controls waiting in the pipe (waits up to `timeout` for one)."""
        conn = self._child
        try:
            ready = self._readable(timeout)
            while ready:
                self._take(conn.recv())  # RunThread._take applies each control
                ready = self._readable()
        except (EOFError, OSError):  # the parent closed its end: stop
            self._stop = True
        if os.getppid() != self._parent_pid:  # orphaned (the window died): stop
            self._stop = True

