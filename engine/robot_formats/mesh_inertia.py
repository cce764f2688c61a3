"""Mass properties of a triangle mesh as MuJoCo's compiler computes them: the mesh read from an STL (binary
or ASCII) or OBJ file, in single precision; its convex hull; and the volume (or area), mass centre and
inertia per unit density of the union of pyramids from its faces (engine/robot_formats/mjcf_inertia.py
applies MJCF's asset and compiler settings around them).
"""
from __future__ import annotations

import math
import os
import struct

import numpy as np

from eomlab.engine.model import ModelError
from eomlab.engine.robot_formats.xml_files import mesh_bytes

MJ_MINVAL = 1e-15  # MuJoCo's mjMINVAL: smaller triangles, areas and volumes count as none
MESH_INERTIA = ("legacy", "exact", "convex", "shell")  # <mesh inertia>: how the solid is formed


def single_precision(values: np.ndarray) -> np.ndarray:
    """Vertices as MuJoCo keeps them: single precision."""
    return np.asarray(values, dtype=np.float32).astype(float)


def read_mesh(path: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, triangles) of an STL (binary or ASCII) or OBJ file (polygons cut into fans)."""
    data = mesh_bytes(path, where)
    try:
        if path.lower().endswith(".obj"):
            vertices, faces = _obj(data)
        else:
            vertices = _stl(data)
            vertices, faces = np.unique(vertices, axis=0, return_inverse=True)  # MuJoCo merges STL's repeats
            faces = faces.reshape(-1, 3)
    except (ValueError, IndexError, struct.error):
        raise ModelError(where, f"mesh {os.path.basename(path)} could not be read as STL or OBJ") from None
    if not len(faces) or not np.all(np.isfinite(vertices)) or np.max(np.abs(vertices)) > 1e12:
        raise ModelError(where, f"mesh {os.path.basename(path)} has no faces or vertices beyond ±1e12")
    return vertices, faces


def _stl(data: bytes) -> np.ndarray:
    if len(data) >= 84:
        (count,) = struct.unpack_from("<I", data, 80)
        if 84 + 50 * count == len(data):
            facets = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]),
                                   count=count, offset=84)
            return facets["v"].reshape(-1, 3).astype(float)
    rows = [line.split()[1:4] for line in data.decode("ascii", "replace").splitlines()
            if line.strip().startswith("vertex")]
    return single_precision(np.array(rows, dtype=float).reshape(-1, 3))


def _obj(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    vertices, faces = [], []
    for line in data.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            vertices.append([float(v) for v in parts[1:4]])
        elif parts[0] == "f":
            ids = [int(p.split("/")[0]) for p in parts[1:]]
            ids = [i - 1 if i > 0 else len(vertices) + i for i in ids]
            if len(ids) == 4:  # a quad is cut along its shorter diagonal, as MuJoCo's OBJ reader does
                a, b, c, d = (np.array(vertices[i], dtype=np.float32) for i in ids)
                if np.sum((a - c) ** 2) < np.sum((b - d) ** 2):
                    faces += [(ids[0], ids[1], ids[2]), (ids[0], ids[2], ids[3])]
                else:
                    faces += [(ids[0], ids[1], ids[3]), (ids[1], ids[2], ids[3])]
                continue
            faces += [(ids[0], ids[k], ids[k + 1]) for k in range(1, len(ids) - 1)]
    vertices = single_precision(np.array(vertices, dtype=float).reshape(-1, 3))
    faces = np.array(faces, dtype=int).reshape(-1, 3)
    if len(faces) and (faces.min() < 0 or faces.max() >= len(vertices)):
        raise ValueError("face index out of range")
    return vertices, faces


def hull_faces(vertices: np.ndarray, where: str) -> np.ndarray:
    """The convex hull's triangles, turned outwards."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(vertices)
    except (QhullError, ValueError):
        raise ModelError(where, "its points span no volume (no convex hull)") from None
    faces = hull.simplices.copy()
    normals = np.cross(vertices[faces[:, 1]] - vertices[faces[:, 0]], vertices[faces[:, 2]] - vertices[faces[:, 0]])
    inward = np.einsum("ij,ij->i", normals, hull.equations[:, :3]) < 0
    faces[inward] = faces[inward][:, [0, 2, 1]]
    return faces


def _triangles(vertices: np.ndarray, faces: np.ndarray):
    """Per triangle: area, unit normal (zero for slivers below mjMINVAL) and centroid."""
    D, E, F = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
    cross = np.cross(E - D, F - D)
    length = np.linalg.norm(cross, axis=1)
    keep = length >= MJ_MINVAL
    area = np.where(keep, 0.5 * length, 0.0)
    normal = np.zeros_like(cross)
    normal[keep] = cross[keep] / length[keep, None]
    return area, normal, (D + E + F) / 3


def integrate(vertices: np.ndarray, faces: np.ndarray, mode: str, where: str):
    """MuJoCo's union of pyramids: from the faces' area-weighted centroid for the mass centre, then from
    the mass centre for the volume and the second moments."""
    area, _, centre = _triangles(vertices, faces)
    total_area = float(area.sum())
    if total_area < MJ_MINVAL:
        raise ModelError(where, "mesh surface area is too small (MuJoCo refuses it too)")
    facecen = (area[:, None] * centre).sum(axis=0) / total_area
    if mode == "exact":
        big = area > math.sqrt(MJ_MINVAL)
        edges = np.concatenate([faces[big][:, [0, 1]], faces[big][:, [1, 2]], faces[big][:, [2, 0]]])
        if len(np.unique(edges, axis=0)) < len(edges):
            raise ModelError(f"{where} inertia", "exact needs consistently oriented faces; these are not")
    solid = faces if mode != "convex" else hull_faces(vertices, where)
    if mode == "shell":
        com = facecen
    else:
        a, n, c = _triangles(vertices, solid)
        v = np.einsum("ij,ij->i", c - facecen, n) * a / 3
        v = np.abs(v) if mode == "legacy" else v
        volume = float(v.sum())
        if volume < MJ_MINVAL:
            why = "negative (faces turned inwards)" if volume < 0 else "too small (try inertia=\"shell\")"
            raise ModelError(where, f"mesh volume is {why} (MuJoCo refuses it too)")
        com = (v[:, None] * (0.75 * c + 0.25 * facecen)).sum(axis=0) / volume
    centred = vertices - com
    a, n, c = _triangles(centred, solid)
    weight = a if mode == "shell" else np.einsum("ij,ij->i", c, n) * a / 3
    weight = np.abs(weight) if mode == "legacy" else weight
    D, E, F = centred[solid[:, 0]], centred[solid[:, 1]], centred[solid[:, 2]]
    # ∫ x xᵀ over a pyramid from the origin (solid) or over a triangle (shell): weight / C × (Σ_p p pᵀ + S Sᵀ),
    # S = D + E + F, which is the textbook 2(DDᵀ + EEᵀ + FFᵀ) + the mixed terms
    S = D + E + F
    second = (np.einsum("i,ij,ik->jk", weight, D, D) + np.einsum("i,ij,ik->jk", weight, E, E)
              + np.einsum("i,ij,ik->jk", weight, F, F) + np.einsum("i,ij,ik->jk", weight, S, S))
    second /= 12.0 if mode == "shell" else 20.0
    tensor = np.trace(second) * np.eye(3) - second
    return float(weight.sum()), com, tensor
