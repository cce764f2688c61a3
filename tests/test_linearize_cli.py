"""`eomlab linearize`: the JSON shape of the issue, --vary's crossings, bad input as one line and exit 2."""
from __future__ import annotations

import csv
import io
import json
import math
import re

import pytest

from eomlab.cli import main

from project_paths import ROOT
ASSETS = ROOT / "assets" / "models"


def test_json_has_the_issue_shape(capsys):
    assert main(["linearize", str(ASSETS / "benchmark_bicycle.eom.json"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("eigenvalues", "coordinates", "A", "M", "C", "K", "modes", "cyclic"):
        assert key in data
    assert data["coordinates"] == ["roll", "steer"]
    assert len(data["eigenvalues"]) == 4 and set(data["eigenvalues"][0]) == {"re", "im"}
    assert len(data["A"]) == 4 and len(data["M"]) == 2
    assert set(data["cyclic"]) == {"x", "y", "yaw", "rear_wheel_theta", "front_wheel_theta"}
    # at 5 m/s the benchmark bicycle is self-stable (Meijaard et al. 2007, Table 3)
    assert all(e["re"] < 0 for e in data["eigenvalues"])
    assert {"frequency_hz", "damping_ratio", "shape"} <= set(data["modes"][0])


def test_vary_finds_the_critical_spin_of_the_sleeping_top(capsys):
    """ω_c² = 4 m g l I₁ / I₃² (I₁ about the tip) to 1e-6 relative, from the command line."""
    assert main(["linearize", str(ASSETS / "sleeping_top.eom.json"), "--vary", "top_wz=50:150:5",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    m, l, r = 0.5, 0.05, 0.04
    i1, i3 = 0.25 * m * r * r + m * l * l, 0.5 * m * r * r
    critical = math.sqrt(4 * m * 9.81 * l * i1 / i3 ** 2)
    assert [c["becomes"] for c in data["crossings"]] == ["stable"]
    assert data["crossings"][0]["value"] == pytest.approx(critical, rel=1e-6)
    assert len(data["values"]) == 5 and len(data["eigenvalues"]) == 5


def test_csv_and_text_and_picture(capsys, tmp_path):
    model = str(ASSETS / "double_pendulum_points.eom.json")
    assert main(["linearize", model, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 4 and float(rows[0]["re"]) == pytest.approx(0.0, abs=1e-10)
    picture = tmp_path / "modes.png"
    assert main(["linearize", model, "--plot", str(picture)]) == 0
    text = capsys.readouterr().out
    assert "stable" in text and "K (upper_theta, lower_theta):" in text
    assert picture.stat().st_size > 1000


@pytest.mark.parametrize("argv, field", [
    (["--vary", "speed=1:2"], "--vary speed"),
    (["--vary", "nosuch=1:2:3"], "--vary nosuch"),
    (["--plot", "x.txt"], "--plot"),
    ([], "--about initial"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, field):
    model = "double_pendulum_points" if argv else "double_compound_pendulum"
    assert main(["linearize", str(ASSETS / f"{model}.eom.json"), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and re.match(r"eomlab: .*\.eom\.json: ", lines[0])


def test_speed_is_refused_where_nothing_moves(capsys):
    assert main(["linearize", str(ASSETS / "double_pendulum_points.eom.json"), "--vary", "speed=0:1:3"]) == 2
    assert "no forward speed" in capsys.readouterr().err


def test_readme_linearization_example():
    import doctest

    pytest.importorskip("pandas")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Linearization: modes and stability\n(.*?)^## ", text, re.S | re.M).group(1)
    test = doctest.DocTestParser().get_doctest(section, {}, "README.md#linearization", "README.md", 0)
    assert len(test.examples) >= 8
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def _modules_after_the_command(tmp_path, args, which: str) -> str:
    """cli.main(args) in a fresh interpreter, then its exit status and `which` (an expression over
    sys.modules) printed: what the command loaded."""
    import os
    import subprocess
    import sys

    code = ("import sys, io, contextlib\n"
            "from eomlab.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = main(sys.argv[1:])\n"
            f"print(status, {which})")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("EOMLAB_FAST_PATH", None)
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)
    return proc.stdout.strip() or proc.stderr


def test_the_command_never_loads_the_window(tmp_path):
    """cli.main in a fresh interpreter, then sys.modules: nothing of the window, Qt or pyqtgraph."""
    model = str(ASSETS / "sleeping_top.eom.json")
    for args in (["linearize", model], ["linearize", model, "--vary", "top_wz=60:140:3", "--plot",
                                        str(tmp_path / "v.png")]):
        assert _modules_after_the_command(tmp_path, args, "sorted(m for m in sys.modules if m.startswith(("
                                          "'eomlab.gui', 'PySide6', 'pyqtgraph')))") == "0 []"


def test_a_free_tree_is_linearized_without_loading_scipy_linalg(tmp_path):
    """A chain of revolutes on the compiled path (pinocchio's ABA) factors no matrix: the command does
    not wait ~0.15 s for scipy.linalg (its array-API layer loads numpy.testing and numpy.f2py)."""
    pytest.importorskip("pinocchio")
    args = ["linearize", str(ASSETS / "planar_chain.eom.json"), "--about", "equilibrium"]
    assert _modules_after_the_command(tmp_path, args, "[m for m in ('scipy.linalg._basic', 'numpy.f2py') "
                                                      "if m in sys.modules]") == "0 []"
