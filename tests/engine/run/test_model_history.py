"""ModelHistory (engine.run.model_history): what is in force at each time of a run whose parameters
changed. Times are exact; an edit's own instant counts as the edit's (within 1e-9 s)."""
from eomlab.engine.run.model_history import ModelHistory


def test_each_time_gets_the_stretch_it_falls_in():
    history = ModelHistory("m0")
    history.add(1.0, "m1")
    history.add(2.0, "m2")
    assert [history.at(t) for t in (0.0, 0.999, 1.0, 1.0 - 1e-12, 1.5, 2.0, 9.0)] == [
        "m0", "m0", "m1", "m1", "m1", "m2", "m2"]
    assert history.latest == "m2" and len(history) == 3


def test_going_back_forgets_later_stretches_and_an_edit_at_the_same_time_replaces():
    history = ModelHistory("m0")
    history.add(1.0, "m1")
    history.add(2.0, "m2")
    assert history.keep_until(1.5) == "m1" and history.latest == "m1" and history.at(3.0) == "m1"
    history.add(1.0, "m1b")  # a second edit at the same sample
    assert len(history) == 2 and history.at(1.2) == "m1b"
    assert history.keep_until(0.5) == "m0" and len(history) == 1
    copy = ModelHistory.of([(float("-inf"), "a"), (1.0, "b")])
    assert copy.at(0.0) == "a" and copy.at(1.0) == "b"
