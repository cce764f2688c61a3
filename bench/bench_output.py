"""Output benchmarks: the sample writers' throughput and `eomlab run`'s resident memory on a long run
(measurement, never a test; the slow test tests/engine/test_run_memory.py checks the 200 MB bound).

    .venv/bin/python bench/bench_output.py            # writers + 1000 s of the double pendulum at dt_out = 1e-3
    .venv/bin/python bench/bench_output.py --quick    # writers + 100 s

Prints a table; copy it into bench/README.md's hand-kept notes.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eomlab.engine.sample_files import CsvWriter, NpzWriter, ParquetWriter  # noqa: E402


def writers(rows: int = 100_000, columns: int = 17, batch: int = 2000) -> list[str]:
    data = np.random.default_rng(0).standard_normal((rows, columns))  # full 17-digit values: CSV's worst case
    names = [f"c{k}" for k in range(columns)]
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for writer, ext in ((CsvWriter, "csv"), (NpzWriter, "npz"), (ParquetWriter, "parquet")):
            path = os.path.join(folder, f"s.{ext}")
            start = time.perf_counter()
            with writer(path, names) as out:
                for k in range(0, rows, batch):
                    out.write(data[k:k + batch])
            seconds = time.perf_counter() - start
            lines.append(f"| {ext} | {rows / seconds:,.0f} | {os.path.getsize(path) / rows:.0f} |")
    return lines


def long_run(t_end: float) -> str:
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "dp.csv")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "eomlab", "run", str(ROOT / "assets/models/double_compound_pendulum.eom.json"),
                        "--t-end", str(t_end), "--dt-out", "1e-3", "--out", out, "--quiet"], check=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size = os.path.getsize(out) / 1e6
    return (f"| {t_end:g} s, dt_out = 1e-3 ({t_end * 1000 + 1:,.0f} samples) | {seconds:.0f} s | {peak:.0f} MB | "
            f"{size:.0f} MB |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 s instead of 1000 s")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| format | rows/s (17 columns) | bytes/row |\n| --- | --- | --- |")
    print("\n".join(writers()))
    print("\n| `eomlab run` double pendulum | wall time | peak resident memory | CSV |\n| --- | --- | --- | --- |")
    print(long_run(100.0 if args.quick else 1000.0))


if __name__ == "__main__":
    main()
