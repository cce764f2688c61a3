"""`eomlab export MODEL.eom.json -o MODEL.xml`: the model as MJCF, to run it in MuJoCo.

What MuJoCo cannot express (nonholonomic or acceleration constraints, expression forces...) is
listed on standard error and left out of the file.
"""
from __future__ import annotations

import os
import sys
import tempfile

from eomlab.engine.model import ModelError

from eomlab.commands.arguments import load, with_source


def add_parser(sub) -> None:
    cmd = sub.add_parser("export", help="write a model as MJCF (MuJoCo)",
                         description="Write an eomlab model as MJCF: bodies with MuJoCo joints, closed loops as "
                         "connect equality constraints, initial conditions as the first keyframe.")
    cmd.add_argument("model", help="a model file (*.eom.json)")
    cmd.add_argument("-o", "--out", required=True, metavar="MODEL.xml", help="the MJCF file to write")


def write_atomic(path: str, text: str) -> None:
    """The whole file or none: written beside the target, then renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=".eomlab-", suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(args) -> int:
    from eomlab.engine.robot_formats import export_mjcf

    model = load(args.model)
    try:
        text, notes = export_mjcf(model)
    except ModelError as err:
        raise with_source(err, args.model) from None
    try:
        write_atomic(args.out, text)
    except OSError as err:
        raise ModelError("--out", f"cannot write {args.out}: {err.strerror or err}") from None
    for note in notes:
        print(f"{args.model}: note: {note}", file=sys.stderr)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0
