"""A triangle mesh's mass properties (engine/robot_formats/mesh_inertia.py) against the closed forms of a
box, from a binary STL, an ASCII STL and an OBJ of quads; unreadable files are one-line errors. MuJoCo's
own numbers for meshes inside MJCF files are in test_mjcf_inertia.py."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from eomlab.engine.model import ModelError
from eomlab.engine.robot_formats.mesh_inertia import MESH_INERTIA, hull_faces, integrate, read_mesh

SIDES = np.array([0.5, 0.25, 0.125])  # exact in single precision: the vertices are read as MuJoCo keeps them
CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float) * SIDES
QUADS = [(1, 3, 2, 0), (6, 7, 5, 4), (4, 5, 1, 0), (3, 7, 6, 2), (2, 6, 4, 0), (5, 7, 3, 1)]  # turned outwards
RELATIVE = 1e-12


def box_solid():
    """(volume, centre, inertia per unit density about the centre) of the solid box."""
    a, b, c = SIDES
    volume = a * b * c
    return volume, SIDES / 2, volume / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def triangles():
    return [tri for q in QUADS for tri in ((q[0], q[1], q[2]), (q[0], q[2], q[3]))]


def write_obj(path):
    lines = [f"v {x} {y} {z}" for x, y, z in CORNERS] + ["f " + " ".join(str(i + 1) for i in q) for q in QUADS]
    path.write_text("\n".join(lines) + "\n")


def write_binary_stl(path):
    facets = b"".join(struct.pack("<12fH", 0, 0, 0, *CORNERS[list(t)].ravel(), 0) for t in triangles())
    path.write_bytes(b"\0" * 80 + struct.pack("<I", len(triangles())) + facets)


def write_ascii_stl(path):
    body = "".join("facet normal 0 0 0\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in CORNERS[list(t)])
                   + "endloop\nendfacet\n" for t in triangles())
    path.write_text(f"solid box\n{body}endsolid box\n")


@pytest.mark.parametrize("writer, name", [(write_obj, "box.obj"), (write_binary_stl, "box.stl"),
                                          (write_ascii_stl, "box.stl")])
@pytest.mark.parametrize("mode", [m for m in MESH_INERTIA if m != "shell"])
def test_a_box_read_from_each_format_has_the_solid_boxs_closed_form(tmp_path, writer, name, mode):
    path = tmp_path / name
    writer(path)
    vertices, faces = read_mesh(str(path), "<mesh>")
    assert len(vertices) == 8 and len(faces) == 12  # STL's repeated corners merged, quads cut in two
    volume, centre, inertia = integrate(vertices, faces, mode, "<mesh>")
    expected_volume, expected_centre, expected_inertia = box_solid()
    assert volume == pytest.approx(expected_volume, rel=RELATIVE)
    np.testing.assert_allclose(centre, expected_centre, rtol=RELATIVE, atol=1e-15)
    np.testing.assert_allclose(inertia, expected_inertia, rtol=1e-10, atol=1e-15)


def test_the_shell_of_a_box_is_its_six_plates():
    a, b, c = SIDES
    faces = np.array(triangles())
    area, centre, inertia = integrate(CORNERS, faces, "shell", "<mesh>")
    assert area == pytest.approx(2 * (a * b + b * c + c * a), rel=RELATIVE)
    np.testing.assert_allclose(centre, SIDES / 2, rtol=RELATIVE)
    # a plate of sides p, q at distance d from the axis: p q ((p² or q²)/12 + d²); two of each
    ixx = 2 * (a * b * (b * b / 12 + c * c / 4) + a * c * (c * c / 12 + b * b / 4) + b * c * (b * b + c * c) / 12)
    assert inertia[0, 0] == pytest.approx(ixx, rel=1e-10)


def test_the_hull_of_the_corners_is_the_box_turned_outwards():
    volume, _, inertia = integrate(CORNERS, hull_faces(CORNERS, "<mesh>"), "exact", "<mesh>")
    expected_volume, _, expected_inertia = box_solid()
    assert volume == pytest.approx(expected_volume, rel=RELATIVE)  # exact: an inward face would count negative
    np.testing.assert_allclose(inertia, expected_inertia, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("content, name", [(b"v 0 0 0\nf 1 2 3\n", "bad.obj"), (b"\0" * 90, "empty.stl"),
                                           (b"solid x\nendsolid x\n", "none.stl")])
def test_an_unreadable_mesh_is_a_one_line_error_naming_the_file(tmp_path, content, name):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ModelError) as error:
        read_mesh(str(path), '<mesh name="m">')
    message = str(error.value)
    assert "\n" not in message and name in message and '<mesh name="m">' in message
