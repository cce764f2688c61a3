"""Start-up: how long a fresh process takes before it does its job (issue #30 item 4, #27's speed line).

    .venv/bin/python bench/bench_startup.py [--repeat 5] [--only NAME ...]

Each figure is the median of --repeat fresh processes (wall seconds from starting the process; CPU
seconds of the child, user + system), printed with `uptime`'s load average, since the machine is
shared. Measurement, never a test.

- import: `python -c "import eomlab.cli"`.
- run: `eomlab run double_compound_pendulum.eom.json --t-end 0.1 --output -` (to /dev/null).
- linearize: `eomlab linearize` on a 50-link planar chain (the preset, saved to a file) about its
  equilibrium.
- first frame: `eomlab gui` as the command opens it (gui/app.run_gui, the default model, running),
  from starting the process to the first paint of the scene's viewport that shows the mechanism;
  the window closes at that paint. Needs a DISPLAY or xvfb-run.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

FIRST_FRAME = r"""
import json, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
import eomlab.gui.main_window as main_window

seen = {}

class PaintClock(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint and "frame" not in seen and getattr(self.window.scene, "frame", None) is not None:
            seen["frame"] = time.time()
            QTimer.singleShot(0, self.window.close)
        return False

shown = main_window.MainWindow.show
clock = PaintClock()

def show(window):
    clock.window = window
    window.confirm_discard = lambda: True
    window.confirm_restore = None
    target = window.scene.viewport() if hasattr(window.scene, "viewport") else window.scene
    target.installEventFilter(clock)
    shown(window)

main_window.MainWindow.show = show
import eomlab.cli
eomlab.cli.main(["gui"])
print(json.dumps(seen))
"""


def uptime() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def timed(argv: list[str], env=None) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def chain_file(directory: str) -> str:
    path = os.path.join(directory, "chain50.eom.json")
    subprocess.run([PYTHON, "-c", "import sys, eomlab; eomlab.save(eomlab.preset('planar_chain', n=50), sys.argv[1])", path],
                   check=True, cwd=ROOT)
    return path


def display_prefix() -> list[str]:
    if os.environ.get("DISPLAY"):
        return []
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"]
    raise SystemExit("needs a DISPLAY or xvfb-run")


def first_frame() -> tuple[float, float]:
    start = time.time()
    wall, cpu, out = timed([*display_prefix(), PYTHON, "-c", FIRST_FRAME])
    seen = json.loads(out.strip().splitlines()[-1])
    if "frame" not in seen:
        raise SystemExit("the window closed before drawing the mechanism")
    return seen["frame"] - start, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", choices=["import", "run", "linearize", "first_frame"])
    args = parser.parse_args()
    directory = tempfile.mkdtemp()
    chain = chain_file(directory)
    model = str(ROOT / "assets" / "models" / "double_compound_pendulum.eom.json")
    cases = {
        "import": lambda: timed([PYTHON, "-c", "import eomlab.cli"])[:2],
        "run": lambda: timed([PYTHON, "-m", "eomlab", "run", model, "--t-end", "0.1", "--out",
                              os.path.join(directory, "out.csv")])[:2],
        "linearize": lambda: timed([PYTHON, "-m", "eomlab", "linearize", chain, "--about", "equilibrium"])[:2],
        "first_frame": first_frame,
    }
    for name in args.only or cases:
        load_before = uptime()
        walls, cpus = zip(*(cases[name]() for _ in range(args.repeat)))
        print(f"{name:12s} wall {statistics.median(walls):.2f} s  cpu {statistics.median(cpus):.2f} s  "
              f"(median of {args.repeat}; walls {' '.join(f'{w:.2f}' for w in walls)}; load {load_before} → {uptime()})",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
