"""Building, running and switching formulations in the window."""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.methods import METHODS
from eomlab.gui.editing.dialogs import ChainDialog

from gui_helpers import main_samples, relative_energy_drift, run_fast, wait_for_samples


def chain_from_dialog(links=3):
    dialog = ChainDialog()
    dialog.links.setValue(links)
    dialog.kind.setCurrentText("rod")
    dialog.angle.setValue(0.8)
    dialog._accept()
    assert dialog.result() == ChainDialog.Accepted and dialog.model is not None
    return dialog.model


def test_chain_dialog_run_fills_energy_plot_with_small_drift(qtbot, make_window):
    model = chain_from_dialog(3).with_settings(t_end=2.0)
    assert len(model.bodies) == 3
    window = make_window(model)
    run_fast(window)
    rows = wait_for_samples(qtbot, window, 150)
    window.redraw.tick()
    window.plots.refresh()
    energy_curve = window.runs[0].series.curves["E"]
    x, y = energy_curve.getData()
    # the curve is reduced to about 4 points per pixel column of its axis, whose span follows the run's
    # pace (gui/plots/plot_ranges.py): count what it covers, not its points
    assert x is not None and len(x) >= 40 and np.all(np.isfinite(y))
    assert x[0] == rows[0, 0] and x[-1] >= rows[149, 0]
    assert relative_energy_drift(window) < 1e-6
    assert rows[-1, 0] > rows[0, 0]


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_each_formulation_runs(qtbot, make_window, coordinates):
    window = make_window(chain_from_dialog(3).with_settings(t_end=0.5, coordinates=coordinates))
    run_fast(window)
    for method in METHODS:
        window.settings_bar.method_box.setCurrentIndex(window.settings_bar.method_box.findData(method))
        window.settings_bar.method_box.activated.emit(window.settings_bar.method_box.currentIndex())
        assert window.model.settings.method == method
        rows = wait_for_samples(qtbot, window, 40)
        assert window.runs[0].thread.model.settings.method == method
        assert len(rows) >= 40 and not window.last_error


def test_pause_step_reset(qtbot, make_window):
    window = make_window(chain_from_dialog(2).with_settings(t_end=5.0))
    qtbot.waitUntil(lambda: len(main_samples(window)) == 1, timeout=10000)  # the t = 0 sample
    window.step()
    qtbot.waitUntil(lambda: len(main_samples(window)) >= 2, timeout=5000)
    assert window.state == "paused"
    run_fast(window)
    wait_for_samples(qtbot, window, 50)
    window.pause()
    window.reset()
    assert window.state == "idle"
    qtbot.waitUntil(lambda: len(main_samples(window)) == 1, timeout=10000)
    assert main_samples(window)[0, 0] == 0.0


def test_edit_while_running_restarts_and_says_so(qtbot, make_window):
    window = make_window(chain_from_dialog(2).with_settings(t_end=50.0))
    window.set_speed(1.0)
    window.run()
    wait_for_samples(qtbot, window, 20)
    window.tree.select(("body", "link1"))
    assert window.inspector.set_value(("mass",), "3")
    assert window.model.bodies[0].mass == 3.0
    assert "afresh" in window.statusBar().currentMessage()
    assert window.state == "running"
    qtbot.waitUntil(lambda: window.runs[0].series is not None and len(window.runs[0].series.buffer) > 0, timeout=10000)
    assert main_samples(window)[0, 0] == 0.0


@pytest.mark.usefixtures("runs_end_at_t_end")
def test_compare_runs_every_formulation(qtbot, make_window):
    window = make_window(chain_from_dialog(2).with_settings(t_end=0.5))
    window.set_compare(True)
    run_fast(window)
    assert len(window.runs) == len(METHODS)
    qtbot.waitUntil(lambda: all(h.ended == "done" for h in window.runs), timeout=30000)
    assert {h.thread.model.settings.method for h in window.runs} == set(METHODS)


def test_the_status_bar_says_which_tree_dynamics_path_runs(qtbot, make_window):
    from eomlab.engine.compiled.tree_backend import fast_path_wanted

    window = make_window(chain_from_dialog(2).with_settings(t_end=1.0))
    run_fast(window)
    wait_for_samples(qtbot, window, 5)
    text = window.path_label.text()
    assert text.startswith("Tree dynamics: ")
    try:
        import pinocchio  # noqa: F401
        expected = "pinocchio" if fast_path_wanted() else "numpy (EOMLAB_FAST_PATH=0)"
    except ImportError:
        expected = "numpy (pinocchio not installed"
    assert text.removeprefix("Tree dynamics: ").startswith(expected)


@pytest.mark.compiled_path
def test_the_status_bar_says_when_the_compiled_step_takes_over(qtbot, make_window):
    """An unconstrained chain runs scipy's step until numba's kernels are loaded (about 1.4 s with a
    warm cache), then the compiled step: the status bar follows the run's own account of its path."""
    pytest.importorskip("numba")
    window = make_window(chain_from_dialog(2).with_settings(t_end=1e5))
    run_fast(window)
    # with a cold cache the kernels compile first, under a lock other processes of the suite may hold
    qtbot.waitUntil(lambda: "numba DOP853 step" in window.path_label.text(), timeout=240_000)  # (pytest-timeout: 300 s)
    assert window.runs[0].stats["dynamics_path"] in window.path_label.text()
