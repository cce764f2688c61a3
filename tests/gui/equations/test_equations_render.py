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


def test_the_typesetter_works_out_the_numbers_when_no_formula_waits():
    """The top's formulas first, then the numbers; a page that came (drop "numbers") takes them away."""
    from eomlab.gui.equations.equations_render import Jobs

    jobs = Jobs()
    model = load_model(FOUR_BAR)
    jobs.take(("numbers", 1, model, "kane", None))
    jobs.take(("typeset", 1, "top", (0, "x"), "x"))
    assert not jobs.idle and [job[0] for job in jobs.waiting] == ["typeset"]  # served before the numbers
    jobs.take(("numbers", 2, model, "kane", None))
    jobs.take(("drop", 1, "numbers"))
    assert [job[1] for job in jobs.numbers] == [2] and len(jobs.waiting) == 1
    jobs.take(("drop", 2, None))
    jobs.take(("drop", 1, None))
    assert jobs.idle


def test_the_typesetter_sends_the_numbers_page():
    from eomlab.gui.equations.equations_render import numbers_answer

    sent = []
    numbers_answer(("numbers", 4, load_model(FOUR_BAR), "maggi", None), type("R", (), {"put": lambda _s, m: sent.append(m)})())
    assert [(kind, generation) for kind, generation, _page in sent] == [("numbers", 4)]
    assert sent[0][2]["formulas"][0].startswith("M = \\left[\\begin{matrix}")


def test_the_numbers_show_rounding_left_over_as_zero():
    """The four-bar's A at the start held 4.441·10⁻¹⁶ beside −1.5 and −4: shown as 0; a matrix of small
    numbers keeps them."""
    import numpy as np

    from eomlab.engine.symbolic.page_blocks import number_matrix_latex

    assert number_matrix_latex(np.array([[4.441e-16, -1.5], [-4.0, -0.2864]])) == \
        r"\left[\begin{matrix}0 & -1.5 \\ -4 & -0.2864\end{matrix}\right]"
    assert number_matrix_latex(np.array([1e-20, 2e-20])) == r"\left[\begin{matrix}1 \cdot 10^{-20} \\ 2 \cdot 10^{-20}\end{matrix}\right]"
