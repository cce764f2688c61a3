"""Files on disk from the window: saves are atomic (a failed save leaves the old bytes), saving
during a run is safe, unsaved edits go to a recovery file and are offered back after a crash."""
from __future__ import annotations

import os
from dataclasses import replace

import eomlab.engine.modelfile.writing as engine_modelfile
from eomlab.engine.modelfile import load_model, save_model
from eomlab.engine.presets import preset
from eomlab.gui.editing import recovery

from reliability_helpers import fingerprint


def _saved_model(tmp_path, name="pendulum.eom.json", **preset_args):
    path = tmp_path / name
    save_model(preset("double_compound_pendulum", **preset_args), path)
    return path


def _edit_mass(window, mass: float) -> None:
    window.tree.select(("body", "upper"))
    assert window.inspector.set_value(("mass",), str(mass))


def test_failed_save_keeps_the_old_file_and_the_edits(make_window, tmp_path, monkeypatch):
    path = _saved_model(tmp_path)
    before = fingerprint(path)
    window = make_window(load_model(path), str(path))
    _edit_mass(window, 2.5)

    def disk_full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(engine_modelfile.os, "replace", disk_full)
    assert not window.files.save()
    assert "No space left on device" in window.last_error and path.name in window.last_error
    assert fingerprint(path) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [path.name]  # no temporary file left
    assert window.document.dirty and window.model.body("upper").mass == 2.5
    monkeypatch.undo()
    assert window.files.save() and load_model(path) == window.model


def test_save_into_a_missing_folder_says_so_and_keeps_the_edits(make_window, tmp_path):
    window = make_window(preset("double_compound_pendulum"))
    _edit_mass(window, 3.0)
    target = tmp_path / "no such folder" / "m.eom.json"
    assert not window.files.save_as(str(target))
    assert str(target) in window.last_error and window.document.dirty and not target.exists()


def test_saving_while_a_run_goes_on_is_safe(qtbot, make_window, tmp_path):
    path = _saved_model(tmp_path)
    window = make_window(load_model(path).with_settings(t_end=1000.0), str(path))
    _edit_mass(window, 1.5)  # an edit restarts the run
    window.run()
    qtbot.waitUntil(lambda: len(window.samples()[1]) > 5, timeout=20000)
    for _ in range(5):
        assert window.files.save()
        assert load_model(path) == window.model
        qtbot.wait(30)
    count = len(window.samples()[1])
    qtbot.waitUntil(lambda: len(window.samples()[1]) > count, timeout=20000)  # the run carries on
    assert window.state == "running" and not window.last_error and not window.document.dirty


def test_an_edit_is_autosaved_to_the_recovery_file_and_the_model_file_is_untouched(qtbot, make_window, tmp_path):
    path = _saved_model(tmp_path)
    before = fingerprint(path)
    window = make_window(load_model(path), str(path))
    window.autosave.debounce.setInterval(20)
    _edit_mass(window, 4.0)
    recovery_file = window.autosave.path
    qtbot.waitUntil(lambda: os.path.exists(recovery_file), timeout=5000)
    assert load_model(recovery_file) == window.model
    assert os.path.dirname(recovery_file).startswith(str(tmp_path / "config"))  # beside the settings
    assert fingerprint(path) == before
    assert window.autosave.periodic.isActive() and window.autosave.periodic.interval() == 30_000


def test_saving_removes_the_recovery_file(qtbot, make_window, tmp_path):
    path = _saved_model(tmp_path)
    window = make_window(load_model(path), str(path))
    _edit_mass(window, 4.0)
    assert window.autosave.write_now() and os.path.exists(window.autosave.path)
    assert window.files.save()
    assert not os.path.exists(window.autosave.path)


def _leave_recovery_file(settings_store, path, mass: float):
    """What a crashed session leaves: the model file and, newer, its recovery file."""
    directory = recovery.recovery_directory(settings_store)
    os.makedirs(directory, exist_ok=True)
    model = load_model(path)
    edited = replace(model, bodies=(replace(model.bodies[0], mass=mass),) + model.bodies[1:])
    target = recovery.recovery_path(directory, str(path))
    save_model(edited, target)
    os.utime(target, (os.path.getmtime(path) + 5,) * 2)
    return target, edited


def test_after_a_crash_the_window_offers_the_edits_and_restores_them(qtbot, make_window, settings_store, tmp_path):
    path = _saved_model(tmp_path)
    before = fingerprint(path)
    target, edited = _leave_recovery_file(settings_store, path, 7.0)
    assert edited.body("upper").mass == 7.0
    asked = []
    window = make_window(load_model(path), str(path))
    window.confirm_restore = lambda p: asked.append(p) or True
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert asked == [target]
    assert window.model == edited and window.document.dirty and window.document.path == str(path)
    assert fingerprint(path) == before  # restored into the window, not onto the file
    window.edits.act_undo.trigger()  # the restore is one undoable edit
    assert window.model == load_model(path)


def test_a_declined_offer_keeps_the_file_model_and_drops_the_recovery_file(qtbot, make_window, settings_store,
                                                                          tmp_path):
    path = _saved_model(tmp_path)
    target, _ = _leave_recovery_file(settings_store, path, 7.0)
    asked = []
    window = make_window(load_model(path), str(path))
    window.confirm_restore = lambda p: asked.append(p) and False
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert window.model == load_model(path) and not window.document.dirty
    assert not os.path.exists(target)


def test_a_recovery_file_older_than_the_model_is_not_offered(qtbot, make_window, settings_store, tmp_path):
    path = _saved_model(tmp_path)
    target, _ = _leave_recovery_file(settings_store, path, 7.0)
    os.utime(path, (os.path.getmtime(target) + 5,) * 2)  # saved after the autosave: nothing lost
    asked = []
    window = make_window(load_model(path), str(path))
    window.confirm_restore = lambda p: asked.append(p) or True
    qtbot.wait(100)
    assert not asked and window.model == load_model(path)


def test_a_normal_close_removes_the_recovery_file(qtbot, make_window, tmp_path):
    path = _saved_model(tmp_path)
    window = make_window(load_model(path), str(path))
    _edit_mass(window, 4.0)
    assert window.autosave.write_now()
    recovery_file = window.autosave.path
    window.close()  # confirm_discard answers "discard"
    assert not os.path.exists(recovery_file)
