"""`eomlab import ROBOT.urdf|MODEL.xml -o MODEL.eom.json`: a URDF or MJCF robot as an eomlab model.

What the file holds but eomlab cannot model is listed on standard error, one warning per kind. A
model a run would refuse (a speed that moves no mass) is not written (exit 2, one line saying why)
unless `--write-anyway` is given: it is then written, with that line as a warning, to be edited.
"""
from __future__ import annotations

import sys

from eomlab.engine.model import ModelError

from eomlab.commands.arguments import with_source


def add_parser(sub) -> None:
    cmd = sub.add_parser("import", help="convert a URDF or MJCF robot model to an eomlab model file",
                         description="Read a URDF (<robot>) or MJCF (<mujoco>) file and write an eomlab model: links "
                         "and bodies, joints, inertias, gravity, joint limits (enforced: a limit without range or with limited=\"false\" is none), shapes; MJCF "
                         "ball and free joints as Euler parameters, the first keyframe as initial conditions.")
    cmd.add_argument("robot", help="a URDF (*.urdf) or MJCF (*.xml) file")
    cmd.add_argument("-o", "--out", required=True, metavar="MODEL.eom.json", help="the eomlab model file to write")
    cmd.add_argument("--write-anyway", action="store_true",
                     help="write the model even when a run would refuse it (a speed that moves no mass), to edit it")


def main(args) -> int:
    from eomlab.api import save
    from eomlab.engine.robot_formats import RUN_REFUSAL, import_model

    try:
        model, warnings = import_model(args.robot)  # checked as a model file is, before anything is written
    except ModelError as err:
        raise with_source(err, args.robot) from None
    refusal = next((w for w in warnings if w.startswith(RUN_REFUSAL)), None)
    for warning in warnings:
        if warning is not refusal or args.write_anyway:
            print(f"{args.robot}: warning: {warning}", file=sys.stderr)
    if refusal is not None and not args.write_anyway:
        raise with_source(ModelError("bodies", f"{refusal}; nothing written (--write-anyway writes it to be edited)"),
                          args.robot)
    try:
        save(model, args.out)
    except OSError as err:
        raise ModelError("--out", f"cannot write {args.out}: {err.strerror or err}") from None
    print(f"wrote {args.out} ({len(model.bodies)} bodies, {len(model.coordinate_names)} coordinates)", file=sys.stderr)
    return 0
