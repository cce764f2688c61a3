"""Triangle meshes of the drawing shapes, in body axes about the mass centre, built once per body.

A body is drawn where `gui.scene.geometry.drawing` places it: the shape's centre at the mass centre,
its axes the body axes (rod along x, disk symmetry axis z, box edges along x, y, z). Faces carry
two alternating colours — sectors on a disk's faces, bands round a rod, gores on a sphere, a
lighter and a darker face per box axis — so that a turn about a symmetry axis (a top's spin, a
rolling disk's roll) shows at a glance. The 3-D scene uploads each mesh once and moves it with a
4×4 transform per frame.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.model import Shape

#: segments round a disk or rod (even: the stripes alternate all the way round)
ROUND_SEGMENTS = 32
#: stripes round a disk's faces and rim, and bands along a rod
STRIPES = 8
#: sphere: gores (longitude) × rings (latitude)
SPHERE_GORES, SPHERE_RINGS = 16, 10
#: a rod is drawn as a cylinder of this fraction of its length in radius (at least ROD_MIN_RADIUS, m)
ROD_RADIUS, ROD_MIN_RADIUS = 0.035, 0.01
#: a disk is this fraction of its radius thick
DISK_THICKNESS = 0.12

BODY_COLOURS = [((0.23, 0.46, 0.69), (0.93, 0.94, 0.96)),  # blue / white
                ((0.85, 0.45, 0.13), (0.98, 0.91, 0.80)),  # orange / cream
                ((0.30, 0.62, 0.35), (0.90, 0.96, 0.90)),  # green / pale
                ((0.62, 0.32, 0.65), (0.95, 0.90, 0.96))]  # purple / pale
BOX_FACES = [(0.80, 0.25, 0.22), (0.95, 0.62, 0.58),  # -x, +x: red
             (0.25, 0.60, 0.30), (0.62, 0.87, 0.62),  # -y, +y: green
             (0.22, 0.40, 0.75), (0.60, 0.72, 0.95)]  # -z, +z: blue


@dataclass
class Mesh:
    """Triangles (m, 3, 3), their corners' normals (m, 3, 3) and colours (m, 3, 4), float32, body
    axes about the mass centre; `extent` is the largest distance of a vertex from the mass centre."""

    triangles: np.ndarray
    normals: np.ndarray
    colours: np.ndarray

    @property
    def extent(self) -> float:
        return float(np.max(np.linalg.norm(self.triangles.reshape(-1, 3), axis=1))) if len(self.triangles) else 0.0

    @property
    def box_corners(self) -> np.ndarray:
        """The 8 corners (8, 3) of the box round the mesh in body axes: a flat disk's box is flat,
        where its bounding sphere would be as tall as it is wide."""
        vertices = self.triangles.reshape(-1, 3).astype(float)
        if not len(vertices):
            return np.zeros((0, 3))
        low, high = vertices.min(axis=0), vertices.max(axis=0)
        return np.array([[(low, high)[i][0], (low, high)[j][1], (low, high)[k][2]]
                         for i in (0, 1) for j in (0, 1) for k in (0, 1)])


def body_mesh(shape: Shape | None, index: int, point_radius: float, ellipsoid=None) -> Mesh | None:
    """The mesh of a body's shape (`index` picks its colour pair); a body without a shape is its inertia's
    `ellipsoid` ((semi-axes, axes), engine.model.inertia_ellipsoid) when it has an inertia, else a point mass:
    a small ball of `point_radius`; None for a shape with nothing to draw."""
    dark, light = BODY_COLOURS[index % len(BODY_COLOURS)]
    kind = shape.kind if shape is not None else "point"
    if kind == "point" and ellipsoid is not None and min(ellipsoid[0]) > 1e-3 * max(ellipsoid[0]):
        return _striped(_ellipsoid(*ellipsoid), dark, light)
    if kind == "rod" and shape.length > 0:
        return _striped(_cylinder(shape.length, max(ROD_RADIUS * shape.length, ROD_MIN_RADIUS), axis=0), dark, light)
    if kind == "disk" and shape.radius > 0:
        return _striped(_cylinder(DISK_THICKNESS * shape.radius, shape.radius, axis=2), dark, light)
    if kind == "sphere" and shape.radius > 0:
        return _striped(_sphere(shape.radius), dark, light)
    if kind == "box" and any(shape.size):
        return _box(np.maximum(np.asarray(shape.size, dtype=float), 1e-3 * max(shape.size)))
    if kind == "point" and point_radius > 0:
        return _striped(_sphere(point_radius), dark, light)
    return None


def _ellipsoid(semi_axes, axes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit sphere stretched by `semi_axes` along the columns of `axes` (normals by the inverse stretch)."""
    points, normals, stripes = _sphere(1.0)
    stretch = np.asarray(axes) * np.asarray(semi_axes)[None, :]  # R diag(a)
    bend = np.asarray(axes) / np.asarray(semi_axes)[None, :]  # R diag(1/a): normals of a stretched surface
    normals = normals @ bend.T
    normals /= np.maximum(np.linalg.norm(normals, axis=-1, keepdims=True), 1e-300)
    return points @ stretch.T, normals, stripes


def _striped(parts: tuple[np.ndarray, np.ndarray, np.ndarray], dark, light) -> Mesh:
    triangles, normals, stripe = parts
    rgb = np.where((stripe % 2 == 0)[:, None], np.array(dark), np.array(light))
    colours = np.concatenate([rgb, np.ones((len(rgb), 1))], axis=1)
    return Mesh(triangles.astype(np.float32), normals.astype(np.float32),
                np.repeat(colours[:, None, :], 3, axis=1).astype(np.float32))


def face_normals(triangles: np.ndarray) -> np.ndarray:
    """Each triangle's outward normal (counter-clockwise corners) at its three corners."""
    n = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
    return np.repeat(n[:, None, :], 3, axis=1)


def _cylinder(length: float, radius: float, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A closed cylinder along body `axis` (0: x, 2: z), centred; returns triangles, normals
    (round on the side, flat on the caps) and a stripe number per triangle (sectors of the caps
    and rim; for a rod along x also bands along it)."""
    angles = np.linspace(0.0, 2.0 * np.pi, ROUND_SEGMENTS + 1)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1) * radius
    sector = (np.arange(ROUND_SEGMENTS) * STRIPES // ROUND_SEGMENTS)
    bands = STRIPES if axis == 0 else 1
    edges = np.linspace(-0.5 * length, 0.5 * length, bands + 1)
    triangles, stripes = [], []
    for k in range(ROUND_SEGMENTS):
        a, b = ring[k], ring[k + 1]
        for j in range(bands):  # the side, in bands
            lo, hi = edges[j], edges[j + 1]
            p = [(*a, lo), (*b, lo), (*b, hi), (*a, hi)]
            triangles += [(p[0], p[1], p[2]), (p[0], p[2], p[3])]
            stripe = sector[k] + j if axis == 0 else sector[k]
            stripes += [stripe, stripe]
        for end, sign in ((0.5 * length, 1.0), (-0.5 * length, -1.0)):  # the caps, facing out
            centre, pa, pb = (0.0, 0.0, end), (*a, end), (*b, end)
            triangles.append((centre, pa, pb) if sign > 0 else (centre, pb, pa))
            stripes.append(sector[k])
    points = np.asarray(triangles, dtype=float)
    normals = face_normals(points)
    side = np.abs(normals[:, 0, 2]) < 0.5
    radial = points[side].copy()
    radial[..., 2] = 0.0
    normals[side] = radial / np.linalg.norm(radial, axis=2, keepdims=True)
    if axis == 0:  # built along z: turn z to the body axis
        points, normals = points[..., [2, 0, 1]], normals[..., [2, 0, 1]]
    return points, normals, np.asarray(stripes)


def _sphere(radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A UV sphere; the stripe number alternates by gore (longitude slice)."""
    theta = np.linspace(0.0, np.pi, SPHERE_RINGS + 1)
    phi = np.linspace(0.0, 2.0 * np.pi, SPHERE_GORES + 1)

    def point(i, j):
        return radius * np.array([np.sin(theta[i]) * np.cos(phi[j]), np.sin(theta[i]) * np.sin(phi[j]),
                                  np.cos(theta[i])])

    triangles, stripes = [], []
    for i in range(SPHERE_RINGS):
        for j in range(SPHERE_GORES):
            p00, p01, p10, p11 = point(i, j), point(i, j + 1), point(i + 1, j), point(i + 1, j + 1)
            if i < SPHERE_RINGS - 1:  # (the last ring's p10 = p11 is the south pole)
                triangles.append((p00, p10, p11))
                stripes.append(j)
            if i > 0:  # (the first ring's p00 = p01 is the north pole)
                triangles.append((p00, p11, p01))
                stripes.append(j)
    points = np.asarray(triangles)
    return points, points / radius, np.asarray(stripes)


def _box(size: np.ndarray) -> Mesh:
    """A box with edges along the body axes; each face its axis's colour, lighter on the + side."""
    half = 0.5 * size
    triangles, colours = [], []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for side, sign in enumerate((-1.0, 1.0)):
            corners = []
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis], p[u], p[v] = sign * half[axis], a * half[u], b * half[v]
                corners.append(p)
            if sign < 0:
                corners.reverse()  # counter-clockwise seen from outside
            triangles += [(corners[0], corners[1], corners[2]), (corners[0], corners[2], corners[3])]
            colours += [BOX_FACES[2 * axis + side]] * 2
    rgba = np.concatenate([np.asarray(colours), np.ones((len(colours), 1))], axis=1)
    points = np.asarray(triangles, dtype=float)
    return Mesh(points.astype(np.float32), face_normals(points).astype(np.float32),
                np.repeat(rgba[:, None, :], 3, axis=1).astype(np.float32))
