"""The calling thread's time spent waiting for a core (the kernel's schedstat), for tests that time the GUI
thread on a shared machine: a frame or a stall counts the thread's own time, not the machine's load."""
from __future__ import annotations


def run_queue_wait() -> float:
    """The calling thread's seconds spent ready to run while no core was free; 0 where the kernel does not say."""
    try:
        with open("/proc/thread-self/schedstat") as fh:
            return int(fh.read().split()[1]) * 1e-9
    except (OSError, IndexError, ValueError):
        return 0.0
