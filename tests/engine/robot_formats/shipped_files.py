"""Where the real robot files that packages ship are: dm_control's suite and gymnasium's MuJoCo assets (MJCF),
example-robot-data's URDFs (a cmeel package: its files sit under cmeel.prefix/share). Each finder skips the
test when its package is not installed."""
from __future__ import annotations

import glob
import os

import pytest


def dm_control_suite() -> list[str]:
    dm_control = pytest.importorskip("dm_control")
    return sorted(glob.glob(os.path.join(os.path.dirname(dm_control.__file__), "suite", "*.xml")))


def gymnasium_assets() -> list[str]:
    gymnasium = pytest.importorskip("gymnasium")
    return sorted(glob.glob(os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "*.xml")))


def robot_data_root() -> str:
    import importlib.metadata

    try:
        distribution = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return str(distribution.locate_file(os.path.join("cmeel.prefix", "share", "example-robot-data", "robots")))


def robot_data_urdfs() -> list[str]:
    return sorted(glob.glob(os.path.join(robot_data_root(), "**", "*.urdf"), recursive=True))


def without_limits(model):
    """The model with its joint limits off: the comparisons with MuJoCo and pinocchio run with limits off on both
    sides (eomlab enforces them, issue #28; pinocchio's dynamics and MuJoCo with limits disabled do not)."""
    from dataclasses import replace

    return replace(model, bodies=tuple(replace(b, joint=replace(b.joint, limits=())) for b in model.bodies))
