"""The command line: `eomlab [gui] [MODEL]`, `eomlab run MODEL ...`, `eomlab equations MODEL ...`.

Each subcommand lives in its own module under `eomlab.commands` with `add_parser(subparsers)` and
`main(args) -> int`; this module only dispatches. The window package is imported only when the `gui`
subcommand runs. Bad input gives exit status 2 and one line on standard error naming the file, the
field's path and the problem.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from eomlab.engine.model import ModelError

EXIT_BAD_INPUT = 2

# subcommand name → module in eomlab.commands; the first is the default when no subcommand is given
COMMANDS = {
    "gui": "open_window",
    "run": "run_model",
    "equations": "show_equations",
    "import": "import_model",
    "export": "export_model",
    "sweep": "sweep_model",
    "linearize": "linearize_model",
}


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message):
        raise ModelError("command line", message)


def _command_module(name: str):
    return importlib.import_module(f"eomlab.commands.{COMMANDS[name]}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="eomlab", description="Equations-of-Motion Lab: build a mechanism, pick a formulation "
                     "of the equations of motion, watch it move.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for name in COMMANDS:
        _command_module(name).add_parser(sub)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
            argv = ["gui", *argv]
        args = build_parser().parse_args(argv)
        return _command_module(args.command).main(args)
    except ModelError as err:
        print(f"eomlab: {err.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
