"""A model from a dict, a JSON text or a file: every section validated, with the file named in errors."""
from __future__ import annotations

import os

import numpy as np

from eomlab.engine.limits import check_limits
from eomlab.engine.model import Contact, Model, ModelError, Settings
from eomlab.engine.modelfile.bodies import _body, _tree_order
from eomlab.engine.modelfile.constraint_fields import _check_prescribed_once, _constraint
from eomlab.engine.modelfile.fields import _fields, _integer, _limited_list, _string, _vec3
from eomlab.engine.modelfile.force_fields import _force
from eomlab.engine.modelfile.json_text import _decode_json
from eomlab.engine.modelfile.names import _claim_body_names, _claim_coordinates, _Context, _Names
from eomlab.engine.modelfile.schema import _TOP_FIELDS, FORMAT_VERSION, MAX_BODIES, MAX_CONSTRAINTS, MAX_FILE_BYTES, MAX_FORCES
from eomlab.engine.modelfile.settings import _settings


def model_from_dict(data: dict, source: str | None = None) -> Model:
    """Validate a decoded model file and build the Model.

    Parameters
    ----------
    data : dict
        The decoded JSON object.
    source : str, optional
        File name reported in errors.

    Raises
    ------
    ModelError
        The first problem found, with its field path.
    """
    try:
        with np.errstate(all="ignore"):  # a number out of range is named by its check, not by numpy's warnings
            return check_limits(_build_model(data), data)
    except ModelError as error:
        if source is None:
            raise
        raise error.with_source(str(source)) from None


def _build_model(data: object) -> Model:
    data = _fields(data, "", _TOP_FIELDS)
    version = _integer(data["eomlab"], "eomlab") if "eomlab" in data else FORMAT_VERSION
    if version != FORMAT_VERSION:
        raise ModelError("eomlab", f"unsupported format version {version} (this eomlab reads version {FORMAT_VERSION})")
    name = _string(data["name"], "name") if "name" in data else Model().name
    gravity = _vec3(data["gravity"], "gravity") if "gravity" in data else Model().gravity

    body_data = _limited_list(data.get("bodies", []), "bodies", MAX_BODIES, "bodies")
    bodies = [_body(b, f"bodies[{i}]") for i, b in enumerate(body_data)]
    names = _Names()
    _claim_body_names(bodies, names)
    _claim_coordinates(bodies, body_data, names)
    ordered = _tree_order(bodies)

    ctx = _Context({b.name: b.joint.n_coordinates for b in ordered}, tuple(n for b in ordered for n in b.joint.names), names)
    constraint_data = _limited_list(data.get("constraints", []), "constraints", MAX_CONSTRAINTS, "constraints")
    items = tuple(_constraint(c, f"constraints[{i}]", i, ctx) for i, c in enumerate(constraint_data))
    constraints = tuple(c for c in items if not isinstance(c, Contact))
    contacts = tuple(c for c in items if isinstance(c, Contact))
    _check_prescribed_once(constraints)
    force_data = _limited_list(data.get("forces", []), "forces", MAX_FORCES, "forces")
    forces = tuple(_force(f, f"forces[{i}]", i, ctx) for i, f in enumerate(force_data))
    settings = _settings(data["settings"], "settings") if "settings" in data else Settings()
    return Model(name=name, gravity=gravity, bodies=ordered, constraints=constraints, forces=forces,
                 settings=settings, eomlab=version, contacts=contacts)


def loads_model(text: str, source: str | None = None) -> Model:
    """Load a model from JSON text. See :func:`model_from_dict` for errors."""
    try:
        if len(text) > MAX_FILE_BYTES:
            raise ModelError("", f"model text is too large ({len(text)} characters; at most {MAX_FILE_BYTES})")
        data = _decode_json(text)
    except ModelError as error:
        raise (error.with_source(str(source)) if source is not None else error) from None
    return model_from_dict(data, source)


def load_model(path: str | os.PathLike) -> Model:
    """Load a ``*.eom.json`` file; errors carry the file name as ``source``."""
    source = os.fspath(path)
    try:
        size = os.path.getsize(source)
        if size > MAX_FILE_BYTES:
            raise ModelError("", f"file is too large ({size / 2**20:.1f} MB; at most {MAX_FILE_BYTES // 2**20} MB)", source)
        with open(source, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ModelError("", f"cannot read the file: {exc.strerror or exc}", source) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ModelError("", "the file is not UTF-8 text", source) from None
    return loads_model(text, source)
