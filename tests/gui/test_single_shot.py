"""`single_shot` (gui/single_shot.py): a raising callable on a timer, in a child process. The
exception reaches sys.excepthook once, as itself; the process lives on; an event filter installed
on the application keeps answering. With a bare QTimer.singleShot (PySide6 6.11.3) the same child
ends with exit 1 and prints nothing: the exception comes out of QTest.qWait."""
from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = """
import json, sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget
from PySide6.QtTest import QTest
from eomlab.gui.single_shot import single_shot

app = QApplication([])
caught, filtered = [], []
sys.excepthook = lambda t, v, tb: caught.append(f"{t.__name__}: {v}")


class Filter(QObject):
    def eventFilter(self, watched, event):
        filtered.append(event.type())
        return False


keep = Filter()
app.installEventFilter(keep)
widget = QWidget()
widget.show()


def boom():
    raise ValueError("boom")


single_shot(0, None, boom)
single_shot(10, widget, lambda: 1 / 0)
single_shot(20, widget, lambda: caught.append("after"))
QTest.qWait(300)
print(json.dumps({"caught": caught, "filtered": len(filtered)}), flush=True)
"""


def test_a_raising_callable_goes_to_the_excepthook_and_the_process_lives_on():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["caught"] == ["ValueError: boom", "ZeroDivisionError: division by zero", "after"]
    assert result["filtered"] > 0 and "eventFilter" not in proc.stderr
