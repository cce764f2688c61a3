"""Issue #29's "done when" for URDF: example-robot-data's URDFs that pinocchio loads import (66 of 68; two refused,
each for a reason pinocchio shares) and move as pinocchio moves them: joint values after 0.1 s from a random state
within 1e-8 (pinocchio's CRBA and RNEA, <mimic> joints following their leaders, <dynamics damping> as τ = −d q̇).
Moving links whose inertia breaks the triangle inequality (allegro's fingertips, romeo_small's right arm) are
balanced on import as MuJoCo's balanceinertia does, with one warning line naming them; pinocchio then runs the
same file with the same balanced inertias, computed here from the file."""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import eomlab
from eomlab.engine.model import ModelError
from eomlab.engine.robot_formats import import_model

from shipped_files import robot_data_root, robot_data_urdfs, without_limits

pin = pytest.importorskip("pinocchio")

T_END = 0.1
#: refused, with the words of the refusal (and pinocchio's own trouble with the file)
REFUSED = {
    # pinocchio with mimic=True: "The parent joint of the mimic joint is not in the kinematic tree"
    "alex_psyonic_hands.urdf": "names 'index_q1', which is no revolute",
    # moving hip links with a negative principal moment (−0.0027 kg m²): pinocchio's mass matrix at q = 0 is
    # singular (eigenvalue 0), and MuJoCo refuses it even under balanceinertia
    "romeo_laas_small.urdf": "is not positive definite",
}


def balanced_urdf(path: str) -> tuple[str, set[str]]:
    """The file's text with every moving link's inertia that breaks the triangle inequality beyond rounding
    (1e-9 of the larger of its largest moment and its mass × its centre's distance², as the importer reads
    rounding: icub's links break it below that) replaced by MuJoCo's balanceinertia result (each principal
    moment the mean of the three: ixx = iyy = izz = trace / 3, no products), and the names of those links."""
    tree = ET.parse(path)
    moving = {j.find("child").get("link") for j in tree.getroot().findall("joint") if j.get("type") != "fixed"}
    changed = set()
    for link in tree.getroot().findall("link"):
        tensor = link.find("inertial/inertia")
        if link.get("name") not in moving or tensor is None:
            continue
        xx, xy, xz, yy, yz, zz = (float(tensor.get(key, 0)) for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
        inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        a, b, c = np.linalg.eigvalsh(inertia)
        origin = link.find("inertial/origin")
        centre = np.array([float(v) for v in (origin.get("xyz", "0 0 0") if origin is not None else "0 0 0").split()])
        mass = float(link.find("inertial/mass").get("value"))
        if a + b < c - 1e-9 * max(c, mass * float(centre @ centre)):
            mean = repr(float(np.trace(inertia)) / 3)
            tensor.attrib.update(ixx=mean, iyy=mean, izz=mean, ixy="0", ixz="0", iyz="0")
            changed.add(link.get("name"))
    return ET.tostring(tree.getroot(), encoding="unicode"), changed


def files() -> list:
    try:
        root, paths = robot_data_root(), robot_data_urdfs()
    except pytest.skip.Exception:
        return [pytest.param(None, marks=pytest.mark.skip(reason="example-robot-data is not installed"))]
    return [pytest.param(p, id=os.path.relpath(p, root)) for p in paths]


def joints(path: str) -> dict[str, tuple[float, tuple | None]]:
    """URDF joint name → (its <dynamics damping>, (leader, multiplier, offset) of its <mimic> or None)."""
    out = {}
    for joint in ET.parse(path).getroot().findall("joint"):
        dynamics, mimic = joint.find("dynamics"), joint.find("mimic")
        damping = float(dynamics.get("damping", 0)) if dynamics is not None else 0.0
        follows = None
        if mimic is not None and joint.get("type") != "fixed":
            follows = (mimic.get("joint"), float(mimic.get("multiplier", 1)), float(mimic.get("offset", 0)))
        out[joint.get("name")] = (damping, follows)
    return out


def identifier(name: str) -> str:
    """eomlab's column for a file's joint name (engine.robot_formats.building.Identifiers, no clash here)."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return base if base[:1].isalpha() else f"n_{base}"


#: files whose dampers on light links make the motion stiff, and the implicit integrator both sides use for them
#: (icub: 32 dampers of 1 N m s on finger links, DOP853 took over 300 s on either side; allegro: dampers of 3 to
#: 10 N m s on fingers of about 4e-6 kg m², BDF the quickest: bench/README.md, "Stiff robot-data URDFs")
STIFF = {"icub.urdf": "Radau", "allegro_left_hand.urdf": "BDF", "allegro_right_hand.urdf": "BDF"}


def pinocchio_run(pm, G, offset, theta0, v0, damping, integrator: str = "DOP853") -> np.ndarray:
    """Every joint's angle at T_END of pinocchio's model whose joint angles are G θ + offset (<mimic> joints follow
    their leaders; pinocchio's own mimic models refuse several of these files): Lagrange's equations in θ,
    Gᵀ M G θ̈ = Gᵀ(−D G θ̇ − nle), M from CRBA and nle from RNEA, by scipy's `integrator` at 1e-12."""
    from scipy.integrate import solve_ivp

    angles = [(joint.idx_q, joint.nq) for joint in pm.joints[1:]]
    data = pm.createData()

    def configuration(theta):
        q = pin.neutral(pm)
        for k, (iq, nq) in enumerate(angles):
            q[iq:iq + nq] = (np.cos(theta[k]), np.sin(theta[k])) if nq == 2 else theta[k]
        return q

    n = G.shape[1]

    def derivative(_, y):
        q, v = configuration(G @ y[:n] + offset), G @ y[n:]
        M = pin.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        rhs = G.T @ (-damping * v - pin.nonLinearEffects(pm, data, q, v))
        return np.concatenate((y[n:], np.linalg.solve(G.T @ M @ G, rhs)))

    solution = solve_ivp(derivative, (0.0, T_END), np.concatenate((theta0, v0)), method=integrator, rtol=1e-12, atol=1e-12)
    return G @ solution.y[:n, -1] + offset


@pytest.mark.parametrize("path", files())
def test_robot_data_urdf_moves_as_pinocchio(path):
    name = os.path.basename(path)
    try:
        plain = pin.buildModelFromUrdf(path)
    except Exception:  # noqa: BLE001 - the files pinocchio loads are the ones that count (ur3.urdf has no robot name)
        pytest.skip("pinocchio does not load it")
    try:
        model, warnings = import_model(path)
    except ModelError as err:
        assert name in REFUSED and REFUSED[name] in str(err), str(err)
        return
    assert name not in REFUSED
    text, balanced = balanced_urdf(path)
    told = [w for w in warnings if "balanceinertia" in w]
    assert len(told) == (1 if balanced else 0)
    assert set(re.findall(r'link "([^"]+)" [0-9.e-]+, ', "".join(told))) == balanced, told
    if balanced:  # pinocchio on the same inertias
        plain = pin.buildModelFromXML(text)
    model = without_limits(model)
    if plain.nv == 0:  # nothing moves (a quadrotor's body without its floating joint): nothing to compare
        assert not any(b.joint.dof for b in model.bodies)
        return
    info = joints(path)
    names = list(plain.names)[1:]  # pinocchio's joints, each one angle or slide (v index = its place here)
    assert [j.idx_v for j in plain.joints[1:]] == list(range(plain.nv))
    leaders = [n for n in names if info[n][1] is None]
    G, offset = np.zeros((len(names), len(leaders))), np.zeros(len(names))
    for i, n in enumerate(names):
        leader, multiplier, shift = info[n][1] or (n, 1.0, 0.0)
        G[i, leaders.index(leader)], offset[i] = multiplier, shift
    rng = np.random.default_rng(29)
    theta, speed = rng.uniform(-0.5, 0.5, len(leaders)), rng.uniform(-0.5, 0.5, len(leaders))
    q0, u0 = G @ theta + offset, G @ speed
    columns = {identifier(n): k for k, n in enumerate(names)}
    assert set(columns) == set(model.coordinate_names)  # the file's joint names are the columns
    if any("a run will refuse" in w for w in warnings):  # romeo.urdf: its mimic fingers move no mass
        M = pin.crba(plain, plain.createData(), pin.neutral(plain))
        M = G.T @ (np.triu(M) + np.triu(M, 1).T) @ G
        assert np.linalg.eigvalsh(M)[0] <= 1e-12 * np.abs(M).max()  # pinocchio's reduced M is singular there too
        return
    model = eomlab.with_initial_state(model, q0={c: q0[k] for c, k in columns.items()},
                                      u0={f"{c}_dot": u0[k] for c, k in columns.items()})
    integrator = STIFF.get(name, "DOP853")
    result = eomlab.simulate(model, t_end=T_END, dt_out=T_END, rtol=1e-11, atol=1e-11, integrator=integrator)
    assert result.failure is None, result.failure
    reference = pinocchio_run(plain, G, offset, theta, speed, np.array([info[n][0] for n in names]), integrator)
    for name, k in columns.items():
        difference = result[name][-1] - reference[k]
        if plain.joints[k + 1].nq == 2:
            difference = (difference + np.pi) % (2 * np.pi) - np.pi
        assert abs(difference) < 1e-8, names[k]
