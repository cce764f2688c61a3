"""MuJoCo as the independent reference: simulate an MJCF with RK4 at dt = 1e-4 and sample the bodies'
mass-centre positions, to compare with eomlab's `<body>.x/.y/.z` columns."""
from __future__ import annotations

import numpy as np

import eomlab

DT = 1e-4
T_END = 2.0
DT_OUT = 0.1


def mujoco_positions(xml: str, bodies: list[str], t_end: float = T_END, dt_out: float = DT_OUT) -> np.ndarray:
    """(samples, bodies, 3) mass-centre positions from MuJoCo, starting at the first keyframe."""
    import mujoco

    model = mujoco.MjModel.from_xml_string(xml)
    model.opt.timestep = DT
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name) for name in bodies]
    steps_per_sample = int(round(dt_out / DT))
    out = [data.xipos[ids].copy()]
    for _ in range(int(round(t_end / dt_out))):
        for _ in range(steps_per_sample):
            mujoco.mj_step(model, data)
        out.append(data.xipos[ids].copy())
    return np.array(out)


def eomlab_positions(model, bodies: list[str], t_end: float = T_END, dt_out: float = DT_OUT, **options) -> np.ndarray:
    result = eomlab.simulate(model, t_end=t_end, dt_out=dt_out, rtol=1e-11, atol=1e-11, **options)
    assert result.failure is None, result.failure
    return np.stack([np.column_stack([result[f"{b}.{axis}"] for axis in "xyz"]) for b in bodies], axis=1)


def massive_bodies(model) -> list[str]:
    return [b.name for b in model.bodies if b.mass > 0 and b.joint.type != "fixed"]
