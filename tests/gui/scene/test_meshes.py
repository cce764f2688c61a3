"""The 3-D shapes' meshes: closed, facing out, the right size, striped; and where the ground lies."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eomlab.engine.model import Shape
from eomlab.engine.presets import preset
from eomlab.gui.scene.camera3d import anchors, floor_height, nice_spacing
from eomlab.engine.simulation import initial_frame
from eomlab.gui.scene.geometry import drawing, reach, up_basis
from eomlab.gui.scene.meshes import ROD_RADIUS, ROUND_SEGMENTS, body_mesh, face_normals

SHAPES = {
    "rod": (Shape("rod", length=2.0), math.pi * (ROD_RADIUS * 2.0) ** 2 * 2.0),
    "disk": (Shape("disk", radius=0.5), None),
    "box": (Shape("box", size=(1.0, 2.0, 3.0)), 6.0),
    "sphere": (Shape("sphere", radius=0.3), 4 / 3 * math.pi * 0.3 ** 3),
}


def volume(triangles: np.ndarray) -> float:
    """Divergence theorem: sum of signed tetrahedra from the origin (outward faces: positive)."""
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    return float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c)))) / 6.0


@pytest.mark.parametrize("kind", list(SHAPES))
def test_mesh_is_closed_faces_out_and_has_the_shapes_volume(kind):
    shape, expected = SHAPES[kind]
    mesh = body_mesh(shape, 0, 0.1)
    triangles = mesh.triangles.astype(float)
    # closed: every edge (as an unordered pair of rounded corners) is shared by exactly two faces
    corners = np.round(triangles, 9)
    edges = {}
    for tri in corners:
        for i in range(3):
            key = tuple(sorted((tuple(tri[i]), tuple(tri[(i + 1) % 3]))))
            if key[0] != key[1]:
                edges[key] = edges.get(key, 0) + 1
    assert set(edges.values()) == {2}
    normals = face_normals(triangles)[:, 0]
    centroids = triangles.mean(axis=1)
    area = 0.5 * np.linalg.norm(np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]), axis=1)
    assert np.all(np.einsum("ij,ij->i", centroids, normals)[area > 1e-12] > 0)  # convex, centred: out = away
    assert np.all(np.einsum("ijk,ijk->ij", mesh.normals, face_normals(triangles)) > -1e-6)
    if kind == "disk":  # a 32-gon prism: area of the polygon × thickness
        polygon = 0.5 * ROUND_SEGMENTS * 0.5 ** 2 * math.sin(2 * math.pi / ROUND_SEGMENTS)
        expected = polygon * np.ptp(triangles[..., 2])
    # a 16 × 10 UV sphere is inscribed: 5 % short of the ball
    tolerance = 1e-9 if kind == "box" else (0.06 if kind == "sphere" else 0.01)
    assert volume(triangles) == pytest.approx(expected, rel=tolerance)
    assert volume(triangles) <= expected * (1 + 1e-9)


@pytest.mark.parametrize("kind", ["disk", "rod", "sphere"])
def test_round_shapes_are_striped_so_a_spin_shows(kind):
    mesh = body_mesh(SHAPES[kind][0], 0, 0.1)
    colours = {tuple(np.round(c, 3)) for c in mesh.colours[:, 0, :]}
    assert len(colours) == 2
    if kind == "disk":  # the top face alone has both colours, in sectors round the axis
        top = mesh.triangles[:, :, 2].min(axis=1) > 0
        angles = np.arctan2(mesh.triangles[top].mean(axis=1)[:, 1], mesh.triangles[top].mean(axis=1)[:, 0])
        order = np.argsort(angles)
        changes = np.sum(np.any(np.diff(mesh.colours[top][order, 0, :3], axis=0) != 0, axis=1))
        assert changes >= 7  # eight sectors


def test_box_faces_tell_the_axes_apart():
    mesh = body_mesh(SHAPES["box"][0], 0, 0.1)
    assert len({tuple(c) for c in mesh.colours[:, 0, :]}) == 6


def test_a_massless_frame_draws_nothing():
    assert body_mesh(None, 0, 0.0) is None
    assert body_mesh(Shape("point"), 0, 0.05) is not None


def _pose_points(model):
    frame = initial_frame(model)
    turn = up_basis(model.gravity)
    picture = drawing(model, turn @ frame.rotations, frame.origins @ turn.T, frame.mass_centres @ turn.T)
    return picture.points(), frame.mass_centres @ turn.T, turn


@pytest.mark.parametrize("name, rule", [
    ("heavy_top", "pivot"), ("rolling_disk_leaning", "rolls"), ("spatial_chain", "below"),
    ("tumbling_box", "below"), ("spherical_pendulum_cartesian", "below"), ("rigid_body_fixed_point", "below")])
def test_the_ground_lies_where_the_mechanism_cannot_sink_into_it(name, rule):
    model = preset(name)
    points, centres, turn = _pose_points(model)
    rolls = any(c.type == "rolling_disk" for c in model.constraints)
    floor = floor_height(model, points, centres, anchors(model, turn), reach(model), rolls)
    if rule == "pivot":
        assert floor == 0.0  # the top's tip stands on the ground
    elif rule == "rolls":
        assert floor == 0.0
    else:  # hanging or floating: below everything it can swing to, with a gap
        pivot = anchors(model, turn)[:, 2].min()
        swing = 1.0 if name == "spherical_pendulum_cartesian" else reach(model)  # the rod's length
        assert floor < pivot - swing
        assert floor > pivot - 1.2 * swing  # not so far that the mechanism looks tiny above it


def test_grid_spacing_is_one_two_or_five():
    assert [nice_spacing(x) for x in (10.0, 7.0, 3.0, 0.9)] == [1.0, 1.0, 0.5, 0.1]


def test_a_shapeless_body_with_inertia_is_its_inertia_ellipsoid():
    """The benchmark bicycle's rear frame (a point with the rider's inertia) is drawn as the solid ellipsoid of its
    mass and inertia, not as a ball sized by its mass: the mesh's extent along each principal axis is its semi-axis,
    and its smooth normals face out."""
    from eomlab.engine.model import inertia_ellipsoid

    bicycle = preset("benchmark_bicycle")
    frame = bicycle.bodies[0]
    semi_axes, axes = inertia_ellipsoid(frame.mass, frame.inertia)
    mesh = body_mesh(frame.shape, 0, 0.5, (semi_axes, axes))
    corners = mesh.triangles.reshape(-1, 3).astype(float)
    along = corners @ axes  # coordinates along the principal axes
    np.testing.assert_allclose(np.abs(along).max(axis=0), semi_axes, rtol=1e-6)
    assert sorted(semi_axes)[0] < 0.5 * sorted(semi_axes)[-1]  # an elongated body, not a ball
    outward = np.einsum("ij,ij->i", mesh.normals.reshape(-1, 3).astype(float), corners)
    assert (outward > 0).all()
