"""`eomlab run` streams its samples: 10⁶ samples of the double pendulum stay under 200 MB resident."""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from project_paths import ROOT
LIMIT_MB = 200


@pytest.mark.slow
def test_million_samples_in_bounded_memory(tmp_path):
    out = tmp_path / "dp.csv"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "eomlab", "run", str(ROOT / "assets/models/double_compound_pendulum.eom.json"),
                    "--t-end", "1000", "--dt-out", "1e-3", "--out", str(out)], check=True, env=env, cwd=tmp_path)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # Linux: kB
    with open(out) as fh:
        rows = sum(1 for _ in fh) - 1
    assert rows == 1_000_001
    print(f"peak resident memory {peak_mb:.0f} MB for {rows} samples, {out.stat().st_size / 1e6:.0f} MB of CSV")
    assert peak_mb < LIMIT_MB
