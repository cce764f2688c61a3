"""The built-in models, as functions returning :class:`engine.model.Model`.

Each preset fills in what the loader would (coordinate names, inertia from the shape), so a
preset equals the model loaded back from its file in ``assets/models``. Write those files with

    python -m eomlab.engine.presets --write assets/models

Conventions: SI units; planar models move in the x-y plane with gravity [0, -9.81, 0] and
revolute axes along z; spatial models have gravity along -z.

Example
-------
>>> model = preset("planar_chain", n=2, kind="point")
>>> model.coordinate_names
('link1_theta', 'link2_theta')
"""
from __future__ import annotations

import argparse
import os
from typing import Callable, Sequence

from eomlab.engine.model import Model
from eomlab.engine.modelfile import save_model
from eomlab.engine.presets.cardan import cardan_shaft
from eomlab.engine.presets.constrained import (
    acceleration_constraint_particle, cartesian_pendulum, chaplygin_sleigh, driven_crank, four_bar, knife_edge,
    rolling_disk_leaning, rolling_disk_vertical, spherical_pendulum_cartesian,
)
from eomlab.engine.presets.parts import euler_matrix
from eomlab.engine.presets.planar_presets import cart_pendulum, double_compound_pendulum, double_pendulum_absolute, planar_chain, simple_pendulum
from eomlab.engine.presets.impact_presets import bouncing_ball, double_pendulum_limits, newtons_cradle, newtons_cradle_2, pendulum_stop
from eomlab.engine.presets.spatial_presets import heavy_top, rigid_body_fixed_point, spatial_chain, tumbling_box
from eomlab.engine.presets.stability_presets import benchmark_bicycle, double_pendulum_points, sleeping_top

__all__ = ["DEFAULT_PRESET", "PRESETS", "euler_matrix", "main", "preset", "write_presets", "planar_chain"]

PRESETS: dict[str, Callable[..., Model]] = {
    "double_compound_pendulum": double_compound_pendulum,
    "planar_chain": planar_chain,
    "simple_pendulum": simple_pendulum,
    "cart_pendulum": cart_pendulum,
    "spatial_chain": spatial_chain,
    "rigid_body_fixed_point": rigid_body_fixed_point,
    "heavy_top": heavy_top,
    "tumbling_box": tumbling_box,
    "four_bar": four_bar,
    "cartesian_pendulum": cartesian_pendulum,
    "spherical_pendulum_cartesian": spherical_pendulum_cartesian,
    "knife_edge": knife_edge,
    "chaplygin_sleigh": chaplygin_sleigh,
    "rolling_disk_vertical": rolling_disk_vertical,
    "rolling_disk_leaning": rolling_disk_leaning,
    "acceleration_constraint_particle": acceleration_constraint_particle,
    "driven_crank": driven_crank,
    "double_pendulum_absolute": double_pendulum_absolute,
    "benchmark_bicycle": benchmark_bicycle,
    "sleeping_top": sleeping_top,
    "double_pendulum_points": double_pendulum_points,
    "pendulum_stop": pendulum_stop,
    "bouncing_ball": bouncing_ball,
    "newtons_cradle": newtons_cradle,
    "newtons_cradle_2": newtons_cradle_2,
    "double_pendulum_limits": double_pendulum_limits,
    "cardan_shaft": cardan_shaft,
}
DEFAULT_PRESET = "double_compound_pendulum"


def preset(name: str, **params) -> Model:
    """Build the preset `name` with optional parameters (see each preset's function).

    Raises
    ------
    KeyError
        For an unknown preset name.
    """
    if name not in PRESETS:
        raise KeyError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return PRESETS[name](**params)


def write_presets(directory: str) -> list[str]:
    """Save every preset with its default parameters as ``<directory>/<name>.eom.json``."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for name, build in PRESETS.items():
        path = os.path.join(directory, f"{name}.eom.json")
        save_model(build(), path)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eomlab.engine.presets", description=__doc__.split("\n")[0])
    parser.add_argument("--write", metavar="DIRECTORY", help="write every preset as DIRECTORY/<name>.eom.json")
    args = parser.parse_args(argv)
    if args.write:
        for path in write_presets(args.write):
            print(path)
    else:
        print("\n".join(PRESETS))
    return 0

