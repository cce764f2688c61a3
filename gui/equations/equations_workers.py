"""The equations panel's two child processes (`equations_render`): the deriver and the typesetter.

Each is spawned when first needed (or early, by `prewarm`, so that asking finds sympy and the
fonts loaded) and has its own queues, so terminating the deriver to cancel a derivation leaves the
typesetter and its queue intact. No Qt here.
"""
from __future__ import annotations

import multiprocessing
import queue

from eomlab.gui.equations.equations_render import serve_derivations, serve_typesetting


class WorkerProcess:
    """One child process serving requests: (kind, generation, value) come back on `results`."""

    def __init__(self, target, name: str):
        self.context = multiprocessing.get_context("spawn")  # no fork of a process running Qt threads
        self.target, self.name = target, name
        self.process = None
        self.requests = self.results = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def start(self) -> None:
        if not self.running:
            self.requests, self.results = self.context.Queue(), self.context.Queue()
            self.process = self.context.Process(target=self.target, args=(self.requests, self.results),
                                                daemon=True, name=self.name)
            self.process.start()

    def submit(self, request) -> None:
        self.start()
        self.requests.put(request)

    def tell(self, message) -> None:
        """A message that only matters to a running process (dropping or reordering its work)."""
        if self.running:
            self.requests.put(message)

    def finished(self) -> list[tuple]:
        done = []
        while self.results is not None:
            try:
                done.append(self.results.get_nowait())
            except queue.Empty:
                break
        return done

    def stop(self) -> None:
        if self.running:
            self.process.terminate()
            self.process.join(1.0)
        self.process = None
        self.requests = self.results = None


class Workers:
    """The deriver (numbers, then the symbolic page) and the typesetter (formulas to SVG)."""

    def __init__(self):
        self.deriver = WorkerProcess(serve_derivations, "eomlab-derive")
        self.typesetter = WorkerProcess(serve_typesetting, "eomlab-typeset")
        self.ready: set[str] = set()  # the processes that have loaded their libraries

    def prewarm(self) -> None:
        """Start both now, so that the first request finds them ready."""
        self.deriver.start()
        self.typesetter.start()

    def finished(self) -> list[tuple]:
        done = []
        for message in self.deriver.finished() + self.typesetter.finished():
            if message[0] == "ready":
                self.ready.add(message[2])
            else:
                done.append(message)
        return done

    def stop_deriving(self) -> None:
        """End a running derivation (sympy cannot be interrupted otherwise); the typesetter stays."""
        self.ready.discard("deriver")
        self.deriver.stop()

    def stop(self) -> None:
        self.ready.clear()
        self.deriver.stop()
        self.typesetter.stop()
