"""Units on the plot axes, from the joints of the model."""
from eomlab.engine.modelfile import loads_model
from eomlab.engine.presets import preset
from eomlab.gui.plots.plot_panel import coordinate_unit


def test_units_follow_the_joint_kinds():
    model = preset("cart_pendulum")
    assert coordinate_unit("x", model) == "m" and coordinate_unit("theta", model) == "rad"


def test_euler_parameters_are_pure_numbers():
    box = preset("tumbling_box")
    assert {coordinate_unit(n, box) for n in box.bodies[0].joint.names} == {"1"}
    # absolute coordinates in 3-D: the names are not the model's joint names
    assert coordinate_unit("top_e2", preset("heavy_top")) == "1"
    assert coordinate_unit("top_z", preset("heavy_top")) == "m"
    free = loads_model('{"eomlab": 1, "bodies": [{"name": "b", "parent": "ground", "mass": 1, '
                       '"joint": {"type": "free", "orientation": "quaternion"}}]}')
    assert [coordinate_unit(n, free) for n in free.bodies[0].joint.names] == ["m"] * 3 + ["1"] * 4
