"""The robot-file fuzzer (robot_fuzzer.py) in the suite: a short run (under 20 s) of mutated URDF and
MJCF files through `eomlab import` and `eomlab run`; a long one marked slow; and the fuzzer's own
parts, so that it can fail."""
from __future__ import annotations

import pytest

from robot_fuzzer import Mutant, _noisy, check, fuzz, mutants, seeds

SHORT_SEED = 31  # the number: the same mutants every run


def _describe(findings) -> str:
    return "\n".join(f"seed {m.seed} #{m.index} {m.source} {m.mutations}: {problem}\n{said[:600]}"
                     for m, problem, said in findings)


def test_short_fuzz_of_robot_files_finds_nothing():
    ran, findings = fuzz([SHORT_SEED], count=150, seconds=15.0, workers=2)
    assert ran >= 10, "the fuzzer ran too few mutants to mean anything"
    assert not findings, _describe(findings)


@pytest.mark.slow
def test_long_fuzz_of_robot_files_from_several_seeds_finds_nothing():
    ran, findings = fuzz([311, 312, 313], seconds=600.0, workers=2)
    assert ran >= 1000
    assert not findings, _describe(findings)


# --- the fuzzer itself ------------------------------------------------------------------------------


def test_mutants_are_reproducible_and_cover_every_kind():
    first = [m.text for m in mutants(7, 400)]
    assert first == [m.text for m in mutants(7, 400)]
    done = " | ".join(d for m in mutants(7, 400) for d in m.mutations)
    for kind in ("drop <", "repeat <", "reorder", "drop ", "number ", "word ", "nest ", "bodies in", "entity",
                 "duplicate attribute", "include '../../../../etc/passwd'", "include 'mutant"):
        assert kind in done, kind
    assert {m.suffix for m in mutants(7, 50)} == {".urdf", ".xml"}
    assert len(seeds()) >= 8


def test_a_refusal_is_one_line_and_a_written_model_runs(tmp_path):
    broken = Mutant(0, 0, "x.xml", ".xml", ["by hand"], "<mujoco><worldbody><body></mujoco>")
    problem, said, kind = check(broken, str(tmp_path))
    assert problem is None and kind == "import refused (exit 2, one line)"
    assert said.count("\n") == 1
    name, text = seeds()[0]
    good = Mutant(0, 1, name, "." + name.rsplit(".", 1)[1], [], text)
    problem, _, kind = check(good, str(tmp_path))
    assert problem is None and kind == "imported and ran"


def test_the_judge_flags_warnings_and_tracebacks():
    assert _noisy("x.py:12: RuntimeWarning: overflow\n  a = b\neomlab: f: bad\n")
    assert _noisy("Traceback (most recent call last):\n")
    assert not _noisy("f.xml: warning: extra geoms not imported\nwrote out.eom.json (2 bodies)\n")
