"""MJCF body mass and inertia as MuJoCo's compiler infers them from the geoms (issue #29).

The rules, as MuJoCo documents and applies them:

- ``<compiler inertiafromgeom>``: ``auto`` (the default) infers a body's mass from its geoms when it has
  no ``<inertial>``, ``true`` always (an ``<inertial>`` stands only where no geom has mass), ``false``
  never. Only geoms whose ``group`` lies in ``inertiagrouprange`` (default 0 5) count.
- A geom's mass is its ``mass`` when given (its density then mass / volume), else ``density`` (default
  1000) × volume; ``shellinertia="true"`` spreads it over the surface (density per area). Spheres,
  capsules, cylinders, ellipsoids and boxes have closed formulas (the ellipsoid's shell: Thomsen's area
  and a thin layer); a mesh is integrated over pyramids from its faces (``<mesh inertia>``: legacy, the
  default, counts each pyramid's volume positive; exact signs them; convex uses the convex hull; shell
  the surface). Mesh vertices are single precision, as MuJoCo stores them.
- ``fromto`` places a capsule, cylinder, box or ellipsoid between two points (z along the segment).
- A primitive naming a ``mesh`` is fitted to it: to its equivalent inertia box along its principal
  axes, or to its bounding box there under ``<compiler fitaabb="true">``; × ``fitscale``.
- Several geoms combine about their common mass centre (parallel axes); one geom is copied.
- Then, for every body: mass ≥ ``boundmass``, principal moments ≥ ``boundinertia``; principal moments
  that break the triangle inequality are averaged under ``balanceinertia``; ``settotalmass`` scales all
  masses and inertias last. A body with neither ``<inertial>`` nor massive geoms keeps its mass centre
  at its own ``pos`` in its frame (MuJoCo's body_ipos then), which matters only under the bounds.
"""
from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.model import ModelError
from eomlab.engine.rotations import axis_angle_matrix, quaternion_matrix
from eomlab.engine.robot_formats.building import balanced_moments, numbers
from eomlab.engine.robot_formats.mesh_inertia import (MESH_INERTIA, MJ_MINVAL, hull_faces, integrate, read_mesh,
                                                     single_precision)
from eomlab.engine.robot_formats.xml_files import inside_folder

MJ_EPS = 1e-14  # MuJoCo's mjEPS: lighter geoms are left out, smaller volumes take no given mass
SIZES_NEEDED = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}


@dataclass
class InertiaRules:
    """The ``<compiler>`` attributes that decide body masses, and the meshes read so far."""

    fromgeom: str = "auto"
    groups: tuple = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    balance: bool = False
    totalmass: float = -1.0
    fitaabb: bool = False
    meshes: dict = field(default_factory=dict)
    vertices: dict = field(default_factory=dict)  # mesh name → its vertices as integrated

    @classmethod
    def read(cls, compiler: ET.Element | None) -> "InertiaRules":
        if compiler is None:
            return cls()
        get = compiler.get
        fromgeom = get("inertiafromgeom", "auto")
        if fromgeom not in ("auto", "true", "false"):
            raise ModelError("<compiler> inertiafromgeom", f"expected auto, true or false, got {fromgeom!r}")
        balance = get("balanceinertia", "false")
        if balance not in ("true", "false"):
            raise ModelError("<compiler> balanceinertia", f"expected true or false, got {balance!r}")
        groups = numbers(get("inertiagrouprange"), 2, "<compiler> inertiagrouprange", (0, 5))
        rules = cls(fromgeom, tuple(groups), _scalar(get("boundmass"), "<compiler> boundmass"),
                    _scalar(get("boundinertia"), "<compiler> boundinertia"), balance == "true",
                    _scalar(get("settotalmass"), "<compiler> settotalmass", -1.0))
        rules.fitaabb = get("fitaabb", "false") == "true"
        return rules

    def from_geoms(self, has_inertial: bool) -> bool:
        return self.fromgeom == "true" or (self.fromgeom == "auto" and not has_inertial)


def _scalar(text: str | None, where: str, default: float = 0.0) -> float:
    return float(numbers(text, 1, where, (default,))[0])


# --- bodies ----------------------------------------------------------------------------------------------


def body_mass_properties(reader, element: ET.Element, where: str, active: str,
                         explicit: tuple | None) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, mass centre, inertia tensor about it) of one <body> in its own frame, after MuJoCo's rules;
    `explicit` is its <inertial>'s (mass, centre, tensor) or None."""
    rules: InertiaRules = reader.inertia_rules
    found = None
    if rules.from_geoms(explicit is not None):
        parts = [p for p in (geom_mass_properties(reader, geom, f"{where}/geom[{k}]", active)
                             for k, geom in enumerate(element.findall("geom"))) if p is not None and p[0] > MJ_EPS]
        if len(parts) == 1:
            found = parts[0]
        elif parts:
            mass = sum(p[0] for p in parts)
            com = sum(p[0] * p[1] for p in parts) / mass
            tensor = sum(p[2] + _offcentre(p[0], p[1] - com) for p in parts)
            found = mass, com, tensor
    if found is None:
        found = explicit
    if found is None:  # MuJoCo puts the inertial frame of such a body at the body's own pos
        found = 0.0, numbers(element.get("pos"), 3, f"{where} pos", (0.0, 0.0, 0.0)), np.zeros((3, 3))
    return bounded(rules, *found, where)


def _offcentre(mass: float, d: np.ndarray) -> np.ndarray:
    """The parallel-axis term: a point mass at d about the origin."""
    return mass * (float(d @ d) * np.eye(3) - np.outer(d, d))


def bounded(rules: InertiaRules, mass: float, com: np.ndarray, tensor: np.ndarray, where: str = "<body>"):
    """boundmass, boundinertia (on the principal moments) and balanceinertia applied, as MuJoCo does for
    every body but the world."""
    if rules.boundmass <= 0 and rules.boundinertia <= 0 and not rules.balance:
        return mass, com, tensor
    principal, axes = np.linalg.eigh(0.5 * (tensor + tensor.T))
    mass = max(mass, rules.boundmass)
    if principal[0] < -1e-9 * float(np.abs(principal).max()) and rules.boundinertia <= 0:  # else lifted, as MuJoCo does
        raise ModelError(where, f"inertia has a negative principal moment {principal[0]:.6g} (MuJoCo refuses it too)")
    principal = np.maximum(principal, rules.boundinertia)
    if rules.balance:
        principal = balanced_moments(principal)
    return mass, com, axes @ np.diag(principal) @ axes.T


def scale_to_total(bodies: list, rules: InertiaRules) -> list:
    """``settotalmass``: every body's mass and inertia scaled so that they add up to it (MuJoCo's
    mj_setTotalmass, applied last)."""
    from dataclasses import replace

    if rules.totalmass <= 0:
        return bodies
    total = sum(b.mass for b in bodies)
    scale = max(MJ_MINVAL, rules.totalmass / max(MJ_MINVAL, total))
    return [replace(b, mass=b.mass * scale, inertia=tuple(tuple(v * scale for v in row) for row in b.inertia))
            for b in bodies]


# --- geoms -----------------------------------------------------------------------------------------------


def geom_mass_properties(reader, geom: ET.Element, where: str, active: str):
    """(mass, centre in the body frame, inertia tensor about the centre in the body frame) of one geom, or
    None when it does not count (its group is outside inertiagrouprange, or it has no volume here)."""
    rules: InertiaRules = reader.inertia_rules
    get = lambda key, default=None: reader.defaults.get(geom, key, active, default)  # noqa: E731
    group = int(_scalar(get("group"), f"{where} group"))
    if not rules.groups[0] <= group <= rules.groups[1]:
        return None
    kind = get("type", "sphere")
    shell = get("shellinertia", "false")
    if shell not in ("true", "false"):
        raise ModelError(f"{where} shellinertia", f"expected true or false, got {shell!r}")
    mass_text, density = get("mass"), _scalar(get("density"), f"{where} density", 1000.0)
    given_mass = None if mass_text is None else _scalar(mass_text, f"{where} mass")
    if density < 0 or (given_mass is not None and given_mass < 0):
        raise ModelError(f"{where} {'density' if density < 0 else 'mass'}", "must be >= 0 (MuJoCo refuses it too)")
    if kind in ("plane", "hfield", "sdf"):
        if kind != "plane":
            reader.unmapped.add("masses of hfield and sdf geoms", where, "left out of the body's mass")
        return None
    pos = numbers(get("pos"), 3, f"{where} pos", (0.0, 0.0, 0.0))
    if get("mesh") is not None and kind in SIZES_NEEDED:  # a primitive fitted to a mesh
        size, pos, R = _fitted(reader, geom, kind, pos, where, active)
        volume, unit_tensor = primitive_volume(kind, size, shell == "true"), None
    elif kind == "mesh":
        volume, centre, unit_tensor = mesh_mass_properties(reader, get("mesh"), where)
        R = reader.orientation(geom, where, active)
        pos = pos + R @ centre
    elif kind in SIZES_NEEDED:
        size, pos, R = _placed_size(reader, geom, kind, pos, where, active)
        volume = primitive_volume(kind, size, shell == "true")
        unit_tensor = None
    else:
        raise ModelError(f"{where} type", f"unknown geom type {kind!r}")
    if given_mass is not None:
        if given_mass == 0 or not volume > MJ_EPS:
            return None
        mass = given_mass
        density = given_mass / volume
    else:
        if density == 0:
            return None
        mass = density * volume
    if unit_tensor is not None:
        tensor = density * unit_tensor
    else:
        try:
            tensor = np.diag(primitive_moments(kind, size, mass, shell == "true"))
        except ModelError as err:
            raise ModelError(f"{where} size", err.message) from None
    return mass, pos, R @ tensor @ R.T


def _fitted(reader, geom, kind: str, pos: np.ndarray, where: str, active: str):
    """(size, position, rotation) of a primitive fitted to its mesh as MuJoCo fits it: to the mesh's
    equivalent inertia box, or with compiler fitaabb to its box along the principal axes; × fitscale."""
    if reader.defaults.get(geom, "fromto", active) is not None:
        raise ModelError(f"{where} fromto", "cannot place a geom fitted to a mesh (MuJoCo refuses it too)")
    volume, centre, unit_tensor = mesh_mass_properties(reader, reader.defaults.get(geom, "mesh", active), where)
    moments, axes = np.linalg.eigh(unit_tensor)
    moments, axes = moments[::-1], axes[:, ::-1]  # MuJoCo's principal axes: moments decreasing
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    R = reader.orientation(geom, where, active)
    offset = np.zeros(3)
    if reader.inertia_rules.fitaabb:
        local = (reader.inertia_rules.vertices[reader.defaults.get(geom, "mesh", active)] - centre) @ axes
        low, high = local.min(axis=0), local.max(axis=0)
        offset, half = (low + high) / 2, (high - low) / 2
        fit = {"sphere": [half.max(), 0, 0], "capsule": [max(half[:2]), half[2] - max(half[:2]), 0],
               "cylinder": [max(half[:2]), half[2], 0], "ellipsoid": half, "box": half}[kind]
    else:
        box = 0.5 * np.sqrt(np.maximum(6 * (moments.sum() - 2 * moments) / volume, 0.0))
        fit = {"sphere": [box.mean(), 0, 0], "capsule": [box[:2].mean(), max(0.0, box[2] - box[:2].mean() / 2), 0],
               "cylinder": [box[:2].mean(), box[2], 0], "ellipsoid": box, "box": box}[kind]
    size = np.array(fit, dtype=float) * _scalar(reader.defaults.get(geom, "fitscale", active), f"{where} fitscale", 1.0)
    for k in range(SIZES_NEEDED[kind]):
        if not size[k] > 0:
            raise ModelError(f"{where} size", f"size {k} of a {kind} fitted to its mesh is not positive (MuJoCo refuses it too)")
    return size, pos + R @ (centre + axes @ offset), R @ axes


def _placed_size(reader, geom, kind: str, pos: np.ndarray, where: str, active: str):
    """(size, position, rotation) of a primitive geom; fromto sets the last two and the half length."""
    text = reader.defaults.get(geom, "size", active) or "0"
    size = np.zeros(3)
    values = numbers(text, len(text.split()), f"{where} size")[:3]
    size[:len(values)] = values
    fromto = reader.defaults.get(geom, "fromto", active)
    if fromto is not None:
        ends = numbers(fromto, 6, f"{where} fromto")
        if np.any(pos):
            raise ModelError(where, "has both pos and fromto (MuJoCo refuses it too)")
        vec = ends[:3] - ends[3:]
        length = float(np.linalg.norm(vec))
        if length / 2 < MJ_EPS:
            raise ModelError(f"{where} fromto", "its two points coincide")
        vec = vec / length
        size[1] = length / 2
        if kind in ("ellipsoid", "box"):
            size[1], size[2] = size[0], length / 2
        axis = np.cross([0.0, 0.0, 1.0], vec)
        s = float(np.linalg.norm(axis))
        axis = axis / s if s >= 1e-10 else np.array([1.0, 0.0, 0.0])
        R = axis_angle_matrix(axis, math.atan2(s, vec[2]))
        pos = (ends[:3] + ends[3:]) / 2
    else:
        R = reader.orientation(geom, where, active)
    for k in range(SIZES_NEEDED[kind]):
        if not size[k] > 0:
            raise ModelError(f"{where} size", f"size {k} of a {kind} must be positive (MuJoCo refuses it too)")
    return size, pos, R


def primitive_volume(kind: str, size: np.ndarray, shell: bool) -> float:
    """Volume, or surface area for a shell (the ellipsoid's by Thomsen's approximation)."""
    r, h = size[0], 2 * size[1]
    if kind == "sphere":
        return 4 * math.pi * r**2 if shell else 4 * math.pi * r**3 / 3
    if kind == "capsule":
        return 4 * math.pi * r**2 + 2 * math.pi * r * h if shell else math.pi * (r**2 * h + 4 * r**3 / 3)
    if kind == "cylinder":
        return 2 * math.pi * r**2 + 2 * math.pi * r * h if shell else math.pi * r**2 * h
    a, b, c = size
    if kind == "ellipsoid":
        if not shell:
            return 4 * math.pi * a * b * c / 3
        p = 1.6075
        return 4 * math.pi * (((a * b) ** p + (b * c) ** p + (c * a) ** p) / 3) ** (1 / p)
    return 8 * (a * b + b * c + c * a) if shell else 8 * a * b * c  # box


def primitive_moments(kind: str, size: np.ndarray, m: float, shell: bool) -> np.ndarray:
    """Principal moments about the geom's centre, in its frame (z the long axis)."""
    r, half = size[0], size[1]
    h = 2 * half
    if kind == "sphere":
        return np.full(3, (2 / 3 if shell else 2 / 5) * m * r * r)
    if kind == "capsule":
        if not shell:  # a cylinder and two hemispheres, their centres 3r/8 beyond the cylinder's ends
            ms = m * 4 * r / (4 * r + 3 * h)
            mc = m - ms
            side = mc * (3 * r * r + h * h) / 12 + 2 * ms * r * r / 5 + ms * h * (3 * r + 2 * h) / 8
            return np.array([side, side, mc * r * r / 2 + 2 * ms * r * r / 5])
        area_sphere, area_side = 4 * math.pi * r * r, 2 * math.pi * r * h
        ms = m * area_sphere / (area_sphere + area_side)
        mc = m - ms
        centre, at = r / 2, half + r / 2  # a hemispherical shell's centre, and where it sits
        side = mc * (6 * r * r + h * h) / 12 + 2 * ms * r * r / 3 + ms * (at * at - centre * centre)
        return np.array([side, side, mc * r * r + 2 * ms * r * r / 3])
    if kind == "cylinder":
        if not shell:
            side = m * (3 * r * r + h * h) / 12
            return np.array([side, side, m * r * r / 2])
        area_disk, area_side = math.pi * r * r, 2 * math.pi * r * h
        md = m * area_disk / (2 * area_disk + area_side)
        mc = m - 2 * md
        side = mc * (6 * r * r + h * h) / 12 + 2 * (md * r * r / 4 + md * half * half)
        return np.array([side, side, mc * r * r + 2 * md * r * r / 2])
    a, b, c = size
    if kind == "ellipsoid":
        if not shell:
            return m * np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 5
        eps = 1e-6  # MuJoCo's shell: the ellipsoid grown by eps minus the ellipsoid
        va, vb = 4 * math.pi * a * b * c / 3, 4 * math.pi * (a + eps) * (b + eps) * (c + eps) / 3
        if not vb > va:  # sizes so large that eps vanishes in them
            raise ModelError("<geom> size", f"an ellipsoid shell of size {a:g} {b:g} {c:g} is beyond MuJoCo's thin-layer rule")
        rho = m / (vb - va)
        inner = va * rho * np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 5
        A, B, C = a + eps, b + eps, c + eps
        outer = vb * rho * np.array([B * B + C * C, A * A + C * C, A * A + B * B]) / 5
        return outer - inner
    if not shell:  # box
        return m * np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 3
    lx, ly, lz = 2 * a, 2 * b, 2 * c  # six plates: pairs normal to z, x and y
    areas = np.array([lx * ly, ly * lz, lz * lx])
    m0, m1, m2 = m * areas / (2 * areas.sum())
    ix = m0 * ly * ly / 12 + m1 * (ly * ly + lz * lz) / 12 + m2 * lz * lz / 12
    iy = m0 * lx * lx / 12 + m1 * lz * lz / 12 + m2 * (lx * lx + lz * lz) / 12
    iz = m0 * (lx * lx + ly * ly) / 12 + m1 * ly * ly / 12 + m2 * lx * lx / 12
    return 2 * np.array([m0 * c * c + m2 * b * b + ix, m0 * c * c + m1 * a * a + iy, m1 * a * a + m2 * b * b + iz])


# --- meshes ----------------------------------------------------------------------------------------------


def mesh_mass_properties(reader, name: str | None, where: str) -> tuple[float, np.ndarray, np.ndarray]:
    """(volume or area, centre, inertia tensor per unit density about the centre) of a mesh asset, in the
    mesh's own frame after its scale."""
    rules: InertiaRules = reader.inertia_rules
    if name in rules.meshes:
        return rules.meshes[name]
    asset = reader.meshes.get(name)
    if asset is None:
        raise ModelError(where, f"names an unknown mesh {name!r}")
    mwhere = f'<mesh name="{name}">'
    get = lambda key, default=None: reader.defaults.get(asset, key, "main", default)  # noqa: E731
    mode = get("inertia", "legacy")
    if mode not in MESH_INERTIA:
        raise ModelError(f"{mwhere} inertia", f"expected one of {', '.join(MESH_INERTIA)}, got {mode!r}")
    scale = numbers(get("scale"), 3, f"{mwhere} scale", (1.0, 1.0, 1.0))
    if asset.get("file") is not None:
        path = inside_folder(reader.folder, os.path.join(reader.meshdir, asset.get("file")), mwhere)
        vertices, faces = read_mesh(path, mwhere)
    else:
        vertices = single_precision(numbers(asset.get("vertex"), len((asset.get("vertex") or "").split()), f"{mwhere} vertex"))
        if len(vertices) % 3 or len(vertices) < 12:
            raise ModelError(f"{mwhere} vertex", "expected at least 4 points of 3 numbers")
        vertices = vertices.reshape(-1, 3)
        face_text = asset.get("face")
        faces = None
        if face_text:
            faces = numbers(face_text, len(face_text.split()), f"{mwhere} face").astype(int).reshape(-1, 3)
            if faces.min() < 0 or faces.max() >= len(vertices):
                raise ModelError(f"{mwhere} face", "names a vertex that is not there")
    refpos = numbers(get("refpos"), 3, f"{mwhere} refpos", (0.0, 0.0, 0.0))
    refquat = numbers(get("refquat"), 4, f"{mwhere} refquat", (1.0, 0.0, 0.0, 0.0))
    if not np.linalg.norm(refquat) > 0:
        raise ModelError(f"{mwhere} refquat", "is zero")
    vertices = (vertices - refpos) @ quaternion_matrix(refquat / np.linalg.norm(refquat)) * scale  # the frame's inverse
    if faces is None:
        faces = hull_faces(vertices, mwhere)
    elif np.prod(scale) < 0:  # a mirrored mesh: MuJoCo turns its faces back outwards
        faces = faces[:, [0, 2, 1]]
    result = integrate(vertices, faces, mode, mwhere)
    rules.meshes[name], rules.vertices[name] = result, vertices
    return result
