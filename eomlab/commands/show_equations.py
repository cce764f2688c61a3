"""`eomlab equations MODEL`: the equations of motion, derived symbolically.

`--format latex` prints the page the equations panel shows as a standalone LaTeX document,
`--format html` the same page as one HTML file with MathML, `text` and `json` as before.
"""
from __future__ import annotations

import sys

from eomlab.engine.methods import SYMBOLIC_METHODS
from eomlab.engine.model import ModelError

from eomlab.commands.arguments import load, with_source


#: the registry's formulations and the tree view (named here: importing sympy for the parser
#: would slow every subcommand)
FORMATS = ("text", "latex", "html", "json")


def add_parser(sub) -> None:
    eq = sub.add_parser("equations", help="print the equations of motion")
    eq.add_argument("model", help="a model file (*.eom.json)")
    eq.add_argument("--method", choices=SYMBOLIC_METHODS, help="formulation (default: the model's settings.method)")
    eq.add_argument("--format", choices=FORMATS, default="text",
                    help="output format: text, latex (a standalone document), html (MathML) or json")


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
