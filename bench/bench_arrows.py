"""The arrows' own cost per drawn sample, away from the run's noise: a 20-link chain runs a few
seconds, pauses, and the window steps through its last kept samples (a new sample each frame, as
while running), drawing the scene and its arrows each time and painting the scene.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python bench/bench_arrows.py [--off] [--links 20]

Prints the arrows' CPU time per frame (thread_time of `Arrows.draw`, p50 / p95), the same for a
repaint of one sample, and the GUI thread's CPU per frame for the scene's redraw plus its paint
(the plots left out: paused, every plot would redraw each tick). CPU times, so a loaded machine
moves them less than frame intervals; compare runs taken in one period (alternate --off and on).
Measurement, never a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--links", type=int, default=20)
    p.add_argument("--off", action="store_true", help="no arrows (the reference)")
    p.add_argument("--samples", type=int, default=400, help="kept samples stepped through, twice")
    args = p.parse_args(argv)
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from eomlab.engine.presets import preset
    from eomlab.gui.actions.run_actions import SPEEDS
    from eomlab.gui.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    model = preset("planar_chain", n=args.links, angles=[0.5] * args.links).with_settings(t_end=1e4)
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "eomlab.ini"), QSettings.IniFormat)  # not the user's
    window = MainWindow(model, None, run=False, settings=settings)
    window.confirm_discard = lambda: True
    for kind in [] if args.off else window.arrows.actions:
        window.arrows.set_enabled(kind, True)
    window.show()
    window.set_speed(SPEEDS[-1][1])
    window.run()
    end = time.time() + 4.0
    while time.time() < end and len(window.samples()[1]) < args.samples + 50:
        app.processEvents()
    window.session.pause()
    for _ in range(50):
        app.processEvents()
        time.sleep(0.01)
    times = window.session.runs[0].series.buffer.view()[-args.samples:, 0].copy()
    window.plots.refresh = lambda keys: None
    draw, arrow_times, frame_times = window.arrows.draw, [], []

    def timed_draw():
        begin = time.thread_time()
        draw()
        arrow_times.append(time.thread_time() - begin)

    window.arrows.draw = timed_draw
    for _round in range(2):  # the first round warms up (and sets the scales)
        arrow_times.clear()
        frame_times.clear()
        for t in times:
            window.session.set_cursor(float(t))
            begin = time.thread_time()
            window.redraw.tick()
            window.scene.viewport().repaint()
            frame_times.append(time.thread_time() - begin)
    new_sample = np.array(arrow_times) * 1e3
    frame = np.array(frame_times) * 1e3
    arrow_times.clear()
    for _ in range(100):
        window.redraw.mark_dirty()
        window.redraw.tick()
    same = np.array(arrow_times) * 1e3
    window.close()

    def p(values, q):
        return float(np.percentile(values, q)) if len(values) else float("nan")

    print(f"{args.links}-link chain, arrows {'off' if args.off else 'every kind on'}, {len(times)} samples, "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"arrows' CPU per new sample p50 / p95: {p(new_sample, 50):.2f} / {p(new_sample, 95):.2f} ms")
    print(f"arrows' CPU per repaint of the same sample p50 / p95: {p(same, 50):.2f} / {p(same, 95):.2f} ms")
    print(f"scene redraw + paint CPU per frame p50 / p95: {p(frame, 50):.2f} / {p(frame, 95):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
