"""`eomlab run`: CSV exactly as the contract says; bad input → exit 2, one line, nothing written."""
import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from eomlab.cli import main
from eomlab.engine.methods import METHODS

from project_paths import ROOT
ASSETS = ROOT / "assets" / "models"


def good_model():
    return json.loads((ASSETS / "double_compound_pendulum.eom.json").read_text())


def test_csv_columns_follow_the_contract(tmp_path, capsys):
    out = tmp_path / "dp.csv"
    assert main(["run", str(ASSETS / "four_bar.eom.json"), "--t-end", "0.05", "--out", str(out)]) == 0
    with open(out) as fh:
        header = next(csv.reader(fh))
    assert header[0] == "t"
    body_cols = [c for c in header if c.endswith((".x", ".y", ".z"))]
    assert body_cols[:3] == ["crank.x", "crank.y", "crank.z"]
    i = header.index("T")
    assert header[i:i + 5] == ["T", "V", "E", "drift_pos", "drift_vel"]
    assert all(c.startswith("lambda_") for c in header[i + 5:]) and len(header) > i + 5
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert data.shape[0] == 6 and abs(data[-1, 0] - 0.05) < 1e-12


def test_stdout_without_out(capsys):
    assert main(["run", str(ASSETS / "simple_pendulum.eom.json"), "--t-end", "0.02", "--dt-out", "0.01"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split(",")[:3] == ["t", "bob_theta", "bob_theta_dot"]
    assert len(lines) == 4


def test_verbose_names_the_path_and_the_cost_and_the_path_taken_over_later(tmp_path, capsys):
    out = tmp_path / "p.csv"
    assert main(["run", str(ASSETS / "simple_pendulum.eom.json"), "--t-end", "0.1", "--out", str(out), "--verbose"]) == 0
    said = capsys.readouterr().err.strip().splitlines()
    assert said[0].startswith("kane: tree dynamics: ") and len(said[0]) > len("kane: tree dynamics: ")
    assert "right-hand sides" in said[-1] and "s per simulated second" in said[-1]
    from eomlab.commands.run_model import cost_line

    stats = {"rhs_evals": 120, "steps": 10, "wall_time": 0.5, "wall_per_sim_second": 0.05,
             "dynamics_path": "pinocchio + numba DOP853 step"}
    assert cost_line(stats, "pinocchio").endswith("; tree dynamics by the end: pinocchio + numba DOP853 step")
    assert "tree dynamics" not in cost_line(stats, "pinocchio + numba DOP853 step")


def test_method_all_writes_one_csv_per_formulation_and_they_agree(tmp_path):
    out = tmp_path / "fb.csv"
    assert main(["run", str(ASSETS / "four_bar.eom.json"), "--method", "all", "--t-end", "0.5",
                 "--rtol", "1e-11", "--atol", "1e-11", "--out", str(out)]) == 0
    tables = {m: np.loadtxt(tmp_path / f"fb.{m}.csv", delimiter=",", skiprows=1) for m in METHODS}
    ref = tables["lagrange"]
    for m, table in tables.items():
        assert table.shape == ref.shape
        assert np.max(np.abs(table[:, 1:7] - ref[:, 1:7])) < 1e-7, m


def _mutations():
    """(name, change to the double pendulum's JSON text or dict, path substring, message substring)."""
    def body(i, **kv):
        def f(d):
            d["bodies"][i].update(kv)
            return d
        return f

    def joint(i, **kv):
        def f(d):
            d["bodies"][i]["joint"].update(kv)
            return d
        return f

    def force(value):
        def f(d):
            d["forces"] = [{"type": "body_torque", "body": "upper", "value": value}]
            return d
        return f

    return [
        ("nan", lambda t: t.replace('"mass": 1.0', '"mass": NaN', 1), "bodies[0].mass", "finite"),
        ("infinity", lambda t: t.replace('"mass": 1.0', '"mass": Infinity', 1), "bodies[0].mass", "finite"),
        ("huge", lambda t: t.replace('"mass": 1.0', '"mass": 1e400', 1), "bodies[0].mass", "finite"),
        ("negative mass", body(1, mass=-2.0), "bodies[1].mass", ">= 0"),
        ("triangle", body(0, inertia=[1.0, 1.0, 5.0]), "bodies[0].inertia", "triangle"),
        ("unknown parent", body(1, parent="nowhere"), "bodies[1].parent", "nowhere"),
        ("cycle", lambda d: (d["bodies"][0].update(parent="lower"), d)[1], "parent", "cycle"),
        ("duplicate", body(1, name="upper"), "bodies[1].name", "upper"),
        ("unknown field", lambda d: (d.update(colour="red"), d)[1], "colour", "unknown field"),
        ("nested unknown", joint(0, spring=3), "bodies[0].joint.spring", "unknown field"),
        ("wrong type", body(0, mass="heavy"), "bodies[0].mass", "number"),
        ("bool", body(0, mass=True), "bodies[0].mass", "number"),
        ("zero axis", joint(0, axis=[0, 0, 0]), "bodies[0].joint.axis", "zero"),
        ("joint type", joint(0, type="hinge"), "bodies[0].joint.type", "hinge"),
        ("q0 length", joint(0, q0=[1.0, 2.0]), "bodies[0].joint.q0", "1"),
        ("import", force(["__import__('os').system('touch /tmp/eomlab_pwned')", "0", "0"]), "forces[0].value", ""),
        ("dunder", force(["().__class__", "0", "0"]), "forces[0].value", ""),
        ("unknown name", force(["foo", "0", "0"]), "forces[0].value", "foo"),
        ("method", lambda d: (d["settings"].update(method="newton"), d)[1], "settings.method", "newton"),
    ]


def cli_run(arguments: list[str], in_process: bool) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `eomlab ARGUMENTS`: in a process of its own, or through
    cli.main in this one (the same code without the second of interpreter start-up), where a
    warning the real process would print to stderr counts as a line of stderr."""
    if not in_process:
        proc = subprocess.run([sys.executable, "-m", "eomlab", *arguments], capture_output=True, text=True,
                              cwd=ROOT, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("default")  # what a process shows: DeprecationWarning & co. outside __main__ are not
        status = main(arguments)
    shown = [w for w in caught if not issubclass(w.category, HIDDEN_BY_DEFAULT)]
    return status, out.getvalue(), err.getvalue() + "".join(f"{w.category.__name__}: {w.message}\n" for w in shown)


#: warnings Python's default filters do not print (outside __main__)
HIDDEN_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def _bad_file_cases():
    """Every mutation through cli.main; the first in its own process too, every one in its own
    process in make test-all (slow)."""
    for i, (name, *rest) in enumerate(_mutations()):
        yield pytest.param(name, *rest, True, id=f"{name}-main")
        yield pytest.param(name, *rest, False, id=f"{name}-process", marks=() if i == 0 else pytest.mark.slow)


@pytest.mark.parametrize("name,change,path,message,in_process", list(_bad_file_cases()))
def test_bad_files_exit_2_with_one_line(tmp_path, name, change, path, message, in_process):
    text = (ASSETS / "double_compound_pendulum.eom.json").read_text()
    try:
        data = change(json.loads(text))
        text = json.dumps(data)
    except (TypeError, AttributeError):
        text = change(text)
    bad = tmp_path / "bad.eom.json"
    bad.write_text(text)
    out = tmp_path / "out.csv"
    before = sorted(os.listdir(tmp_path))
    status, stdout, stderr = cli_run(["run", str(bad), "--out", str(out)], in_process)
    assert status == 2
    assert stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    assert "bad.eom.json" in lines[0] and path in lines[0] and message in lines[0]
    assert sorted(os.listdir(tmp_path)) == before  # nothing written
    assert not os.path.exists("/tmp/eomlab_pwned")


def test_unreadable_file_and_bad_option():
    proc = subprocess.run([sys.executable, "-m", "eomlab", "run", "/nonexistent/x.eom.json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    proc = subprocess.run([sys.executable, "-m", "eomlab", "run", str(ASSETS / "four_bar.eom.json"),
                           "--t-end", "-3"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "t-end" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
