"""The 3-D view's cost per frame: placing the bodies (`show_frame`) and painting the GL view
(`paintGL`, finished with glFinish), for a chain of bars on ball joints of each length given.

    .venv/bin/python bench/bench_scene3d.py [--links 3 20] [--frames 60] [--size 1300x800]

Runs in a child process on a real X display (DISPLAY, else xvfb-run); under Xvfb the GL is Mesa's
software rasteriser, so painting is CPU time and grows with the pixels filled. Prints one table
row per chain. Measurement, never a test.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication
QCoreApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
app = QApplication(sys.argv[:1])
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation
from eomlab.gui.scene.scene3d import make_scene3d

links, count, width, height = (int(v) for v in sys.argv[1:5])
model = preset("spatial_chain", n=links)
sim = Simulation(model)
frames = []
for k in range(count):
    sim.advance(0.01 * (k + 1))
    row = sim.samples()[-1]
    frames.append(sim.frame(row[sim.state_columns[0]], float(row[0])))
scene = make_scene3d()
scene.resize(width, height)
scene.show()
scene.set_model(model)
for _ in range(20):
    app.processEvents()
place, paint = [], []
for frame in frames:
    t0 = time.perf_counter()
    scene.show_frame(frame)
    t1 = time.perf_counter()
    scene.makeCurrent()
    scene.paintGL()
    scene.context().functions().glFinish()
    paint.append(time.perf_counter() - t1)
    place.append(t1 - t0)
print(json.dumps({"links": links, "place": place, "paint": paint}))
"""


def display_prefix() -> list[str]:
    if os.environ.get("DISPLAY"):
        return []
    if shutil.which("xvfb-run"):
        return ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"]
    raise SystemExit("needs a DISPLAY or xvfb-run")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--links", type=int, nargs="+", default=[3, 20])
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--size", default="1300x800", help="the view's size in pixels, WxH")
    args = p.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, view {width}×{height}\n")
    print("| links | show_frame p50 | show_frame p95 | paintGL p50 | paintGL p95 |")
    print("| --- | --- | --- | --- | --- |")
    for links in args.links:
        done = subprocess.run([*display_prefix(), sys.executable, "-c", CHILD, str(links), str(args.frames),
                               str(width), str(height)], capture_output=True, text=True, cwd=ROOT, timeout=600,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
        if not lines:
            raise SystemExit(f"child failed: {done.stderr[-2000:]}")
        data = json.loads(lines[-1])
        ms = {k: sorted(1e3 * v for v in data[k]) for k in ("place", "paint")}
        pick = lambda values, q: values[min(len(values) - 1, round(q * (len(values) - 1)))]  # noqa: E731
        print(f"| {links} | {pick(ms['place'], .5):.2f} ms | {pick(ms['place'], .95):.2f} ms "
              f"| {pick(ms['paint'], .5):.1f} ms | {pick(ms['paint'], .95):.1f} ms |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
