"""The deriver's numbers (gui.equations.equations_render.numeric_snapshot): at the start without an
integrator, the same page as at a run's first sample."""
from __future__ import annotations

import subprocess
import sys

import pytest

from eomlab.engine.methods import METHODS
from eomlab.engine.modelfile.reading import load_model
from eomlab.engine.simulation import Simulation
from eomlab.gui.equations.equations_render import numeric_snapshot
from project_paths import ROOT

FOUR_BAR = ROOT / "assets" / "models" / "four_bar.eom.json"


@pytest.mark.parametrize("method", METHODS)
def test_the_numbers_at_the_start_are_the_runs_first_sample(method):
    """The four-bar's start is projected onto its closure as a run's is: the same matrices, to the digit shown."""
    model = load_model(FOUR_BAR)
    simulation = Simulation(model, method=method)
    at_first_sample = numeric_snapshot(model, method, (simulation.columns, simulation.samples()[0]))
    assert numeric_snapshot(model, method, None) == at_first_sample


def test_the_numbers_at_the_start_load_no_integrator():
    probe = ("import sys; from eomlab.engine.modelfile.reading import load_model; "
             "from eomlab.gui.equations.equations_render import numeric_snapshot; "
             f"numeric_snapshot(load_model({str(FOUR_BAR)!r}), 'kane', None); "
             "print('scipy.integrate' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
