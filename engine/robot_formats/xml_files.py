"""Reading robot-model XML safely: defusedxml only (no entities, no DTD-declared expansions, no
external references), and no file reached outside the model's own folder (includes, meshes)."""
from __future__ import annotations

import os
import struct
import xml.etree.ElementTree as ET

import numpy as np
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from eomlab.engine.limits import MAX_MAGNITUDE
from eomlab.engine.model import ModelError

MAX_XML_BYTES = 50 * 2**20  # a robot description is far smaller
MAX_MESH_BYTES = 200 * 2**20


def parse_xml(path: str | os.PathLike) -> ET.Element:
    """The root element; a ModelError for an unreadable, unsafe or malformed file."""
    path = os.fspath(path)
    try:
        if os.path.getsize(path) > MAX_XML_BYTES:
            raise ModelError("", f"file larger than {MAX_XML_BYTES // 2**20} MB")
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise ModelError("", f"cannot read: {err.strerror or err}") from None
    try:
        return fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as err:
        name = getattr(err, "name", None)
        where = f"<!ENTITY {name}>" if name else "<!DOCTYPE>"
        raise ModelError(where, "refused: XML entities and external references are not read (entity bombs, "
                         "other files)") from None
    except ET.ParseError as err:
        raise ModelError("", f"not well-formed XML: {err}") from None


def inside_folder(folder: str, relative: str, element: str) -> str:
    """`relative` resolved against `folder`, refused when it leaves the folder (.., absolute
    paths, symbolic links pointing out)."""
    base = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(base, relative))
    if os.path.commonpath([base, target]) != base:
        raise ModelError(element, f"{relative!r} leaves the model's folder; files must stay inside {base}")
    return target


def mesh_bytes(path: str, where: str) -> bytes:
    """A mesh file's contents, refused in one line when too large or unreadable."""
    try:
        if os.path.getsize(path) > MAX_MESH_BYTES:
            raise ModelError(where, f"mesh {os.path.basename(path)} is larger than {MAX_MESH_BYTES // 2**20} MB")
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as err:
        raise ModelError(where, f"cannot read mesh: {err.strerror or err}") from None


def mesh_bounds(path: str, element: str) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) corners of the box around an STL (binary or ASCII) or OBJ mesh's vertices."""
    data = mesh_bytes(path, element)
    vertices = _obj_vertices(data) if path.lower().endswith(".obj") else _stl_vertices(data)
    if not len(vertices) or not np.all(np.isfinite(vertices)):
        raise ModelError(element, f"mesh {os.path.basename(path)} has no (finite) vertices")
    if np.max(np.abs(vertices)) > MAX_MAGNITUDE:  # their box's size would overflow
        raise ModelError(element, f"mesh {os.path.basename(path)} has vertices beyond ±{MAX_MAGNITUDE:g}")
    return vertices.min(axis=0), vertices.max(axis=0)


def _stl_vertices(data: bytes) -> np.ndarray:
    if len(data) >= 84:
        (count,) = struct.unpack_from("<I", data, 80)
        if 84 + 50 * count == len(data):  # binary: 50 bytes per facet, normal then 3 vertices
            facets = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]),
                                   count=count, offset=84)
            return facets["v"].reshape(-1, 3).astype(float)
    rows = [line.split()[1:4] for line in data.decode("ascii", "replace").splitlines() if line.strip().startswith("vertex")]
    return np.array(rows, dtype=float).reshape(-1, 3)


def _obj_vertices(data: bytes) -> np.ndarray:
    rows = [line.split()[1:4] for line in data.decode("utf-8", "replace").splitlines() if line.startswith("v ")]
    return np.array(rows, dtype=float).reshape(-1, 3)
