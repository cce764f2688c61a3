"""The messages between the window and a run (gui/runs/run_messages.py): each edit is made on the
Simulation by its own handler, the messages pickle (they cross a pipe to a run's child process), and
the run states read as their names."""
import pickle

import numpy as np
import pytest

from eomlab.engine.presets import double_compound_pendulum, simple_pendulum
from eomlab.engine.simulation import Simulation
from eomlab.gui.runs.run_messages import (ContinueFrom, DragTo, Edit, EditKind, Edited, MovePull, Pull, Release,
                                          SetParameter, apply_edit)
from eomlab.gui.runs.run_state import RunEnd, RunState


def test_each_edit_is_made_on_the_simulation():
    sim = Simulation(simple_pendulum(mass=1.5, theta0=1.0), t_end=2.0)
    sim.advance(0.5)
    apply_edit(SetParameter("bodies[0].mass", 2.0), sim)
    assert sim.model.bodies[0].mass == 2.0 and len(sim.model_history()) == 2
    apply_edit(Pull("bob", [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]), sim)
    assert sim.pull_anchor()[1] == pytest.approx([1.0, 0.0, 0.0])
    apply_edit(MovePull([0.5, 0.5, 0.0]), sim)
    assert sim.pull_anchor()[1] == pytest.approx([0.5, 0.5, 0.0])
    apply_edit(Release(), sim)
    assert sim.pull_anchor() is None
    row = sim.samples()[0]
    apply_edit(ContinueFrom(row), sim)
    assert sim.samples()[-1, 0] == 0.0 and sim.model.bodies[0].mass == 1.5
    apply_edit(DragTo("bob", [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]), sim)
    bob = sim.samples()[-1, [sim.column_index(f"bob.{a}") for a in "xy"]]
    assert bob == pytest.approx([0.0, -1.0], abs=1e-9)  # straight down: reachable exactly


def test_what_is_not_an_edit_is_refused_by_type():
    with pytest.raises(TypeError, match="not an edit"):
        apply_edit(("set_parameter", "bodies[0].mass", 2.0), Simulation(double_compound_pendulum(), t_end=0.1))


def test_messages_cross_a_pipe_and_name_their_kind():
    sim = Simulation(double_compound_pendulum(), t_end=0.1)
    row = sim.run()[-1]
    reply = pickle.loads(pickle.dumps(Edited(ContinueFrom(row, models=sim.model_history()), row, None,
                                             sim.model_history())))
    assert isinstance(reply.edit, ContinueFrom) and isinstance(reply.edit, Edit)
    assert np.array_equal(reply.edit.row, row) and reply.models == sim.model_history()
    assert reply.edit.kind is EditKind.CONTINUE_FROM and reply.edit.kind == "continue_from"
    assert pickle.loads(pickle.dumps(SetParameter("gravity", [0.0, -1.62, 0.0]))) == SetParameter("gravity", [0.0, -1.62, 0.0])


def test_run_states_read_as_their_names():
    assert [s.value for s in RunState] == ["idle", "running", "paused", "ended", "failed"]
    assert [s.text for s in RunState] == ["ready", "running", "paused", "finished", "stopped on an error"]
    assert RunState.ENDED.going_on and RunState.RUNNING.going_on and not RunState.PAUSED.going_on
    assert not RunEnd.NOT and RunEnd.CRASHED == "crashed"
