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


def test_the_plot_columns_share_the_width_equally(make_window, qtbot):
    """The four-bar's six plots at 1100 px: three columns of one width (the motion plot was squeezed to
    209 px beside a 444 px phase portrait, its legend cut), to 2 % of the panel."""
    window = make_window(preset("four_bar"), run=True)
    window.resize(1100, 750)
    panel = window.plots
    qtbot.waitUntil(lambda: len(panel.shown) == 6 and all(panel.plots[k].width() > 0 for k in panel.shown),
                    timeout=60_000)
    qtbot.wait(50)
    widths = [panel.plots[k].width() for k in panel.shown[:3]]
    assert max(widths) - min(widths) <= 0.02 * panel.width(), widths
