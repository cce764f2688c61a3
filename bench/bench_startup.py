"""Start-up: how long a fresh process takes before it does its job (issue #30 item 4, #27's speed line).

    .venv/bin/python bench/bench_startup.py [--repeat 5] [--only NAME ...]

Each figure is the median of --repeat fresh processes (wall seconds from starting the process; CPU
seconds of the child, user + system), printed with `uptime`'s load average, since the machine is
shared. Measurement, never a test.

- import: `python -c "import eomlab.cli"`.
- run: `eomlab run double_compound_pendulum.eom.json --t-end 0.1 --output -` (to /dev/null).
- linearize: `eomlab linearize` on a 50-link planar chain (the preset, saved to a file) about its
  equilibrium.
- first_frame: `eomlab gui` as the command opens it (gui/app.run_gui, the default model, running),
  from starting the process to the first paint of the scene's viewport that shows the mechanism;
  also the window process's own CPU seconds at that paint, and the first paint that shows the run
  moving (t > 0: the first run's motion), after which the window closes. Needs a DISPLAY or xvfb-run.
- first_frame_file, first_frame_four_bar: the same on the shipped double_compound_pendulum.eom.json and
  four_bar.eom.json (constrained: its first frame is the assembled pose).

Byte code: the children write and read theirs under one temporary PYTHONPYCACHEPREFIX, filled by one
untimed launch first (as an installed eomlab has its .pyc files; PYTHONDONTWRITEBYTECODE in the
environment would have every launch compile the sources again). `--root DIR` measures another
checkout (e.g. a worktree of main, for a before/after) with the same interpreter.
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
        if event.type() != QEvent.Paint:
            return False
        frame = getattr(self.window.scene, "frame", None)
        if frame is not None and "frame" not in seen:
            seen["frame"], seen["cpu"] = time.time(), time.process_time()
        if frame is not None and frame.t > 0 and "motion" not in seen:
            seen["motion"] = time.time()
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
    QTimer.singleShot(60_000, window.close)  # no motion in a minute: give up (reported as missing)

main_window.MainWindow.show = show
import eomlab.cli
eomlab.cli.main(["gui", *sys.argv[1:]])
print(json.dumps(seen))
"""


def uptime() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


#: the checkout measured (--root) and the children's environment (byte code under one prefix)
SOURCE = ROOT
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=SOURCE, env=ENV, timeout=600)
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


def first_frame(*model: str) -> tuple[float, float, float, float]:
    """(wall s to the first frame, CPU s of the child, the window's own CPU s at that frame, wall s to the
    first frame of motion)."""
    start = time.time()
    _wall, cpu, out = timed([*display_prefix(), PYTHON, "-c", FIRST_FRAME, *model])
    seen = json.loads(out.strip().splitlines()[-1])
    if "frame" not in seen:
        raise SystemExit("the window closed before drawing the mechanism")
    return seen["frame"] - start, cpu, seen["cpu"], seen.get("motion", float("nan")) - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", choices=["import", "run", "linearize", "first_frame", "first_frame_file",
                                                      "first_frame_four_bar"])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    global SOURCE
    SOURCE = args.root.resolve()
    directory = tempfile.mkdtemp()
    ENV["PYTHONPYCACHEPREFIX"] = os.path.join(directory, "pycache")
    chain = chain_file(directory)
    models = ROOT / "assets" / "models"
    model = str(models / "double_compound_pendulum.eom.json")
    cases = {
        "import": lambda: timed([PYTHON, "-c", "import eomlab.cli"])[:2],
        "run": lambda: timed([PYTHON, "-m", "eomlab", "run", model, "--t-end", "0.1", "--out",
                              os.path.join(directory, "out.csv")])[:2],
        "linearize": lambda: timed([PYTHON, "-m", "eomlab", "linearize", chain, "--about", "equilibrium"])[:2],
        "first_frame": first_frame,
        "first_frame_file": lambda: first_frame(model),
        "first_frame_four_bar": lambda: first_frame(str(models / "four_bar.eom.json")),
    }
    for name in args.only or cases:
        cases[name]()  # untimed: byte code written, files in the page cache
        load_before = uptime()
        figures = list(zip(*(cases[name]() for _ in range(args.repeat))))
        walls, cpus = figures[0], figures[1]
        more = ""
        if len(figures) > 2:
            more = (f"  window cpu at frame {statistics.median(figures[2]):.2f} s  first motion "
                    f"{statistics.median(figures[3]):.2f} s")
        print(f"{name:12s} wall {statistics.median(walls):.2f} s  cpu {statistics.median(cpus):.2f} s{more}  "
              f"(median of {args.repeat}; walls {' '.join(f'{w:.2f}' for w in walls)}; load {load_before} → {uptime()})",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
