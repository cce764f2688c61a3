"""run_gui on every example model, on a real X display (OpenGL for the 3-D ones): exits 0 and
leaves a non-blank screenshot. One child process runs them all, to keep the suite fast.
`make test` takes the models that draw something of their own (each joint and constraint kind,
shape, 2-D and 3-D, absolute and Euler-parameter coordinates), `make test-all` the others too."""
from __future__ import annotations

import project_paths
import glob
import json
import os
import subprocess
import sys

import pytest
from PIL import Image, ImageStat

from gui_helpers import x_display_command

ROOT = str(project_paths.ROOT)
MODELS = sorted(glob.glob(os.path.join(ROOT, "assets", "models", "*.eom.json")))
#: the same joints, shapes and constraints as another model: the pendulum's point bob as the cart
#: pendulum's, the sleigh as the knife edge, the chain's rods as the four-bar's, the box about a point
#: as the spatial chain's spherical boxes, the upright disk as the leaning one
SAME_DRAWING = {"simple_pendulum", "chaplygin_sleigh", "planar_chain", "rigid_body_fixed_point", "rolling_disk_vertical"}
THREE_D = ("spatial_chain.eom.json", "heavy_top.eom.json")  # drawn in the 3-D scene
OWN = [m for m in MODELS if os.path.basename(m).removesuffix(".eom.json") not in SAME_DRAWING]
OTHERS = [m for m in MODELS if m not in OWN]
SCRIPT = """
import json, sys
from eomlab.gui.app import run_gui, last_run
for model, shot in zip(sys.argv[1::2], sys.argv[2::2]):
    code = run_gui(model, run_for={run_for}, screenshot=shot)
    print(json.dumps(dict(model=model, code=code, **last_run)), flush=True)
"""


@pytest.mark.xvfb
@pytest.mark.parametrize("models", [pytest.param(OWN, id="own_drawing"),
                                    pytest.param(OTHERS, id="same_drawing", marks=pytest.mark.slow)])
def test_run_gui_on_every_asset_model(tmp_path, models):
    assert OWN and OTHERS and len(OWN) + len(OTHERS) == len(MODELS), "no example models in assets/models"
    assert all(any(m.endswith(name) for m in OWN) for name in THREE_D)
    args = []
    for model in models:
        args += [model, str(tmp_path / (os.path.basename(model) + ".png"))]
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # a real display, not offscreen
    command = x_display_command() + [sys.executable, "-c", SCRIPT.format(run_for=0.3), *args]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "QThread: Destroyed" not in done.stderr
    assert "GLError" not in done.stderr and "Error while drawing" not in done.stderr, done.stderr[-3000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["model"] for r in results] == models
    for r, shot in zip(results, args[1::2]):
        assert r["code"] == 0, r
        assert r["samples"] >= 2 and r["t"] > 0, r
        image = Image.open(shot).convert("RGB")
        assert image.size[0] >= 800 and image.size[1] >= 600
        assert max(ImageStat.Stat(image).stddev) > 10, f"blank screenshot for {r['model']}"
        assert len(image.getcolors(maxcolors=1 << 20) or []) > 50, f"blank screenshot for {r['model']}"
    spatial = [r for r in results if r["model"].endswith(THREE_D)]
    assert all(r["scene"] == "scene3d" for r in spatial), spatial
