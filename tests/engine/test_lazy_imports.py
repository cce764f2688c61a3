"""sympy loads on first use: a model without expressions runs without it (0.3–0.4 s saved at
the window's start and in `eomlab run`); a model with one loads it and works as before."""
import subprocess
import sys

from project_paths import ROOT

PROBE = r"""
import sys
from eomlab.engine.modelfile import load_model
from eomlab.engine.simulation import Simulation
import eomlab.gui.main_window  # the window's imports too
sim = Simulation(load_model(sys.argv[1]), t_end=0.05)
sim.run()
assert sim.failure is None
print("sympy.core" in sys.modules)
"""


def _sympy_loaded(model: str) -> bool:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "assets" / "models" / model)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip() == "True"


def test_a_model_without_expressions_never_loads_sympy():
    assert not _sympy_loaded("double_compound_pendulum.eom.json")


def test_a_model_with_an_expression_loads_it_on_first_use():
    assert _sympy_loaded("driven_crank.eom.json")  # its prescribed motion is an expression
