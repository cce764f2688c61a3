"""The window's responsiveness: launch → first drawn frame, and the GUI thread's frame interval
while a 20-link chain runs as fast as possible.

    .venv/bin/python bench/bench_gui.py [--links 20] [--seconds 8]

Runs the window in a child process on a real X display (an existing DISPLAY, else xvfb-run) so
painting is real; prints a table and appends it to bench/README.md with --write. Measurement,
never a test.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
t_start = time.time()
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
from engine.presets import preset
from gui.main_window import MainWindow, SPEEDS

links, seconds = int(sys.argv[1]), float(sys.argv[2])
app = QApplication(sys.argv[:1])
window = MainWindow(preset("planar_chain", n=links, angles=[0.5] * links), None, run=False)
window.confirm_discard = lambda: True
window.confirm_restore = None
paints = []

class PaintClock(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint:
            paints.append(time.perf_counter())
        return False

clock = PaintClock()
target = window.scene.viewport() if hasattr(window.scene, "viewport") else window.scene
target.installEventFilter(clock)
first_frame = []

def first():
    if not first_frame:
        first_frame.append(time.time())

window.show()
QTimer.singleShot(0, first)
window.set_speed(SPEEDS[-1][1])
window.run()
t_run = time.perf_counter()

def finish():
    window.close()
    inside = [p for p in paints if p > t_run + 1.0]  # skip the first second (set-up)
    gaps = [b - a for a, b in zip(inside, inside[1:])]
    sim_t = max((h.series.buffer.latest_time() if hasattr(h.series.buffer, "latest_time") else float("nan"))
                for h in window.runs if h.series is not None) if window.runs else float("nan")
    print(json.dumps({"t_start": t_start, "first_frame": first_frame[0] if first_frame else None,
                      "gaps": gaps, "sim_t": sim_t}))
    app.quit()

QTimer.singleShot(int(seconds * 1000), finish)
app.exec()
"""


def display_prefix() -> list[str]:
    if os.environ.get("DISPLAY"):
        return []
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"]
    raise SystemExit("needs a DISPLAY or xvfb-run")


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def measure(links: int, seconds: float) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(CHILD)
        script = fh.name
    try:
        t_launch = time.time()
        proc = subprocess.run([*display_prefix(), sys.executable, script, str(links), str(seconds)],
                              capture_output=True, text=True, cwd=ROOT, timeout=seconds + 120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.unlink(script)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not line:
        raise SystemExit(f"child failed: {proc.stderr[-2000:]}")
    data = json.loads(line[-1])
    gaps_ms = [g * 1e3 for g in data["gaps"]]
    return {
        "links": links,
        "launch_to_first_frame_s": data["first_frame"] - t_launch if data["first_frame"] else float("nan"),
        "frames": len(gaps_ms) + 1,
        "p50_ms": percentile(gaps_ms, 50),
        "p95_ms": percentile(gaps_ms, 95),
        "max_ms": max(gaps_ms) if gaps_ms else float("nan"),
    }


def table(result: dict) -> str:
    ok_frame = "met" if result["p95_ms"] <= 20 else "not met"
    ok_launch = "met" if result["launch_to_first_frame_s"] <= 2 else "not met"
    return "\n".join([
        f"| measurement ({result['links']}-link chain, as fast as possible) | value | target | status |",
        "| --- | --- | --- | --- |",
        f"| launch → first drawn frame | {result['launch_to_first_frame_s']:.2f} s | ≤ 2 s | {ok_launch} |",
        f"| frame interval p50 | {result['p50_ms']:.1f} ms | | |",
        f"| frame interval p95 | {result['p95_ms']:.1f} ms | ≤ 20 ms | {ok_frame} |",
        f"| frame interval max | {result['max_ms']:.1f} ms | | |",
        f"| frames measured | {result['frames']} | | |",
    ])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--links", type=int, default=20)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--write", action="store_true", help="append the table to bench/README.md")
    args = p.parse_args(argv)
    result = measure(args.links, args.seconds)
    text = table(result)
    print(text)
    if args.write:
        readme = ROOT / "bench" / "README.md"
        old = readme.read_text() if readme.exists() else ""
        marker = "## The window (bench_gui.py)"
        head = old.split(marker)[0].rstrip()
        load = os.getloadavg()[0]
        readme.write_text(f"{head}\n\n{marker}\n\nMeasured {time.strftime('%Y-%m-%d %H:%M')} under Xvfb, "
                          f"load average {load:.1f} on {os.cpu_count()} cores.\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
