"""Body.inertia_from_shape: the shape's inertia (left out of the file, or written as saved) versus
one set by hand; edits of the mass or shape carry a shape-derived inertia along."""
from __future__ import annotations

import pytest

from eomlab.engine.model import Shape, shape_inertia
from eomlab.engine.modelfile import model_from_dict
from eomlab.gui.editing import edits


def rod_model(**body):
    base = {"name": "rod", "parent": "ground", "joint": {"type": "revolute"}, "mass": 2.0, "com": [0.5, 0, 0],
            "shape": {"kind": "rod", "length": 1.5}}
    return model_from_dict({"eomlab": 1, "bodies": [{**base, **body}]})


def test_left_out_or_written_as_the_shapes_counts_as_from_the_shape():
    derived = rod_model()
    assert derived.bodies[0].inertia_from_shape
    assert derived.bodies[0].inertia == shape_inertia(Shape("rod", length=1.5), 2.0)
    written = rod_model(inertia=[0, 2.0 * 1.5 ** 2 / 12, 2.0 * 1.5 ** 2 / 12])
    assert written.bodies[0].inertia_from_shape and written == derived
    assert not rod_model(inertia=[0, 0.5, 0.5]).bodies[0].inertia_from_shape


@pytest.mark.parametrize("path, value, expected", [
    (("bodies", 0, "mass"), 6.0, 6.0 * 1.5 ** 2 / 12),
    (("bodies", 0, "shape", "length"), 3.0, 2.0 * 3.0 ** 2 / 12),
    (("bodies", 0, "shape"), {"kind": "sphere", "radius": 0.5}, 0.4 * 2.0 * 0.25),
])
def test_edits_carry_a_shape_derived_inertia_along(path, value, expected):
    edited = edits.set_field(rod_model(), path, value)
    assert edited.bodies[0].inertia[2][2] == pytest.approx(expected, rel=1e-15)
    assert edited.bodies[0].inertia_from_shape


def test_an_inertia_set_by_hand_is_kept():
    edited = edits.set_field(rod_model(inertia=[0, 0.5, 0.5]), ("bodies", 0, "mass"), 6.0)
    assert edited.bodies[0].inertia[2][2] == 0.5 and edited.bodies[0].mass == 6.0
