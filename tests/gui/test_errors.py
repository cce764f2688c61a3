"""Broken files, runs that blow up and engine exceptions: the window lives on and says why."""
from __future__ import annotations

import eomlab.engine.simulation as engine_simulation
from eomlab.engine.presets import preset

from gui_helpers import run_fast


def test_broken_file_keeps_the_model_and_shows_why(qtbot, make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum"))
    before = window.model
    broken = tmp_path / "broken.eom.json"
    broken.write_text('{"eomlab": 1, "bodies": [{"name": "a", "parent": "ground", "mass": -2,'
                      ' "joint": {"type": "revolute"}}]}')
    assert not window.files.open_file(str(broken))
    assert window.model == before
    assert "broken.eom.json" in window.last_error and "bodies[0].mass" in window.last_error
    assert window.message_boxes and window.message_boxes[-1].isVisible()
    assert window.last_error in window.message_boxes[-1].text()

    assert not window.files.open_file(str(tmp_path / "missing.eom.json"))
    assert window.model == before and "missing.eom.json" in window.last_error


def test_worker_exception_is_shown_and_the_window_lives(qtbot, make_window, monkeypatch):
    def explode(self, t_stop, wall_budget=None):
        raise RuntimeError("boom in the engine")

    monkeypatch.setattr(engine_simulation.Simulation, "advance", explode)
    window = make_window(preset("double_compound_pendulum"))
    run_fast(window)
    qtbot.waitUntil(lambda: "boom in the engine" in window.last_error, timeout=10000)
    assert window.isVisible() and window.state == "failed"
    assert "RuntimeError" in window.message_boxes[-1].text()
    monkeypatch.undo()
    window.run()  # a fresh run works again
    qtbot.waitUntil(lambda: window.runs[0].series is not None and len(window.runs[0].series.buffer) > 10,
                    timeout=10000)


def test_blow_up_pauses_with_its_message_and_keeps_the_samples(qtbot, make_window):
    # RK4 with a huge fixed step on a stiff spring: the state explodes within a few steps
    model = preset("simple_pendulum").with_settings(integrator="RK4", dt=0.5, dt_out=0.5, t_end=1000.0)
    from eomlab.gui.editing import edits

    model = edits.add_item(model, "forces", {"name": "stiff", "type": "joint_spring",
                                             "body": model.bodies[0].name, "stiffness": 1e4, "rest": [0.0]})
    window = make_window(model)
    run_fast(window)
    qtbot.waitUntil(lambda: bool(window.last_error), timeout=15000)
    assert "run stopped" in window.last_error
    assert window.state == "failed"
    assert len(window.samples()[1]) >= 1
