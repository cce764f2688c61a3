"""Load and save ``*.eom.json`` model files (shared/MODEL_FORMAT.md, version 1).

Every field is validated with its path (``bodies[1].mass``); an unknown field is an error.
Problems raise :class:`engine.model.ModelError` with a one-line message; when the model came
from a file, ``error.source`` is the file name.

What the loader fills in or changes
-----------------------------------
- Defaults: gravity, ``at``/``com`` at the origin, zero ``q0``/``u0``, coordinate names
  ``<body>_<dof>``, constraint and force names ``<type><index>`` (``distance0``), inertia
  from ``shape`` (zero without a shape: a point mass), settings.
- Joint axes, knife-edge directions and disk axes are scaled to unit length.
- A ``rotation`` given as ``{"axis": [...], "angle": a}`` becomes its 3x3 matrix.
- Inertia given as three principal moments becomes the diagonal 3x3 matrix.
- Bodies are reordered, stably, so that each parent comes before its children: the rest of
  the engine walks the tree from the ground outwards. A file already in that order (the
  usual case) keeps its order.

Example
-------
>>> m = loads_model('{"bodies": [{"name": "p", "parent": "ground", '
...                 '"joint": {"type": "revolute"}, "mass": 1, "com": [1, 0, 0]}]}')
>>> m.coordinate_names
('p_theta

The package, by job: `json_text` (JSON to data), `fields` (one field each), `bodies`, `constraints`,
`forces`, `settings` (a section each), `names` (names across sections), `reading` (the model),
`writing` (dict, text and atomic save), `schema` (the format's constants), `edit_rules` (what an edit
carries with it, where a new body hangs).
"""
from __future__ import annotations

from eomlab.engine.modelfile.reading import load_model, loads_model, model_from_dict
from eomlab.engine.modelfile.schema import FORMAT_VERSION, MAX_BODIES, MAX_CONSTRAINTS, MAX_FILE_BYTES, MAX_FORCES
from eomlab.engine.modelfile.writing import dumps_model, model_to_dict, save_model

__all__ = ["FORMAT_VERSION", "MAX_BODIES", "MAX_CONSTRAINTS", "MAX_FILE_BYTES", "MAX_FORCES", "dumps_model",
           "load_model", "loads_model", "model_from_dict", "model_to_dict", "save_model"]
