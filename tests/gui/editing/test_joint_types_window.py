"""The window reads the joint types from their registry: the new-body dialog fills in and builds a
body on every type, the inspector shows each type's fields and the plots its units."""
from __future__ import annotations

import pytest

from eomlab.engine.model import JOINT_TYPES
from eomlab.engine.presets import preset
from eomlab.gui.editing.dialogs import RigidBodyDialog
from eomlab.gui.editing.inspector import body_fields
from eomlab.gui.style.plot_style import coordinate_unit


@pytest.mark.parametrize("kind", JOINT_TYPES)
def test_the_new_body_dialog_builds_a_body_on_every_joint_type(qtbot, kind):
    model = preset("double_compound_pendulum")
    dialog = RigidBodyDialog(model, "upper")
    qtbot.addWidget(dialog)
    dialog.shape.setCurrentText("box")
    dialog.dimension.setText("0.2, 0.1, 0.1")
    dialog.joint.setCurrentText(kind)
    dialog._accept()
    assert dialog.model is not None, dialog.error.text()
    body = dialog.model.bodies[-1]
    assert body.joint.type == kind
    paths = {f.path for f in body_fields(dialog.model, body)}
    assert (("joint", "axis") in paths) == (kind in ("revolute", "prismatic", "cylindrical", "universal"))
    assert (("joint", "axis2") in paths) == (kind == "universal")
    if kind == "cylindrical":
        assert [coordinate_unit(n, dialog.model) for n in body.joint.names] == ["m", "rad"]
    if kind == "universal":
        assert [coordinate_unit(n, dialog.model) for n in body.joint.names] == ["rad", "rad"]
