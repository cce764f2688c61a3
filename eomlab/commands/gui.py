"""`eomlab gui [MODEL]`: the window (the default subcommand)."""
from __future__ import annotations

from .arguments import positive


def add_parser(sub) -> None:
    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("model", nargs="?", help="a model file (*.eom.json); the built-in default when omitted")
    gui.add_argument("--run-for", type=positive, metavar="S", help="run for S simulated seconds, then stop")
    gui.add_argument("--screenshot", metavar="FILE.png", help="save a screenshot after --run-for and quit")
    gui.add_argument("--compare", action="store_true", help="open in compare mode (all formulations at once)")


def main(args) -> int:
    from eomlab.gui.app import run_gui

    return run_gui(args.model, run_for=args.run_for, screenshot=args.screenshot, compare=args.compare)
