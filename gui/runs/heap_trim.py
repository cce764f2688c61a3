"""Freed heap memory handed back to the system (glibc's `malloc_trim`).

The window's process allocates in bursts (compare mode's five runs and tiles, a recording's frames,
the samples each run sends) from several threads, so glibc keeps each burst's freed pages in the
arena that served it: the resident size ratchets up by the largest burst so far without any object
leaking (the soak test, tests/reliability/soak.py, saw +20 % in an hour). A trim every half minute
returns those pages. It costs well under a millisecond when little was freed, but tens of
milliseconds (bench/README.md) after a burst (the kernel takes the pages back), so it runs on a thread
of its own (`HeapTrimmer`), never on the GUI thread: glibc's malloc_trim is thread-safe, and ctypes lets
go of the GIL for the call. Elsewhere than glibc it does nothing.
"""
from __future__ import annotations

import ctypes
import sys
import threading

#: how often the window trims its heap (ms)
TRIM_INTERVAL_MS = 30_000


def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None


_MALLOC_TRIM = _malloc_trim()


def trim_heap() -> bool:
    """Return the heap's free pages to the system; True when some were returned."""
    if _MALLOC_TRIM is None:
        return False
    return bool(_MALLOC_TRIM(0))


class HeapTrimmer:
    """`trim_heap` every `interval_ms` on a daemon thread of its own until `stop()`."""

    def __init__(self, interval_ms: int = TRIM_INTERVAL_MS):
        self.interval_s = interval_ms / 1000.0
        self.trims = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="eomlab-heap-trim", daemon=True)
        if _MALLOC_TRIM is not None:
            self.thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            trim_heap()
            self.trims += 1

    def stop(self) -> None:
        self._stop.set()
