"""Models shared by the sweep tests."""
import pathlib

from eomlab.engine.presets import preset

ROOT = pathlib.Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets" / "models"
DOUBLE = ASSETS / "double_compound_pendulum.eom.json"


def five_link_chain():
    return preset("planar_chain", n=5, angles=[0.3, -0.2, 0.5, 1.0, -1.2])
