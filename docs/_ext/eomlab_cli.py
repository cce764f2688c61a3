"""The command reference, generated from the program's own argparse parsers (`eomlab.cli.build_parser`), so it
never goes stale.

- On `builder-inited` one page per subcommand is written to `reference/commands/<name>.md` (generated, not kept
  in git); the reference's toctree takes them by glob, so a new subcommand gets its page without an edit here.
- The directive ``eomlab-command NAME`` renders NAME's usage, its description and every argument: its flags,
  its metavar or choices, its default, and its help text.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

from eomlab.cli import build_parser

PAGE = """# eomlab {name}

{help}

```{{eomlab-command}} {name}
```
"""


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """name -> its parser, in the order `eomlab --help` lists them."""
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _helps() -> dict[str, str]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in action._choices_actions}


def _argument_name(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.metavar or action.dest
    names = ", ".join(action.option_strings)
    if action.nargs == 0:
        return names
    if action.choices is not None:
        return f"{names} {{{','.join(map(str, action.choices))}}}"
    return f"{names} {action.metavar or action.dest.upper()}"


class CommandDirective(Directive):
    required_arguments = 1
    has_content = False

    def run(self):
        name = self.arguments[0]
        commands = subcommands()
        if name not in commands:
            raise self.error(f"no subcommand {name!r}; eomlab has {', '.join(commands)}")
        parser = commands[name]
        parser.prog = f"eomlab {name}"
        out: list[nodes.Node] = []
        usage = parser.format_usage().removeprefix("usage: ").strip()
        out.append(nodes.literal_block(usage, usage, language="text"))
        if parser.description:
            out.append(nodes.paragraph(text=parser.description))
        items = nodes.definition_list()
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            term = nodes.term()
            term += nodes.literal(text=_argument_name(action))
            text = action.help or ""
            if action.required and action.option_strings:
                text += " (required)"
            if action.default not in (None, False, argparse.SUPPRESS, []) and "default" not in text:
                text += f" (default: {action.default})"
            if isinstance(action, argparse._AppendAction):
                text += " (may be given more than once)"
            definition = nodes.definition()
            definition += nodes.paragraph(text=text)
            items += nodes.definition_list_item("", term, definition)
        out.append(items)
        return out


def write_pages(app) -> None:
    folder = Path(app.srcdir) / "reference" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    helps = _helps()
    wanted = {}
    for name in subcommands():
        text = helps.get(name, "")
        wanted[f"{name}.md"] = PAGE.format(name=name, help=(text[:1].upper() + text[1:] + ".") if text else "")
    for stale in folder.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    for file, text in wanted.items():
        path = folder / file
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app):
    app.add_directive("eomlab-command", CommandDirective)
    app.connect("builder-inited", write_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
