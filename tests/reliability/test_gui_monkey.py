"""The GUI monkey (gui_monkey.py) in the suite: three seeds on the real window, 60 s in all (each
child also pays its window's start); a 3-D model and compare mode in the slow run. And the monkey's
own parts, so that it can fail: the hooks catch an exception in a slot, the shrink finds the action
that matters, a crash leaves the action list."""
from __future__ import annotations

import json

import pytest

import gui_monkey
from gui_monkey import Outcome, monkey, run_child, shrink
from monkey_actions import KINDS, TYPED, random_action

SUITE_SEEDS = (31, 32, 33)
SUITE_SECONDS = 12.0  # each seed's actions; with each child's window start and end checks, under 60 s in all


def test_the_monkey_finds_nothing_on_the_four_bar():
    failures, longest = monkey(SUITE_SEEDS, SUITE_SECONDS, "four_bar", shrink_s=0.0, progress=lambda _s: None)
    assert not failures, "\n\n".join(f.describe() for f in failures)


@pytest.mark.slow
@pytest.mark.parametrize("model, compare", [("heavy_top", False), ("double_compound_pendulum", True)])
def test_the_monkey_finds_nothing_in_3d_and_in_compare_mode(model, compare):
    failures, _ = monkey((1, 2), 120.0, model, compare, shrink_s=300.0, progress=lambda _s: None)
    assert not failures, "\n\n".join(f.describe() for f in failures)


# --- the monkey itself -----------------------------------------------------------------------------


def test_actions_are_reproducible_and_cover_every_kind():
    import random

    first = [random_action(random.Random(5)) for _ in range(1)]
    assert first == [random_action(random.Random(5)) for _ in range(1)]
    rng = random.Random(5)
    actions = [random_action(rng) for _ in range(2000)]
    assert {a[0] for a in actions} == set(KINDS)
    assert {"NaN", "Infinity", "", "abc", "1e308"} <= {a[4] for a in actions} <= set(TYPED)


def test_an_exception_in_a_slot_is_caught_and_named_with_its_action():
    """A replayed list whose one hostile action raises inside a Qt slot (a QTimer's): the child
    reports an exception and the action list up to it."""
    outcome = run_child(1, 0.0, "simple_pendulum", False, [["wait", 0.1, 0, 0, ""], ["selftest_raise", 0, 0, 0, ""],
                                                           ["wait", 0.1, 0, 0, ""]])
    assert outcome.kind == "exception" and "ZeroDivisionError" in outcome.failure, outcome.describe()
    assert [a[0] for a in outcome.actions] == ["wait", "selftest_raise"]


def test_the_shrink_keeps_only_the_actions_that_make_it_fail(monkeypatch):
    """ddmin over a fake child: the failure needs actions 3 and 7 of 12, in that order."""
    actions = [["wait", k / 12, 0, 0, ""] for k in range(12)]
    needed = [actions[3], actions[7]]

    def fake_child(seed, seconds, model, compare, given=None, timeout=None):
        kept = [a for a in given if a in needed]
        failed = kept == needed
        return Outcome(seed, model, compare, list(given), [a[0] for a in given], "boom" if failed else "",
                       "exception" if failed else "")

    monkeypatch.setattr(gui_monkey, "run_child", fake_child)
    found = shrink(Outcome(1, "m", False, actions, [], "boom", "exception"), budget_s=30.0)
    assert found.actions == needed


@pytest.mark.slow
def test_an_undo_raising_in_the_end_checks_is_reported_not_a_silent_exit():
    """The end checks call the undo stack directly: an undo's exception reached no hook and ended
    the child with exit 1 and no output (the four-bar, seed 33: a parameter panel KeyError)."""
    outcome = run_child(1, 0.0, "simple_pendulum", False, [["selftest_bad_undo", 0, 0, 0, ""]])
    assert outcome.kind == "end" and "KeyError" in outcome.failure and "selftest" in outcome.failure, outcome.describe()


@pytest.mark.slow
def test_a_stall_is_reported_with_the_share_the_gui_thread_computed():
    outcome = run_child(1, 0.0, "simple_pendulum", False, [["wait", 0.1, 0, 0, ""], ["selftest_stall", 0, 0, 0, ""]])
    assert outcome.kind == "stall", outcome.describe()
    computed = float(outcome.failure.split("it computed ")[1].split(" s")[0])
    assert computed < 0.5, outcome.failure  # it slept; 0.5 s: what a loaded machine's paints around it may take
    asleep = float(outcome.failure.split("asleep (a lock, a process, the X server) for about ")[1].split(" s")[0])
    assert asleep >= 0.5 * float(outcome.failure.split("did not answer for ")[1].split(" s")[0]), outcome.failure
    assert "selftest_stall" in json.dumps(outcome.actions) and "Thread" in outcome.stacks


@pytest.mark.slow
def test_a_crash_is_reported_with_the_actions_done_before_it():
    outcome = run_child(1, 0.0, "simple_pendulum", False, [["wait", 0.1, 0, 0, ""], ["selftest_abort", 0, 0, 0, ""]])
    assert outcome.kind == "crash" and "exit -6" in outcome.failure, outcome.describe()
    assert [a[0] for a in outcome.actions] == ["wait", "selftest_abort"]
    assert "replay with --replay FILE holding: " + json.dumps(outcome.actions) in outcome.describe()


def test_a_long_action_list_reaches_the_child_in_a_file(monkeypatch):
    """A found failure's 3111 actions (340 kB) given as one argument exceeded the kernel's 128 kB per
    argument: the replay and every shrink step raised OSError (E2BIG; four-bar seed 1, 30-minute runs)."""
    import subprocess

    seen = {}

    def child(argv, **_kwargs):
        seen["argv"] = argv
        with open(argv[-1]) as fh:
            seen["spec"] = json.load(fh)
        raise subprocess.TimeoutExpired(argv, 1.0)

    monkeypatch.setattr(gui_monkey.subprocess, "run", child)
    actions = [["wait", 0.1, 0.0, 0.0, "x" * 100]] * 3000
    outcome = run_child(1, 0.0, "simple_pendulum", False, actions)
    assert max(len(arg.encode()) for arg in seen["argv"]) < 128 * 1024
    assert seen["spec"]["actions"] == actions and outcome.kind == "hang"
