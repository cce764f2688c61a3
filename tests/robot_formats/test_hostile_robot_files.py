"""Hostile or broken robot files: exit 2, one line naming the element, nothing written."""
from __future__ import annotations

import pytest

from eomlab.cli import main

LINK = '<link name="{name}"><inertial><mass value="{mass}"/><inertia ixx="{ixx}" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>'


def robot(*links_and_joints: str) -> str:
    return '<robot name="r"><link name="world"/>' + "".join(links_and_joints) + "</robot>"


def joint(name, parent, child, axis="0 0 1", kind="revolute"):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<axis xyz="{axis}"/></joint>')


LAUGHS = ('<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
          '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
          '<robot name="&d;"><link name="world"/></robot>')
EXTERNAL = ('<?xml version="1.0"?><!DOCTYPE mujoco [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
            '<mujoco model="&secret;"><worldbody/></mujoco>')
HOSTILE = {
    "billion_laughs.urdf": (LAUGHS, "<!ENTITY a>"),
    "external_entity.xml": (EXTERNAL, "<!ENTITY secret>"),
    "include_outside.xml": ('<mujoco><include file="../outside.xml"/><worldbody/></mujoco>',
                            '<include file="../outside.xml">'),
    "negative_mass.urdf": (robot(LINK.format(name="arm", mass=-1, ixx=1), joint("j", "world", "arm")),
                           'link "arm"/inertial/mass'),
    "not_positive_definite.urdf": (robot(LINK.format(name="arm", mass=1, ixx=-0.5), joint("j", "world", "arm")),
                                   'link "arm"/inertial/inertia'),
    "triangle.xml": ('<mujoco><worldbody><body name="b"><joint type="hinge"/><inertial pos="0 0 0" mass="1" '
                     'diaginertia="1 1 5"/></body></worldbody></mujoco>', 'body "b"/inertial'),
    "zero_axis.urdf": (robot(LINK.format(name="arm", mass=1, ixx=1), joint("j", "world", "arm", axis="0 0 0")),
                       'joint "j"/axis'),
    "zero_axis.xml": ('<mujoco><worldbody><body name="b"><joint name="h" type="hinge" axis="0 0 0"/></body>'
                      '</worldbody></mujoco>', 'joint "h"'),
    "cycle.urdf": (robot(LINK.format(name="a", mass=1, ixx=1), LINK.format(name="b", mass=1, ixx=1),
                         joint("j1", "world", "a"), joint("j2", "a", "b"), joint("j3", "b", "a")), 'joint "j3"'),
    "loop.urdf": (robot(LINK.format(name="a", mass=1, ixx=1), LINK.format(name="b", mass=1, ixx=1),
                        joint("j1", "b", "a"), joint("j2", "a", "b")), "cycle"),
    "not_xml.urdf": ("<robot><link name='a'>", "not well-formed"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_refused_in_one_line(tmp_path, capsys, name):
    text, element = HOSTILE[name]
    folder = tmp_path / "models"
    folder.mkdir()
    (tmp_path / "outside.xml").write_text("<mujoco><worldbody/></mujoco>")
    source, target = folder / name, folder / "out.eom.json"
    source.write_text(text)
    assert main(["import", str(source), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"eomlab: {source}: ") and element in err, err
    assert "Traceback" not in err
    assert sorted(p.name for p in folder.iterdir()) == [name]  # nothing written


def test_mesh_outside_the_folder_is_refused(tmp_path, capsys):
    folder = tmp_path / "m"
    folder.mkdir()
    (tmp_path / "secret.stl").write_text("solid x\nendsolid x\n")
    source = folder / "r.urdf"
    source.write_text(robot('<link name="arm"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" '
                            'ixz="0" iyz="0"/></inertial><visual><geometry><mesh filename="../secret.stl"/></geometry>'
                            '</visual></link>', joint("j", "world", "arm")))
    assert main(["import", str(source), "-o", str(folder / "out.eom.json")]) == 2
    assert "leaves the model's folder" in capsys.readouterr().err
    assert not (folder / "out.eom.json").exists()


JUNK = ("", "abc", "nan", "1e400", "-1", "0 0 0", "1 2", "0 0 0 0")


def _every_attribute_spoiled(text: str):
    """The file once per (attribute, junk value), that attribute's value replaced."""
    import re

    for match in re.finditer(r'(\w+)="([^"]*)"', text):
        for junk in JUNK:
            if junk != match.group(2):
                yield f"{match.group(1)}={junk!r}", text[:match.start(2)] + junk + text[match.end(2):]


@pytest.mark.parametrize("suffix", [".xml", ".urdf"])
def test_spoiled_attributes_import_or_are_refused_by_name(tmp_path, suffix):
    from eomlab.engine.model import Model, ModelError
    from eomlab.api import checked
    from eomlab.engine.robot_formats import import_model
    from test_import_details import MJCF, URDF

    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "hand.stl").write_text("solid h\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendsolid h\n")
    path = tmp_path / f"model{suffix}"
    refused = 0
    for label, text in _every_attribute_spoiled(MJCF if suffix == ".xml" else URDF):
        path.write_text(text)
        try:
            model = checked(import_model(path)[0])  # as `eomlab import` does before writing
        except ModelError as err:
            refused += 1
            assert "\n" not in str(err) and err.path, (label, err)
        else:
            assert isinstance(model, Model)
    assert refused > 50
