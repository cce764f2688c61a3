"""scipy.integrate and scipy.optimize load when a path needs them, not with the command line
(issue #30, start-up): checked on sys.modules in a fresh interpreter, not by timing."""
import json
import subprocess
import sys

import pytest
from project_paths import ROOT

LATER = ("scipy.integrate", "scipy.optimize")

PROBE = r"""
import json, sys
later = {later!r}
loaded = lambda: [name for name in later if name in sys.modules]
seen = {{}}
import eomlab.cli
eomlab.cli.build_parser()  # every subcommand's module, as `eomlab ...` imports them
from eomlab.engine.modelfile import load_model
from eomlab.engine.simulation import Simulation
import eomlab.engine.formulations
import eomlab.engine.linearize.vary  # Analyze ▸ Stability imports it with the window
import eomlab.gui.main_window  # the window's imports too
model = load_model(sys.argv[1])
seen["imports"] = loaded()
if sys.argv[2] == "linearize":
    from eomlab.engine.linearize import linearize
    linearize(model, about="equilibrium")
    seen["linearize"] = loaded()
else:
    sim = Simulation(model, t_end=0.05)  # builds the stepper
    seen["stepper"] = loaded()
    sim.run()
    assert sim.failure is None, sim.failure
print(json.dumps(seen))
"""


def _loaded(model: str, path: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE.format(later=LATER), str(ROOT / "assets" / "models" / model), path],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("model", ["double_compound_pendulum.eom.json", "four_bar.eom.json"])
def test_the_run_path_imports_scipy_integrate_only_when_it_builds_a_stepper(model):
    seen = _loaded(model, "run")
    assert seen["imports"] == []  # the command line, the window, the model and the formulations: neither module
    assert "scipy.integrate" in seen["stepper"]  # a stepper is scipy's OdeSolver (or the compiled DOP853)


def test_linearize_never_imports_scipy_integrate():
    assert "scipy.integrate" not in _loaded("planar_chain.eom.json", "linearize")["linearize"]
