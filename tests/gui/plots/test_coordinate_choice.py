"""gui/plots/coordinate_choice.py: the motion plot's coordinates and the phase portrait's, as a user picks them."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from eomlab.engine.presets import preset
from eomlab.gui.plots.coordinate_choice import MAX_MOTION_CURVES, CoordinateChoice

CHAIN = SimpleNamespace(coordinate_names=[f"q{i}" for i in range(10)], speed_names=[f"q{i}_dot" for i in range(10)])


class Rows:
    """A run's series as the choice reads it: columns of a sample array by name."""

    def __init__(self, info):
        self.info = info

    def column(self, data, name):
        return data[:, self.info.coordinate_names.index(name)]


def made(qtbot) -> tuple[CoordinateChoice, list]:
    calls: list = []
    choice = CoordinateChoice(lambda: calls.append(1))
    qtbot.addWidget(choice.button)
    qtbot.addWidget(choice.phase_combo)
    return choice, calls


def test_the_first_three_until_chosen_and_kept_for_the_same_coordinates(qtbot):
    choice, _ = made(qtbot)
    model = preset("planar_chain")
    choice.offer(CHAIN, model)
    assert choice.chosen == ["q0", "q1", "q2"] and not choice.by_user
    choice.choose("q7", True)
    choice.offer(CHAIN, model)  # a new run of the same model keeps the user's choice
    assert choice.chosen == ["q0", "q1", "q2", "q7"] and choice.by_user
    choice.offer(SimpleNamespace(coordinate_names=["x"], speed_names=["x_dot"]), model)
    assert choice.chosen == ["x"] and not choice.by_user


def test_the_menu_offers_the_speeds_below_the_coordinates_and_caps_the_curves(qtbot):
    choice, calls = made(qtbot)
    choice.offer(CHAIN, preset("planar_chain"))
    actions = choice.menu.actions()
    names = [a.text() for a in actions if not a.isSeparator()]
    assert names == CHAIN.coordinate_names + CHAIN.speed_names
    assert [a.isSeparator() for a in actions].index(True) == len(CHAIN.coordinate_names)
    for name in CHAIN.coordinate_names:
        choice.choose(name, True)
    assert choice.chosen == CHAIN.coordinate_names[-MAX_MOTION_CURVES:] and len(calls) == 10
    choice.choose("q9", False)
    assert "q9" not in choice.chosen


def test_the_motion_picks_the_moving_coordinates_and_the_phase_portrait_once(qtbot):
    choice, _ = made(qtbot)
    model = preset("planar_chain")
    choice.offer(CHAIN, model)
    assert [choice.phase_combo.itemText(i) for i in range(choice.phase_combo.count())] == CHAIN.coordinate_names
    data = np.zeros((50, 10))
    data[:, 4] = np.linspace(0, 1, 50)
    data[:, 8] = np.linspace(0, 3, 50)
    assert choice.choose_moving(Rows(CHAIN), data, model)
    assert choice.chosen == ["q4", "q8"] and choice.phase_name == "q8" and choice.by_user


def test_each_control_beside_its_plot_only(qtbot):
    choice, _ = made(qtbot)
    choice.show_for(["motion"])
    assert not choice.button.isHidden() and choice.phase_combo.isHidden()
    choice.show_for(["phase", "energy"])
    assert choice.button.isHidden() and not choice.phase_combo.isHidden()
