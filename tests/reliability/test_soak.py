"""The soak test (soak.py): two hours of the real window with a 20-link chain running, recording
MP4 and toggling compare mode (slow); a few seconds of it in the suite, so that the program itself
runs; and its memory verdict, which must be able to fail."""
from __future__ import annotations

import json
import os

import pytest

import soak

def _report(path) -> dict:
    with open(path) as fh:
        return json.load(fh)


def test_a_short_soak_records_toggles_resets_and_reports(tmp_path):
    """Two 3-s cycles: each records an MP4 (File ▸ Record MP4, then stop), turns compare mode on and
    off; the second resets and runs on. The report holds every period's memory and nothing wrong.
    In 1.8 s a recording may get no frame on a loaded machine (compare mode's runs restart): at
    least one of the two writes its file."""
    report = tmp_path / "soak.json"
    code = soak.run(6.0, str(report), links=20, period=3.0)
    result = _report(report)
    assert code == 0, result.get("failure")
    assert result["finished"] and result["cycles"] == 2 and result["recordings_written"] >= 1
    assert result["recordings_written"] + result["recordings_empty"] == 2
    assert result["resets"] == 1 and result["compare_toggles"] == 4
    assert len(result["memory"]) == 2 and all(p["samples"] == soak.SAMPLES_PER_PERIOD for p in result["memory"])
    assert all(p["window_mb"] > 50 for p in result["memory"])  # the window's process, read from /proc


@pytest.mark.slow
@pytest.mark.timeout(7200 + 900)
def test_two_hours_of_the_window_keep_their_memory_and_find_nothing(tmp_path):
    report = tmp_path / "soak.json"
    code = soak.run(7200.0, str(report), links=20, period=60.0)
    result = _report(report)
    assert code == 0, result.get("failure")
    assert result["cycles"] >= 119 and result["recordings_written"] == result["cycles"]


def _periods(*means):
    steady = [(300, 1000)] * (soak.VERDICT_PERIODS - len(means))  # the periods between, as the first
    return [{"window_mb": w, "total_mb": t} for w, t in means[:1] + tuple(steady) + means[1:]]


def test_the_memory_verdict_fails_beyond_twenty_percent_of_the_first_period():
    assert soak.memory_verdict(_periods((300, 1000), (350, 1100), (359, 1199))) == ""
    assert "the window's process" in soak.memory_verdict(_periods((300, 1000), (361, 1000)))
    assert "run processes" in soak.memory_verdict(_periods((300, 1000), (300, 1201)))
    short = [{"window_mb": w, "total_mb": 1000} for w in (300, 400)]
    assert soak.memory_verdict(short) == ""  # two periods: the start's, no verdict


def test_the_memory_sample_sees_this_process_and_its_children():
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        now = soak.sample(os.getpid())
        assert now["window_mb"] > 10 and now["processes"] >= 1 and now["children_mb"] > 1
        assert now["total_mb"] == pytest.approx(now["window_mb"] + now["children_mb"], abs=0.2)
        assert 0 < now["window_pss_mb"] <= now["window_mb"] + 0.1  # a share of the resident pages
        assert now["children_mb"] <= now["children_pss_mb"] + 0.1  # their own pages: within their shares
    finally:
        child.kill()
        child.wait()
