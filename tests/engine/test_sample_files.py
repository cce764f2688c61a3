"""engine.sample_files: the one CSV writer (round trip bit for bit, atomic), npz and parquet, and
`eomlab run --format`."""
from __future__ import annotations

import io
import os

import numpy as np
import pytest

from eomlab.cli import main
from eomlab.engine import sample_files
from eomlab.engine.sample_files import CsvWriter, NpzWriter, open_writer

COLUMNS = ["t", "x", "y.z"]


def awkward_rows(n=50):
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((n, 3)) * 10.0 ** rng.integers(-300, 300, size=(n, 3))
    rows[0] = [0.1, 1 / 3, -0.0]
    rows[1] = [5e-324, 1.7976931348623157e308, np.nextafter(1.0, 2.0)]
    return rows


def test_csv_round_trips_every_double(tmp_path):
    rows = awkward_rows()
    path = tmp_path / "s.csv"
    with CsvWriter(path, COLUMNS) as out:
        out.write(rows[:10])
        out.write(rows[10:])
        assert not path.exists()  # appears whole, at the end
    assert path.read_text().splitlines()[0] == "t,x,y.z"
    back = np.loadtxt(path, delimiter=",", skiprows=1)
    assert back.tobytes() == rows.tobytes()
    assert [p for p in os.listdir(tmp_path) if p.startswith(".eomlab-")] == []


def test_csv_writer_leaves_nothing_on_error(tmp_path):
    path = tmp_path / "s.csv"
    with pytest.raises(KeyboardInterrupt):
        with CsvWriter(path, COLUMNS) as out:
            out.write(awkward_rows())
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_csv_to_a_stream():
    out = io.StringIO()
    with open_writer("csv", out, COLUMNS) as writer:
        writer.write(np.array([[0.0, 1.0, 2.5]]))
    assert out.getvalue() == "t,x,y.z\n0.0,1.0,2.5\n" and writer.rows_written == 1


def test_npz_one_array_per_column(tmp_path):
    rows = awkward_rows()
    path = tmp_path / "s.npz"
    with NpzWriter(path, COLUMNS) as out:
        for k in range(0, len(rows), 7):
            out.write(rows[k:k + 7])
    with np.load(path) as data:
        assert sorted(data.files) == sorted(COLUMNS)
        for k, name in enumerate(COLUMNS):
            assert data[name].tobytes() == rows[:, k].copy().tobytes()
    assert os.listdir(tmp_path) == ["s.npz"]


def test_parquet(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    rows = awkward_rows()
    path = tmp_path / "s.parquet"
    with open_writer("parquet", path, COLUMNS) as out:
        out.write(rows[:20])
        out.write(rows[20:])
    table = pq.read_table(path)
    assert table.column_names == COLUMNS
    assert np.array_equal(np.column_stack([table[c].to_numpy() for c in COLUMNS]), rows)


def test_run_formats_agree(tmp_path, capsys):
    model = "assets/models/double_compound_pendulum.eom.json"
    csv, npz = tmp_path / "dp.csv", tmp_path / "dp.npz"
    assert main(["run", model, "--t-end", "0.5", "--out", str(csv)]) == 0
    assert main(["run", model, "--t-end", "0.5", "--out", str(npz)]) == 0  # format from the extension
    table = np.loadtxt(csv, delimiter=",", skiprows=1)
    header = csv.read_text().splitlines()[0].split(",")
    with np.load(npz) as data:
        assert np.array_equal(np.column_stack([data[c] for c in header]), table)
    assert capsys.readouterr().err == ""  # no progress bar when stderr is not a terminal


def test_run_npz_needs_a_file(capsys):
    assert main(["run", "assets/models/simple_pendulum.eom.json", "--format", "npz"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--format npz writes a file: give --out FILE.npz" in err


def test_run_parquet_without_pyarrow(tmp_path, capsys, monkeypatch):
    def missing():
        raise sample_files.MissingPackage("parquet output needs pyarrow: pip install pyarrow")

    monkeypatch.setattr("eomlab.commands.run_model.pyarrow_modules", missing)
    out = tmp_path / "x.parquet"
    assert main(["run", "assets/models/simple_pendulum.eom.json", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "eomlab: --format: parquet output needs pyarrow: pip install pyarrow"
    assert not out.exists()


def test_progress_bar_on_a_terminal(monkeypatch, capsys, tmp_path):
    from eomlab.commands import run_model as run

    monkeypatch.setattr(run, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert main(["run", "assets/models/simple_pendulum.eom.json", "--t-end", "2", "--out",
                 str(tmp_path / "p.csv")]) == 0
    err = capsys.readouterr().err
    assert "\r[" in err and "100%  t = 2 / 2 s" in err and err.endswith("\n")
    assert main(["run", "assets/models/simple_pendulum.eom.json", "--t-end", "2", "--quiet", "--out",
                 str(tmp_path / "p.csv")]) == 0
    assert capsys.readouterr().err == ""


def test_run_to_a_missing_folder_is_one_line(tmp_path, capsys):
    out = tmp_path / "no" / "such" / "dir.csv"
    assert main(["run", "assets/models/simple_pendulum.eom.json", "--t-end", "0.1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out: cannot write {out}: No such file or directory" in err


def test_no_samples_writes_the_header_only(tmp_path):
    with CsvWriter(tmp_path / "e.csv", []) as out:  # the window with nothing run yet
        out.write(np.zeros((0, 0)))
    assert (tmp_path / "e.csv").read_text() == "\n" and out.rows_written == 0
