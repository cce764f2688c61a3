"""gui/runs/heap_trim.py: the window's heap trim runs on a thread of its own, never on the GUI thread."""
from __future__ import annotations

import threading
import time

import pytest

from eomlab.engine.presets import preset
from eomlab.gui.runs import heap_trim

glibc = pytest.mark.skipif(heap_trim._MALLOC_TRIM is None, reason="malloc_trim is glibc's")


@glibc
def test_the_trimmer_trims_on_its_own_thread_until_stopped(monkeypatch):
    threads = []
    monkeypatch.setattr(heap_trim, "trim_heap", lambda: threads.append(threading.current_thread()) or True)
    trimmer = heap_trim.HeapTrimmer(interval_ms=20)
    deadline = time.monotonic() + 30
    while trimmer.trims < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    trimmer.stop()
    trimmer.thread.join(5)
    assert trimmer.trims >= 2 and not trimmer.thread.is_alive()
    assert threading.main_thread() not in threads and all(t is trimmer.thread for t in threads)


@glibc
def test_the_window_trims_off_its_gui_thread_and_stops_when_closed(make_window):
    window = make_window(preset("simple_pendulum"))
    trimmer = window._heap_trim
    assert trimmer.thread.is_alive() and trimmer.thread is not threading.main_thread()
    window.close()
    trimmer.thread.join(5)
    assert not trimmer.thread.is_alive()


def test_trim_heap_answers_without_glibc(monkeypatch):
    monkeypatch.setattr(heap_trim, "_MALLOC_TRIM", None)
    assert heap_trim.trim_heap() is False
