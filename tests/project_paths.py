"""Where things are, for every test: the checkout, its model files and the window scripts the GUI tests start.
(tests/ is on sys.path through its conftest, so any test imports this by name.)"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "assets" / "models"
GUI_SCRIPTS = ROOT / "tests" / "gui"
