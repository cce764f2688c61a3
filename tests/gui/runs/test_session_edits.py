"""The session's side of run edits (gui/runs/session.py): a held cursor poses every run's own kept
sample (the timeline, compare mode too), and an edit's answer rewrites the kept samples — later
rows dropped, the new row appended, the rows a "continue from here" dropped put back on undo."""
from __future__ import annotations

import math
from dataclasses import fields, replace

import numpy as np
import pytest

from eomlab.engine.presets import preset
from eomlab.gui.runs.run_messages import DragTo, Edited
from eomlab.gui.runs.run_state import RunState
from gui_helpers import COLUMNS, INFO, frame, run_with_samples

ENDED, PAUSED = RunState.ENDED, RunState.PAUSED

POSED_INFO = replace(INFO, pose_columns=(1, 2))  # the coordinate "a" is what poses are drawn from


def pendulum_run(method: str, run_id: int, angles):
    class Thread:  # what the session asks of a worker here: its id, and the edits it is sent
        def __init__(self):
            self.run_id, self.sent, self.edits = run_id, [], []

        def edit(self, edit):  # recorded as its kind and the values it carries
            self.edits.append(edit)
            self.sent.append((edit.kind, tuple(getattr(edit, f.name) for f in fields(edit)
                                               if getattr(edit, f.name) is not None)))

    return run_with_samples(method, 0.1 * np.arange(len(angles)), angles, POSED_INFO, Thread(),
                            preset("simple_pendulum"))


def answer(run, row, pose) -> Edited:
    """The worker's answer to the last edit it was sent: the new latest row, its pose, its history."""
    return Edited(run.thread.edits[-1], row, pose, tuple(run.models.items()))


def test_a_held_cursor_poses_each_runs_own_sample(session):
    session.runs = [pendulum_run("kane", 1, [0.0, 0.3, 0.6, 0.9]), pendulum_run("maggi", 2, [0.0, -0.2, -0.4])]
    session.set_cursor(0.1)
    poses = [f for _run, f in session.frames_at_cursor()]
    assert [f.t for f in poses] == [pytest.approx(0.1)] * 2
    for pose, angle in zip(poses, (0.3, -0.2)):  # the bob at l (sin θ, −cos θ), θ from the downward vertical
        assert pose.mass_centres[0, :2] == pytest.approx([math.sin(angle), -math.cos(angle)], abs=1e-12)


def test_an_edit_answer_replaces_the_later_samples(session):
    session.runs = [pendulum_run("kane", 1, [0.0, 0.3, 0.6, 0.9])]
    session.state = ENDED
    edited = []
    session.edited.connect(lambda run, name, t: edited.append((name, t)))
    row = np.zeros(len(COLUMNS))
    row[0], row[1] = 0.1, 1.5
    run = session.runs[0]
    session._on_edited(1, Edited(DragTo("bob", [1.0, 0.0, 0.0], [0.3, -0.9, 0.0]), row, frame(0.1),
                                 tuple(run.models.items())))
    data = session.runs[0].series.buffer.view()
    assert data[:, 0] == pytest.approx([0.0, 0.1]) and data[-1, 1] == 1.5
    assert [f.t for f in session.runs[0].frames] == [0.0, 0.1] and session.state == PAUSED
    assert edited == [("drag_to", 0.1)] and session.cursor_time() == pytest.approx(0.1)


def test_undoing_continue_from_here_puts_the_dropped_samples_back(session):
    run = pendulum_run("kane", 1, [0.0, 0.3, 0.6, 0.9])
    session.runs = [run]
    kept = run.series.buffer.view().copy()
    session.continue_from([kept[1]])
    (name, (sent_row,)), = run.thread.sent
    assert name == "continue_from" and np.array_equal(sent_row, kept[1])
    session._on_edited(1, answer(run, kept[1], frame(0.1)))
    assert len(run.series.buffer) == 2
    session.continue_from([kept[-1]], put_back=[kept[2:-1]])  # the undo: rows 2 .. and the last again
    session._on_edited(1, answer(run, kept[-1], frame(0.3)))
    assert np.array_equal(run.series.buffer.view(), kept)


def test_a_parameter_is_checked_before_any_run_is_sent_it(session):
    session.runs = [pendulum_run("kane", 1, [0.0, 0.3])]
    with pytest.raises(Exception, match="mass"):
        session.set_parameter("bodies[0].mass", "heavy")
    assert session.runs[0].thread.sent == []
    session.set_parameter("bodies[0].mass", 2.0)
    assert session.runs[0].model.bodies[0].mass == 2.0
    assert session.runs[0].thread.sent == [("set_parameter", ("bodies[0].mass", 2.0))]
