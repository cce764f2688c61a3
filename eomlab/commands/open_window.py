"""`eomlab gui [MODEL]`: the window (the default subcommand)."""
from __future__ import annotations

import argparse

from eomlab.commands.arguments import positive


def add_parser(sub) -> None:
    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("model", nargs="?", help="a model file (*.eom.json); the built-in default when omitted")
    gui.add_argument("--run-for", type=positive, metavar="S", help="run for S seconds of wall-clock time, then quit")
    gui.add_argument("--screenshot", metavar="FILE.png", help="save a screenshot after --run-for and quit")
    gui.add_argument("--compare", action="store_true", help="open in compare mode (all formulations at once)")
    gui.add_argument("--presentation", action="store_true", help="open in presentation mode (F11)")
    gui.add_argument("--size", type=window_size, metavar="WxH", help="window size in pixels, e.g. 1920x1080")
    gui.add_argument("--report", metavar="R.json",
                     help="after --run-for, write the layout (views, their simulated time, plots, legends) as JSON")


def window_size(text: str) -> tuple[int, int]:
    """'1920x1080' → (1920, 1080)."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1920x1080, got {text!r}") from None
    if not (200 <= width <= 10000 and 200 <= height <= 10000):
        raise argparse.ArgumentTypeError(f"a window of {width}x{height} pixels: each side must be 200 to 10000")
    return width, height


def main(args) -> int:
    from eomlab.gui.app import run_gui

    return run_gui(args.model, run_for=args.run_for, screenshot=args.screenshot, compare=args.compare,
                   presentation=args.presentation, size=args.size, report=args.report)
