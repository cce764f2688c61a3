"""Models shared by the sweep tests."""

from eomlab.engine.presets import preset

from project_paths import ROOT
ASSETS = ROOT / "assets" / "models"
DOUBLE = ASSETS / "double_compound_pendulum.eom.json"


def five_link_chain():
    return preset("planar_chain", n=5, angles=[0.3, -0.2, 0.5, 1.0, -1.2])
