"""The command-line fuzzer (cli_fuzzer.py) in the suite: a short run in every `make test`, a long
one (minutes, several seeds) marked slow; and the fuzzer's own judgement, so that it can fail."""
from __future__ import annotations

import json

import pytest

from cli_fuzzer import EXTREME_NUMBERS, Outcome, fuzz, judge, mutants, to_json

SHORT_SEED = 18  # the number: the same mutants every run (reproducible)
SHORT_COUNT = 250
SHORT_SECONDS = 50.0  # the short run stops early on a slow machine


def _describe(findings) -> str:
    return "\n".join(f"seed {f.mutant.seed} #{f.mutant.index} {f.mutant.asset} {f.mutant.mutations}: {f.problem}\n"
                     f"{f.outcome.stderr[:500]}{f.outcome.escaped[-1500:]}" for f in findings)


def test_short_fuzz_of_the_command_line_finds_nothing():
    report = fuzz([SHORT_SEED], count=SHORT_COUNT, seconds=SHORT_SECONDS, workers=2)
    assert report.ran >= 20, "the fuzzer ran too few mutants to mean anything"
    assert not report.findings, _describe(report.findings)


@pytest.mark.slow
def test_long_fuzz_of_the_command_line_from_several_seeds_finds_nothing():
    report = fuzz([101, 102, 103, 104], seconds=300.0, workers=2)
    assert report.ran >= 500
    assert not report.findings, _describe(report.findings)


# --- the fuzzer itself ------------------------------------------------------------------------------


def test_mutants_are_reproducible_and_cover_every_kind():
    first = [m.text for m in mutants(7, 300)]
    assert first == [m.text for m in mutants(7, 300)]
    kinds = {done.split(" ")[0] for m in mutants(7, 300) for done in m.mutations}
    assert kinds == {"extreme", "scale", "non_finite", "type", "drop", "duplicate", "nest"}
    texts = "".join(first)
    assert "NaN" in texts and "Infinity" in texts and "1e+308" in texts and "5e-324" in texts


def test_repeated_keys_are_written_twice():
    document = {"a": 1, "b": {"c": 2}}
    text = to_json(document, {id(document["b"]): [("c", 3)]})
    assert text == '{"a": 1, "b": {"c": 2, "c": 3}}'
    assert json.loads(text) == {"a": 1, "b": {"c": 3}}
    assert 1e308 in EXTREME_NUMBERS and 2**63 in EXTREME_NUMBERS


@pytest.mark.parametrize("outcome, problem", [
    (Outcome(None, "", "Traceback ...\nValueError: array must not contain infs or NaNs", 0.1, False), "escaped main"),
    (Outcome(2, "x.py:66: RuntimeWarning: overflow\n  M = ...\neomlab: mutant.eom.json: bodies: ...\n", "", 0.1, False),
     "exit 2 with 3 lines"),
    (Outcome(2, "eomlab: mutant.eom.json: bodies[0].mass: must be >= 0\n", "", 0.1, True), "CSV was written"),
    (Outcome(0, "rk.py:505: UserWarning: At least one element of `rtol` is too small\n", "", 0.1, True), "warnings"),
    (Outcome(1, "", "", 0.1, True), "without a failure line"),
    (Outcome(0, "", "", 25.0, True), "took 25.0 s"),
    (Outcome(130, "mutant.eom.json: kane: run stopped at t = 0.01 s: interrupted (Ctrl+C) (2 samples kept)\n", "",
             20.5, True, interrupted=True), "over the time bound"),  # slow, but it never said so
])
def test_the_judge_flags_each_way_of_ending_badly(outcome, problem):
    assert problem in judge(outcome, bound=20.0)


@pytest.mark.parametrize("outcome", [
    Outcome(2, "eomlab: /tmp/mutant.eom.json: gravity[1]: |value| must be at most 1e12 m/s², got -9.81e+12\n",
            "", 0.1, False),
    Outcome(1, "/tmp/mutant.eom.json: kane: run stopped at t = 0.01 s: the state exceeds 1e+12 (1 samples kept)\n",
            "", 0.1, True),
    Outcome(130, "m: kane: slow run: integrating ... Ctrl+C stops it\nm: kane: run stopped at t = 0.001 s: "
            "interrupted (Ctrl+C) (1 samples kept)\n", "", 20.3, True, interrupted=True),
])
def test_the_judge_passes_the_good_endings(outcome):
    assert judge(outcome, bound=20.0) is None


def test_the_time_bound_counts_the_runs_own_cpu_time(monkeypatch):
    """A mutant waiting (the worker starved on a loaded machine: 0.8 s of CPU took 20 s beside the GUI
    monkey at load 16) is not a hang; one computing past the bound is stopped by Ctrl+C."""
    import time

    import eomlab.cli
    from cli_fuzzer import call_main

    def waits(argv):
        time.sleep(0.6)
        return 0

    def computes(argv):
        end = time.process_time() + 2.0
        while time.process_time() < end:
            pass
        return 0

    monkeypatch.setattr(eomlab.cli, "main", waits)
    code, _, escaped, seconds, interrupted = call_main(["run"], bound=0.3)
    assert (code, escaped, interrupted) == (0, "", False) and seconds < 0.3
    monkeypatch.setattr(eomlab.cli, "main", computes)
    code, _, escaped, seconds, interrupted = call_main(["run"], bound=0.3)
    assert interrupted and "KeyboardInterrupt" in escaped and seconds < 1.0  # stopped long before its 2 s
