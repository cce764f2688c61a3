"""`eomlab equations MODEL`: the equations of motion, derived symbolically."""
from __future__ import annotations

import sys

from eomlab.engine.methods import METHODS
from eomlab.engine.model import ModelError

from .arguments import load, with_source


def add_parser(sub) -> None:
    eq = sub.add_parser("equations", help="print the equations of motion")
    eq.add_argument("model", help="a model file (*.eom.json)")
    eq.add_argument("--method", choices=METHODS, help="formulation (default: the model's settings.method)")
    eq.add_argument("--format", choices=("text", "latex", "json"), default="text", help="output format")


def main(args) -> int:
    from eomlab.engine.symbolic import equations_text

    model = load(args.model)
    method = args.method or model.settings.method
    try:
        text = equations_text(model, method, fmt=args.format)
    except ModelError as err:
        raise with_source(err, args.model) from None
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
