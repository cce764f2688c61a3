"""The GUI thread's longest stall in compare mode (issue 31): at Ctrl+M and at a settings edit.

A 10 ms QTimer probe records the longest gap between its ticks for 6 s after each of: compare
on (Ctrl+M) and a settings edit (the tolerance box) while comparing; the largest over `--repeats`.
`--load N` runs N busy processes beside it (the issue saw 2.3-2.8 s on a loaded 2-core machine).
With `--profile`, the GUI thread's cProfile of the worst window is printed (top 25 by cumulative).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python bench/bench_compare_stall.py --load 1
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import multiprocessing
import os
import pstats
import sys
import time


def _burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10000))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="double_compound_pendulum")
    parser.add_argument("--links", type=int, default=0, help="a planar chain of this many links instead of --model")
    parser.add_argument("--load", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.load)]
    for p in burners:
        p.start()
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from eomlab.engine.presets import planar_chain, preset
    from eomlab.gui.app import collect_garbage_on_the_gui_thread, keep_painting_on_the_gui_thread
    from eomlab.gui.main_window import MainWindow

    keep_painting_on_the_gui_thread()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    collect_garbage_on_the_gui_thread(app)  # as `eomlab gui` sets the window up (gui/app.py run_gui)
    settings = QSettings(os.path.join(os.environ.get("TMPDIR", "/tmp"), "bench_compare_stall.ini"), QSettings.IniFormat)
    model = planar_chain(args.links) if args.links else preset(args.model)
    window = MainWindow(model, None, run=True, settings=settings)
    gc.freeze()
    window.confirm_discard = lambda: True
    window.show()
    QTest.qWait(3000)
    last, worst = [time.perf_counter()], [0.0]

    def tick():
        now = time.perf_counter()
        worst[0] = max(worst[0], now - last[0])
        last[0] = now

    probe = QTimer()
    probe.timeout.connect(tick)
    probe.start(10)
    profiler = cProfile.Profile() if args.profile else None

    def measure(act) -> float:
        QTest.qWait(300)
        last[0], worst[0] = time.perf_counter(), 0.0
        if profiler:
            profiler.enable()
        act()
        QTest.qWait(6000)
        if profiler:
            profiler.disable()
        return worst[0]

    tolerances = window.settings_bar.fine_print()
    at_ctrl_m, at_edit = [], []
    for k in range(args.repeats):
        at_ctrl_m.append(measure(lambda: window.set_compare(True)))
        box = tolerances[0]

        def edit(box=box, k=k):
            i = (box.currentIndex() + 1 + k) % box.count()
            box.setCurrentIndex(i)
            box.activated.emit(i)

        at_edit.append(measure(edit))
        window.set_compare(False)
        QTest.qWait(2000)
    print(f"{model.name}, {args.load} busy processes beside: longest GUI-thread stall at Ctrl+M "
          f"{max(at_ctrl_m):.2f} s (each: {', '.join(f'{v:.2f}' for v in at_ctrl_m)}); at a settings edit while "
          f"comparing {max(at_edit):.2f} s (each: {', '.join(f'{v:.2f}' for v in at_edit)})")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    window.close()
    stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
