"""Pictures the program makes while the docs build, so they never go stale.

``eomlab-picture FILE.png`` runs one eomlab command (its `:command:` option, the arguments after `eomlab`)
from the top of the checkout, with ``{out}`` standing for the picture's path and ``{tmp}`` for a scratch folder,
and shows the PNG it wrote. Several commands joined by ``&&`` run in turn in the same scratch folder (an
`eomlab import` before the `eomlab gui` that opens what it wrote); ``:script: PATH`` runs a Python file of the
docs instead, with the picture's path as its argument:

    ```{eomlab-picture} four_bar_compare.png
    :command: gui assets/models/four_bar.eom.json --run-for 4 --size 1280x800 --compare --screenshot {out}
    :alt: compare mode on the four-bar
    ```

Window screenshots need a display: `make docs` runs the build under `xvfb-run` when there is none. A picture is
kept in ``_build/pictures`` under a hash of its command and of the files the command names, and made again when
either changes; a fresh clone (CI) makes every picture. A command that fails is a build error naming it.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.util import logging

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
GENERATED = "_generated"  # under the source folder, so the image nodes find the files
TIMEOUT_S = 300


def _key(arguments: list[str]) -> str:
    digest = hashlib.sha256("\0".join(arguments).encode())
    for argument in arguments:
        path = ROOT / argument
        if argument and path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def make_picture(srcdir: Path, name: str, command: str = "", script: str = "") -> Path:
    """Run the eomlab commands (or the script) unless the picture is cached; return it under srcdir/_generated."""
    target = srcdir / GENERATED / name
    target.parent.mkdir(parents=True, exist_ok=True)
    steps = [[sys.executable, script, "{out}"]] if script else [
        [sys.executable, "-m", "eomlab", *shlex.split(part)] for part in command.split("&&")]
    cache = srcdir / "_build" / "pictures" / f"{_key([a for step in steps for a in step[1:]])}.png"
    if not cache.is_file():
        cache.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="eomlab-docs-") as tmp:
            out = Path(tmp) / name
            start = time.monotonic()
            for step in steps:
                argv = [a.replace("{out}", str(out)).replace("{tmp}", tmp) for a in step]
                # the window's remembered settings (plots, arrows, theme) in a fresh folder: every picture starts
                # from the defaults, whatever the machine's user chose before
                env = {**os.environ, "XDG_CONFIG_HOME": str(Path(tmp) / "config")}
                done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
                if done.returncode != 0:
                    last = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    raise RuntimeError(f"`{' '.join(step[1:])}` exited {done.returncode}: {last}")
            if not out.is_file():
                raise RuntimeError(f"{command or script} wrote no picture")
            logger.info("picture %s: %.1f s", name, time.monotonic() - start)
            shutil.copyfile(out, cache)
    if not target.is_file() or target.read_bytes() != cache.read_bytes():
        shutil.copyfile(cache, target)
    return target


class PictureDirective(Directive):
    required_arguments = 1
    has_content = True  # the caption
    option_spec = {"command": directives.unchanged, "script": directives.unchanged, "alt": directives.unchanged,
                   "width": directives.unchanged}

    def run(self):
        env = self.state.document.settings.env
        name = self.arguments[0]
        try:
            make_picture(Path(env.srcdir), name, self.options.get("command", ""), self.options.get("script", ""))
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            raise self.error(str(err)) from None
        docdir = Path(env.doc2path(env.docname)).parent
        relative = Path(*([".."] * len(docdir.relative_to(env.srcdir).parts)), GENERATED, name).as_posix()
        image = nodes.image(uri=relative, alt=self.options.get("alt", name))
        if "width" in self.options:
            image["width"] = self.options["width"]
        figure = nodes.figure("", image)
        if self.content:
            caption_text = " ".join(self.content)
            caption = nodes.caption(caption_text, "")
            text_nodes, _ = self.state.inline_text(caption_text, self.lineno)
            caption += text_nodes
            figure += caption
        if "script" in self.options:
            return [figure]
        shown = " && ".join(f"eomlab {part.strip()}" for part in self.options["command"].split("&&"))
        command = nodes.literal_block("", shown.replace("{out}", name).replace("{tmp}/", ""), language="shell")
        command["classes"].append("picture-command")
        return [figure, command]


def setup(app):
    app.add_directive("eomlab-picture", PictureDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
