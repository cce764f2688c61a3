"""The Python API (eomlab.api): its doctests, the README's example, equality with `eomlab run`."""
from __future__ import annotations

import dataclasses
import doctest
import re
import sys

import numpy as np
import pytest

import eomlab
import eomlab.api
import eomlab.mechanics_api
from eomlab.cli import main
from eomlab.engine import sample_files

from project_paths import ROOT


@pytest.mark.parametrize("module", [eomlab, eomlab.api, eomlab.mechanics_api, sample_files], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0


def test_readme_api_example():
    pytest.importorskip("matplotlib")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Python API\n(.*?)^## ", text, re.S | re.M).group(1)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(section, {}, "README.md#python-api", "README.md", 0)
    assert len(test.examples) >= 8
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize("method", ["lagrange", "kane"])
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_simulate_equals_cli_csv_bit_for_bit(tmp_path, method, coordinates):
    path = tmp_path / "fb.eom.json"
    eomlab.save(eomlab.preset("four_bar"), path)
    out = tmp_path / "fb.csv"
    assert main(["run", str(path), "--method", method, "--coordinates", coordinates, "--t-end", "0.3",
                 "--out", str(out)]) == 0
    header = out.read_text().splitlines()[0].split(",")
    from_cli = np.loadtxt(out, delimiter=",", skiprows=1)
    result = eomlab.simulate(eomlab.load(path), method=method, coordinates=coordinates, t_end=0.3)
    assert header == result.columns
    assert from_cli.shape == result.data.shape
    assert np.array_equal(from_cli, result.data)  # bit for bit: repr round-trips every double
    # a model built in code (the preset itself, not its file) gives the same samples
    assert np.array_equal(eomlab.simulate(eomlab.preset("four_bar"), method=method, coordinates=coordinates,
                                          t_end=0.3).data, result.data)


def test_stream_batches_equal_simulate():
    model = eomlab.preset("double_compound_pendulum")
    run = eomlab.simulate(model, t_end=3.0, stream=True)
    assert isinstance(run, eomlab.Run)
    batches = list(eomlab.Run(model, t_end=3.0, batch_wall_time=0.0))  # a batch per step
    assert len(batches) > 10
    rows = np.concatenate([b.rows for b in batches])
    whole = eomlab.simulate(model, t_end=3.0)
    assert np.array_equal(rows, whole.data)
    assert np.array_equal(batches[3]["E"], batches[3].rows[:, whole.columns.index("E")])
    with pytest.raises(RuntimeError):
        iter(run).__next__() and list(run) and list(run)


def test_result_columns_and_failure():
    r = eomlab.simulate(eomlab.preset("simple_pendulum"), t_end=1.0, dt_out=0.25)
    assert np.allclose(r.t, [0, 0.25, 0.5, 0.75, 1.0], atol=1e-15)
    assert "bob_theta" in r and "nothing" not in r
    with pytest.raises(KeyError, match="no column 'nothing'"):
        r["nothing"]
    assert r.rhs_evals == r.stats["rhs_evals"] > 0 and r.wall_time > 0 and r.failure is None
    assert "simple" not in repr(r) and "5 samples" in repr(r)


def test_model_built_in_code():
    bob = eomlab.Body("bob", "ground", eomlab.Joint("revolute", q0=(0.5,)), mass=2.0, com=(1.0, 0.0, 0.0))
    model = eomlab.Model(name="code", bodies=(bob,), settings=eomlab.Settings(t_end=1.0))
    r = eomlab.simulate(model, method="lagrange")
    assert r.columns[1] == "bob_theta" and len(r) == 101
    # the preset measures from the downward vertical, this model from +x: θ_preset = θ + π/2
    same = eomlab.simulate(eomlab.preset("simple_pendulum", mass=2.0, theta0=0.5 + np.pi / 2), method="lagrange",
                           t_end=1.0)
    assert np.allclose(r["bob_theta"] + np.pi / 2, same["bob_theta"], atol=1e-8)
    with pytest.raises(eomlab.ModelError, match=r"bodies\[0\].mass"):
        eomlab.simulate(eomlab.Model(bodies=(bob.__class__("bob", "ground", bob.joint, mass=-1.0),)))


def test_blow_up_is_a_failure_with_samples():
    kick = eomlab.JointEffort("kick", "bob", ("1/(t - 0.5)**3",))  # infinite at t = 0.5 s
    model = dataclasses.replace(eomlab.preset("simple_pendulum"), forces=(kick,))
    r = eomlab.simulate(model, t_end=1.0)
    assert r.failure.startswith("run stopped at t = 0.49") and "blew up" in r.failure
    assert len(r) == 50 and r.t[-1] == pytest.approx(0.49)


def test_to_pandas(monkeypatch):
    pandas = pytest.importorskip("pandas")
    r = eomlab.simulate(eomlab.preset("cart_pendulum"), t_end=0.2)
    frame = r.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and list(frame.columns) == r.columns[1:]  # indexed by t
    assert frame.index.name == "t" and np.array_equal(frame.index.to_numpy(), r.t)
    assert np.array_equal(frame["E"].to_numpy(), r["E"]) and np.array_equal(frame.loc[r.t[3], "E"], r["E"][3])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas: pip install pandas"):
        r.to_pandas()


def test_equations_objects_and_text():
    model = eomlab.preset("simple_pendulum")
    eq = eomlab.equations(model, "kane")
    assert eq.speeds == ["bob_theta_dot"] and eq.mass_matrix.shape == (1, 1)
    assert "bob_theta" in eomlab.equations(model, "kane", fmt="text")


def test_import_is_light():
    # `import eomlab` (also the window's start) must not pull in sympy or the integrators
    import subprocess
    code = "import sys, eomlab; print(sorted(m for m in ('sympy', 'scipy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
