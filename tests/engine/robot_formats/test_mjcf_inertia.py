"""MJCF masses from geoms (issue #29): every body's mass, mass centre and inertia tensor equal what MuJoCo's
compiler makes of the same file (body_mass, body_ipos, the principal moments body_inertia) to 1e-9
relative (the tensor turned by body_iquat to 1e-6), for each geom type, mass vs density, inertiafromgeom, shellinertia, the bounds, default
classes, several turned geoms in a body, STL and OBJ meshes; and gymnasium's MuJoCo assets import with
mass, run, and move as MuJoCo moves them (contacts, limits, friction loss and fluid off on MuJoCo's side)."""
from __future__ import annotations

import glob
import os
import struct

import numpy as np
import pytest

import eomlab
from eomlab.engine.model import ModelError
from eomlab.engine.robot_formats import import_model

mujoco = pytest.importorskip("mujoco")
RELATIVE = 1e-9


def mujoco_bodies(path) -> dict:
    """name → (mass, mass centre, inertia tensor in the body frame) as MuJoCo compiles the file."""
    m = mujoco.MjModel.from_xml_path(str(path))
    out = {}
    for i in range(1, m.nbody):
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, m.body_iquat[i])
        R = R.reshape(3, 3)
        out[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i) or f"#{i}"] = (
            float(m.body_mass[i]), m.body_ipos[i].copy(), R @ np.diag(m.body_inertia[i]) @ R.T, m.body_inertia[i].copy())
    return out


def assert_like_mujoco(path, relative: float = RELATIVE) -> dict:
    model, _ = import_model(path)
    ours = {b.name: b for b in model.bodies}
    reference = mujoco_bodies(path)
    for name, (mass, ipos, tensor, principal) in reference.items():
        body = ours[name]
        assert body.mass == pytest.approx(mass, rel=relative, abs=1e-300), name
        size = max(1.0, float(np.abs(ipos).max()))
        assert np.abs(np.array(body.com) - ipos).max() <= relative * size, (name, body.com, ipos)
        inertia = np.array(body.inertia)
        scale = max(float(np.abs(principal).max()), 1e-300)
        assert np.abs(np.sort(np.linalg.eigvalsh(inertia)) - np.sort(principal)).max() <= relative * scale, name
        # the axes too; MuJoCo's Jacobi iteration stops at off-diagonals of 1e-12 in a mesh's inertia per
        # unit density, so its principal axes (body_iquat) are good to ~1e-8 only there
        assert np.abs(inertia - tensor).max() <= 1e-6 * scale, (name, inertia, tensor)
    return ours


def write(tmp_path, text: str, name: str = "model.xml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def mjcf(bodies: str, compiler: str = "", defaults: str = "", assets: str = "") -> str:
    return (f'<mujoco><compiler angle="radian" {compiler}/><default>{defaults}</default><asset>{assets}</asset>'
            f'<worldbody>{bodies}</worldbody></mujoco>')


def hinge(name: str, inside: str, pos: str = "0 0 0", extra: str = "") -> str:
    return f'<body name="{name}" pos="{pos}" {extra}><joint type="hinge" axis="0 1 0"/>{inside}</body>'


PRIMITIVES = "".join([
    hinge("sphere", '<geom type="sphere" size="0.13" pos="0.1 -0.2 0.3"/>'),
    hinge("capsule_fromto", '<geom type="capsule" fromto="0.1 0.2 0.3 -0.4 0.5 0.9" size="0.07"/>'),
    hinge("capsule_down", '<geom type="capsule" fromto="0 0 0.5 0 0 -0.3" size="0.05"/>'),
    hinge("capsule_sized", '<geom type="capsule" size="0.06 0.25" pos="0.2 0 -0.1" quat="0.9 0.3 -0.2 0.1"/>'),
    hinge("ellipsoid", '<geom type="ellipsoid" size="0.1 0.2 0.35" euler="0.3 -0.5 1.1" pos="0 0.1 0"/>'),
    hinge("ellipsoid_fromto", '<geom type="ellipsoid" fromto="0 0 0 0.3 0.4 0.1" size="0.08"/>'),
    hinge("cylinder", '<geom type="cylinder" size="0.09 0.3" axisangle="1 1 0 0.7"/>'),
    hinge("cylinder_fromto", '<geom type="cylinder" fromto="-0.2 0 0 0.4 0.1 -0.1" size="0.04"/>'),
    hinge("box", '<geom type="box" size="0.1 0.25 0.05" xyaxes="0 1 0 -1 0 0.2" pos="0.3 0.3 0"/>'),
    hinge("box_fromto", '<geom type="box" fromto="0 0 0 0.2 -0.3 0.5" size="0.05"/>'),
])


def test_every_primitive_geom_as_mujoco(tmp_path):
    bodies = assert_like_mujoco(write(tmp_path, mjcf(PRIMITIVES)))
    assert all(b.mass > 0 for b in bodies.values())


def test_shell_inertia_of_every_primitive(tmp_path):
    shells = PRIMITIVES.replace("<geom ", '<geom shellinertia="true" ')
    bodies = assert_like_mujoco(write(tmp_path, mjcf(shells)))
    solid = import_model(write(tmp_path, mjcf(PRIMITIVES), "solid.xml"))[0]
    assert bodies["sphere"].mass != solid.bodies[0].mass  # density per area now


def test_mass_density_several_turned_geoms_and_default_classes(tmp_path):
    defaults = ('<geom density="500"/><default class="heavy"><geom type="box" size="0.1 0.2 0.3" mass="3"/>'
                '<default class="light"><geom density="50" type="capsule" size="0.02 0.2"/></default></default>')
    bodies = "".join([
        hinge("given_mass", '<geom type="sphere" size="0.1" mass="2.5"/>'),
        hinge("densities", '<geom type="sphere" size="0.1" density="300"/><geom type="box" size="0.1 0.1 0.1" '
              'density="0" pos="1 0 0"/><geom type="sphere" size="0.2" mass="0" pos="0 1 0"/>'
              '<geom type="capsule" size="0.05 0.1" pos="0 0 0.4"/>'),
        hinge("several", '<geom type="sphere" size="0.1" pos="0.3 0 0"/><geom type="box" size="0.05 0.1 0.2" '
              'pos="-0.2 0.1 0.05" euler="0.4 0.2 -0.3"/><geom type="capsule" fromto="0 0 0 0.1 0.4 -0.2" size="0.03"/>'
              '<geom type="cylinder" size="0.05 0.1" pos="0 -0.3 0.2" quat="0.5 0.5 0.5 0.5" mass="0.7"/>'),
        hinge("classed", '<geom class="heavy" pos="0.1 0 0"/><geom class="light" pos="0 0.2 0" euler="0.5 0 0"/>'),
        hinge("childclass", '<geom pos="0.1 0 0"/><geom class="light"/>'
              + hinge("grandchild", '<geom type="sphere" size="0.1"/>', pos="0 0 -0.5"), extra='childclass="heavy"'),
    ])
    ours = assert_like_mujoco(write(tmp_path, mjcf(bodies, defaults=defaults)))
    assert ours["given_mass"].mass == 2.5


INERTIAL = '<inertial pos="0.1 0.2 0.3" mass="4" diaginertia="0.3 0.2 0.4" euler="0.2 0.1 0"/>'
GEOMS = '<geom type="sphere" size="0.1"/><geom type="box" size="0.1 0.2 0.1" pos="0.3 0 0"/>'


@pytest.mark.parametrize("rule", ["auto", "true", "false"])
def test_inertiafromgeom_with_and_without_inertial(tmp_path, rule):
    bodies = (hinge("with_inertial", INERTIAL + GEOMS) + hinge("inertial_only", INERTIAL)
              + hinge("geoms_only", GEOMS, pos="0.5 0.1 -0.2")
              + hinge("static_geoms_only", "", pos="1 1 1").replace('<joint type="hinge" axis="0 1 0"/>', GEOMS))
    if rule == "false":  # MuJoCo refuses a moving body without mass; bounds give it some (its centre: its pos)
        bodies = bodies.replace('name="geoms_only" pos="0.5 0.1 -0.2"', 'name="geoms_only" pos="0.5 0.1 -0.2" euler="0.1 0.2 0.3"')
    compiler = f'inertiafromgeom="{rule}"' + (' boundmass="0.5" boundinertia="0.01"' if rule == "false" else "")
    ours = assert_like_mujoco(write(tmp_path, mjcf(bodies, compiler=compiler)))
    geoms_mass = 1000 * (4 / 3 * np.pi * 0.1**3 + 8 * 0.1 * 0.2 * 0.1)
    expected = {"auto": 4.0, "true": geoms_mass, "false": 4.0}[rule]
    assert ours["with_inertial"].mass == pytest.approx(expected)
    assert ours["geoms_only"].mass == pytest.approx(0.5 if rule == "false" else geoms_mass)


def test_bounds_group_range_and_total_mass(tmp_path):
    bodies = (hinge("tiny", '<geom type="sphere" size="0.01"/>') + hinge("flat", '<geom type="box" size="0.5 0.5 0.001"/>')
              + hinge("grouped", '<geom type="sphere" size="0.1"/><geom type="box" size="0.3 0.3 0.3" group="4" pos="1 0 0"/>'))
    compiler = 'boundmass="0.05" boundinertia="0.001" inertiagrouprange="0 3"'
    ours = assert_like_mujoco(write(tmp_path, mjcf(bodies, compiler=compiler)))
    assert ours["tiny"].mass == 0.05
    total = assert_like_mujoco(write(tmp_path, mjcf(bodies, compiler=compiler + ' settotalmass="7"'), "total.xml"))
    assert sum(b.mass for b in total.values()) == pytest.approx(7.0)


def binary_stl(path, triangles):
    with open(path, "wb") as out:
        out.write(b"\0" * 80 + struct.pack("<I", len(triangles)))
        for triangle in triangles:
            out.write(struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *p) for p in triangle) + b"\0\0")


# an irregular convex hexahedron (a squashed, sheared box) and an L-shaped prism (not convex), outward faces
HEX = np.array([[0, 0, 0], [0.3, 0.02, 0], [0.32, 0.21, 0.01], [-0.01, 0.2, 0], [0.02, 0.01, 0.13], [0.29, 0.0, 0.15],
                [0.3, 0.22, 0.14], [0.01, 0.19, 0.12]]) + [0.1, -0.2, 0.05]
HEX_QUADS = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
L_OUTLINE = [(0, 0), (0.4, 0), (0.4, 0.1), (0.1, 0.1), (0.1, 0.3), (0, 0.3)]


def l_prism_obj(path):
    """The L outline extruded 0.05 along z: the caps as fans from a vertex that sees all others (outward)."""
    n = len(L_OUTLINE)
    lines = [f"v {x} {y} 0" for x, y in L_OUTLINE] + [f"v {x} {y} 0.05" for x, y in L_OUTLINE]
    lines += ["vt 0 0"]
    lines += [f"f {1} {k + 2} {k + 1}" for k in range(1, n - 1)]  # bottom, fan from vertex 1 (corner (0,0))
    lines += [f"f {n + 1}/1 {n + k + 1}/1 {n + k + 2}/1" for k in range(1, n - 1)]  # top
    lines += [f"f {k + 1} {(k + 1) % n + 1} {(k + 1) % n + n + 1} {k + n + 1}" for k in range(n)]  # sides, quads
    path.write_text("\n".join(["# L prism", "o L"] + lines) + "\n")


def hex_obj(path):
    lines = [f"v {x:.17g} {y:.17g} {z:.17g}" for x, y, z in HEX]
    lines += ["f " + " ".join(str(i - len(HEX)) for i in quad) for quad in HEX_QUADS]  # negative (relative) indices
    path.write_text("\n".join(lines) + "\n")


def test_meshes_from_stl_and_obj(tmp_path):
    (tmp_path / "meshes").mkdir()
    triangles = [(HEX[a], HEX[b], HEX[c]) for a, b, c, d in HEX_QUADS for a, b, c in ((a, b, c), (a, c, d))]
    triangles[3] = triangles[3][::-1]  # one face turned inwards: legacy and convex do not mind
    binary_stl(tmp_path / "meshes" / "hex.stl", triangles)
    hex_obj(tmp_path / "meshes" / "hex.obj")
    l_prism_obj(tmp_path / "meshes" / "ell.obj")
    assets = ('<mesh name="stl" file="hex.stl"/><mesh name="stl_scaled" file="hex.stl" scale="2 -1 0.5"/>'
              '<mesh name="stl_convex" file="hex.stl" inertia="convex"/><mesh name="obj" file="hex.obj"/>'
              '<mesh name="ell" file="ell.obj"/><mesh name="ell_exact" file="ell.obj" inertia="exact"/>'
              '<mesh name="ell_convex" file="ell.obj" inertia="convex"/><mesh name="ell_shell" file="ell.obj" inertia="shell"/>'
              '<mesh name="inline" vertex="0 0 0 1 0 0 0 1 0 0 0 1 0.2 0.3 0.4"/>'
              '<mesh name="moved" file="hex.obj" refpos="0.1 0.2 0.3" refquat="0.9 0.1 0.3 0.2" scale="1 2 3"/>')
    bodies = "".join(hinge(name, f'<geom type="mesh" mesh="{name}" pos="0.1 0.2 0" euler="0.3 0.2 0.1"/>')
                     for name in ("stl", "stl_scaled", "stl_convex", "obj", "ell", "ell_exact", "ell_convex",
                                  "ell_shell", "inline", "moved"))
    bodies += hinge("mesh_and_box", '<geom type="mesh" mesh="obj" mass="3"/><geom type="box" size="0.1 0.1 0.1" pos="0 0 1"/>')
    ours = assert_like_mujoco(write(tmp_path, mjcf(bodies, compiler='meshdir="meshes"', assets=assets)))
    assert all(b.mass > 0 for b in ours.values())
    assert ours["ell"].mass > ours["ell_exact"].mass  # legacy counts the notch twice


def test_bad_geom_mass_input_is_one_line(tmp_path):
    cases = {'<geom type="sphere" size="0.1" density="-1"/>': "density",
             '<geom type="capsule" size="0.1"/>': "size",
             '<geom type="box" size="0.1 0.1 0.1" fromto="0 0 0 0 0 0"/>': "fromto",
             '<geom type="ellipsoid" size="1e12 1e12 1e12" shellinertia="true"/>': "size"}
    for geom, attribute in cases.items():
        with pytest.raises(ModelError) as err:
            import_model(write(tmp_path, mjcf(hinge("b", geom))))
        assert attribute in f"{err.value.path} {err.value.message}" and "\n" not in str(err.value)


# --- real files: gymnasium's MuJoCo assets -------------------------------------------------------------------


def gymnasium_assets() -> list[str]:
    gymnasium = pytest.importorskip("gymnasium")
    return sorted(glob.glob(os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "*.xml")))


def test_gymnasium_assets_import_with_mujocos_masses():
    files = gymnasium_assets()
    assert len(files) >= 10
    for path in files:
        model, _ = import_model(path)
        reference = mujoco_bodies(path)
        ours = {b.name: b for b in model.bodies}
        named = [n for n in reference if not n.startswith("#")]
        assert named and all(ours[n].mass == pytest.approx(reference[n][0], rel=RELATIVE) for n in named), path
        assert sum(b.mass for b in model.bodies) == pytest.approx(sum(r[0] for r in reference.values()), rel=RELATIVE)



def test_gravity_option_its_disable_flag_and_fluid_warning(tmp_path):
    body = hinge("b", '<geom type="sphere" size="0.1"/>')
    cases = {'<option gravity="0 -3 -1"/>': (0.0, -3.0, -1.0),
             '<option gravity="0 -3 -1"><flag gravity="disable"/></option>': (0.0, 0.0, 0.0),
             '<option density="1.2" viscosity="2e-5"/>': (0.0, 0.0, -9.81)}
    for option, gravity in cases.items():
        path = write(tmp_path, mjcf(body).replace("<worldbody>", option + "<worldbody>"))
        model, warnings = import_model(path)
        assert model.gravity == gravity == tuple(mujoco.MjModel.from_xml_path(str(path)).opt.gravity
                                                 * (0 if "disable" in option else 1) + 0.0)
        fluid = [w for w in warnings if w.startswith("fluid forces")]
        assert len(fluid) == ("density" in option), warnings
    assert "density=1.2 viscosity=2e-5" in fluid[0]


MOVING = ("ant", "half_cheetah", "hopper", "humanoid", "inverted_double_pendulum", "inverted_pendulum", "walker2d")


def test_gymnasium_assets_move_as_mujoco_moves_them(tmp_path):
    """Started with the same random speeds (a <key qvel>), eomlab's mass centres after 0.3 s equal MuJoCo's
    (RK4, dt 1e-4; contacts, limits, armature, friction loss and fluid off there, and the joint limits off on
    eomlab's side too: it enforces them since issue 28) to 1e-8 m. (pusher's near-massless damped target makes a
    stiff problem for the explicit integrator: left out.)"""
    from shipped_files import without_limits

    import eomlab

    rng = np.random.default_rng(29)
    folder = os.path.dirname(gymnasium_assets()[0])
    for name in MOVING:
        path = os.path.join(folder, f"{name}.xml")
        nv = mujoco.MjModel.from_xml_path(path).nv
        qvel = " ".join(f"{v:.17g}" for v in rng.uniform(-1.0, 1.0, nv))
        text = open(path).read().replace("</mujoco>", f'<keyframe><key qvel="{qvel}"/></keyframe></mujoco>')
        source = write(tmp_path, text, f"{name}.xml")
        model, _ = import_model(source)
        model = without_limits(model)
        m = mujoco.MjModel.from_xml_path(str(source))
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_LIMIT
        m.opt.density = m.opt.viscosity = 0.0
        m.dof_frictionloss[:] = 0.0  # armature is imported (engine/mechanics/armature.py); friction loss is not
        m.opt.timestep, m.opt.integrator = 1e-4, mujoco.mjtIntegrator.mjINT_RK4
        data = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, data, 0)
        names = [b.name for b in model.bodies if b.mass > 0 and mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, b.name) > 0]
        ids = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, n) for n in names]
        for _ in range(3000):
            mujoco.mj_step(m, data)
        result = eomlab.simulate(model, t_end=0.3, dt_out=0.3, rtol=1e-9, atol=1e-9)
        assert result.failure is None, (name, result.failure)
        ours = np.array([[result[f"{b}.{axis}"][-1] for axis in "xyz"] for b in names])
        assert np.abs(ours - data.xipos[ids]).max() < 1e-8, name


def test_every_gymnasium_asset_imports_and_runs(tmp_path, capsys):
    """`eomlab import` then `eomlab run --t-end 0.3` on each shipped asset: all run (before masses from geoms,
    none did: the mass matrix was singular)."""
    from eomlab.cli import main

    for path in gymnasium_assets():
        target = tmp_path / (os.path.basename(path) + ".eom.json")
        assert main(["import", path, "-o", str(target)]) == 0
        assert main(["run", str(target), "--t-end", "0.3", "--out", str(tmp_path / "out.csv")]) == 0, path
    assert "a run will refuse" not in capsys.readouterr().err


# --- item 3: inertia checks relative to the body's mass × size², rounding clipped, a welded root ignored ------

URDF_LINK = ('<link name="{name}"><inertial><origin xyz="{xyz}"/><mass value="1"/><inertia ixx="{ixx}" iyy="{iyy}" '
             'izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial></link>')


def urdf_file(tmp_path, root: dict, arm: dict):
    text = (f'<robot name="r">{URDF_LINK.format(name="base", **root)}{URDF_LINK.format(name="arm", **arm)}'
            '<joint name="j" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/></joint></robot>')
    return write(tmp_path, text, "r.urdf")


def test_rounding_negatives_are_clipped_relative_to_mass_times_size_squared(tmp_path):
    fine = {"xyz": "0 0 0", "ixx": "1", "iyy": "1", "izz": "1"}
    point_like = {"xyz": "0.5 0 0", "ixx": "-1e-12", "iyy": "1e-6", "izz": "1e-6"}  # rounding of 1 kg × (0.5 m)²
    model, warnings = import_model(urdf_file(tmp_path, fine, point_like))
    assert np.linalg.eigvalsh(np.array(model.bodies[1].inertia)).min() == 0.0
    assert [w for w in warnings if w.startswith("rounding-level negative principal moments")] == [
        'rounding-level negative principal moments not imported (clipped to 0): link "arm"/inertial/inertia']
    path = write(tmp_path, mjcf(hinge("b", '<inertial pos="0 0 0.5" mass="1" diaginertia="1e-6 1e-6 -1e-12"/>')))
    model, warnings = import_model(path)
    assert model.bodies[0].inertia[2][2] == 0.0 and any("clipped to 0" in w for w in warnings)
    for bad in ("-1e-3", "5"):  # beyond rounding, or no rigid body's (A + B < C): refused, as MuJoCo does
        with pytest.raises(ModelError):
            import_model(write(tmp_path, mjcf(hinge("b", f'<inertial pos="0 0 0.5" mass="1" diaginertia="1 1 {bad}"/>'))))


def test_a_welded_root_links_inertia_is_ignored(tmp_path):
    broken = {"xyz": "0 0 0", "ixx": "1", "iyy": "1", "izz": "5"}  # no rigid body's; it moves nothing
    arm = {"xyz": "0.5 0 0", "ixx": "0.01", "iyy": "0.1", "izz": "0.1"}
    model, warnings = import_model(urdf_file(tmp_path, broken, arm))
    assert model.bodies[0].joint.type == "fixed" and model.bodies[0].mass == 1.0
    assert not np.any(model.bodies[0].inertia) and any("welded root link" in w for w in warnings)


def test_a_moving_links_composite_that_no_rigid_body_has_is_balanced(tmp_path):
    """A massless line inertia (0, 0, 1) welded to a moving link (1 kg, 0.01 E about its centre, at the same
    point) merges into it, as pinocchio merges it: 0.01, 0.01, 1.01, no rigid body's, so balanced as a moving
    link's own is, to the mean 1.03 / 3; the warning names both links. A negative composite stays refused."""
    def leg(foot: str) -> str:
        return ('<robot name="r"><link name="world"/>'
                '<link name="leg"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/>'
                '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                f'<link name="foot"><inertial><mass value="0"/><inertia {foot} ixy="0" ixz="0" iyz="0"/></inertial></link>'
                '<joint name="hip" type="continuous"><parent link="world"/><child link="leg"/><axis xyz="0 1 0"/></joint>'
                '<joint name="ankle" type="fixed"><parent link="leg"/><child link="foot"/><origin xyz="0 0 -0.5"/></joint>'
                '</robot>')

    model, warnings = import_model(write(tmp_path, leg('ixx="0" iyy="0" izz="1"'), "leg.urdf"))
    assert np.abs(np.array(model.bodies[0].inertia) - 1.03 / 3 * np.eye(3)).max() < 1e-15
    assert model.bodies[0].mass == 1.0 and model.bodies[1].mass == 0.0 and not np.any(model.bodies[1].inertia)
    (told,) = [w for w in warnings if "balanceinertia" in w]
    assert 'link "leg" (with the welded link "foot") 0.01, 0.01, 1.01 → 0.3433' in told
    eomlab.save(eomlab.checked(model), tmp_path / "leg.eom.json")
    with pytest.raises(ModelError, match='link "foot"/inertial/inertia'):
        import_model(write(tmp_path, leg('ixx="-1" iyy="0" izz="0"'), "negative.urdf"))


def test_a_moving_links_impossible_inertia_is_balanced_as_mujoco_does(tmp_path):
    """A moving URDF link whose principal moments break A + B ≥ C beyond rounding (1, 1, 5, in an inertial frame
    turned in the link frame) imports with MuJoCo's balanceinertia="true": every moment the mean 7/3, so the
    tensor is 7/3 E in any frame; one warning line names the link and its moments before and after. The model
    file takes it. A moving link's negative moment beyond rounding stays refused (MuJoCo refuses it even when
    balancing; pinocchio's mass matrix would be singular)."""
    fine = {"xyz": "0 0 0", "ixx": "0.01", "iyy": "0.1", "izz": "0.1"}
    text = urdf_file(tmp_path, fine, {"xyz": "0.5 0 0", "ixx": "1", "iyy": "1", "izz": "5"}).read_text()
    path = write(tmp_path, text.replace('<origin xyz="0.5 0 0"/>', '<origin xyz="0.5 0 0" rpy="0.3 -0.2 1.1"/>'), "t.urdf")
    model, warnings = import_model(path)
    assert np.abs(np.array(model.bodies[1].inertia) - 7 / 3 * np.eye(3)).max() < 1e-15
    assert model.bodies[1].mass == 1.0 and np.allclose(model.bodies[1].com, (0.5, 0, 0), atol=1e-15)
    told = [w for w in warnings if "balanceinertia" in w]
    assert told == ["inertia no rigid body has (principal moments A + B < C) on 1 moving link, balanced as MuJoCo's "
                    "balanceinertia=\"true\" does (each moment set to the three's mean, kg m²): link \"arm\" 1, 1, 5 → "
                    "2.333 (A + B 60 % short of C)"]
    eomlab.save(eomlab.checked(model), tmp_path / "t.eom.json")
    line_mass = import_model(urdf_file(tmp_path, fine, {"xyz": "0 0 0", "ixx": "0", "iyy": "0", "izz": "3"}))
    assert np.abs(np.array(line_mass[0].bodies[1].inertia) - np.eye(3)).max() < 1e-15  # A + B = 0: C's third each
    assert "0, 0, 3 → 1 (A + B 100 % short of C)" in line_mass[1][0]
    with pytest.raises(ModelError, match="not positive definite"):
        import_model(urdf_file(tmp_path, fine, {"xyz": "0 0 0", "ixx": "-0.1", "iyy": "1", "izz": "5"}))


def test_a_welded_links_impossible_inertia_merges_into_its_parent(tmp_path):
    """A link welded to a moving one, with an inertia no rigid body has (a line mass: 0, 0, 3e-6; a sensor's
    -1e-4): merged into its parent as pinocchio merges fixed links; the parent's mass, centre and inertia are
    the composite's (parallel-axis theorem), the link a massless frame; one warning line."""
    text = ('<robot name="r"><link name="world"/>'
            '<link name="leg"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>'
            '<inertia ixx="0.2" iyy="0.2" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
            '<link name="foot"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>'
            '<inertia ixx="0" iyy="0" izz="3e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>'
            '<joint name="hip" type="continuous"><parent link="world"/><child link="leg"/><axis xyz="0 1 0"/></joint>'
            '<joint name="ankle" type="fixed"><parent link="leg"/><child link="foot"/><origin xyz="0 0 -1"/></joint>'
            '</robot>')
    model, warnings = import_model(write(tmp_path, text, "leg.urdf"))
    leg, foot = model.bodies
    assert foot.mass == 0 and not np.any(foot.inertia) and leg.mass == 2.5
    com = (2 * np.array([0, 0, -0.5]) + 0.5 * np.array([0.1, 0, -1])) / 2.5
    assert np.allclose(leg.com, com, atol=1e-15)
    d_leg, d_foot = np.array([0, 0, -0.5]) - com, np.array([0.1, 0, -1]) - com
    expected = (np.diag([0.2, 0.2, 0.01]) + 2 * (d_leg @ d_leg * np.eye(3) - np.outer(d_leg, d_leg))
                + np.diag([0, 0, 3e-6]) + 0.5 * (d_foot @ d_foot * np.eye(3) - np.outer(d_foot, d_foot)))
    assert np.abs(np.array(leg.inertia) - expected).max() < 1e-15
    assert [w for w in warnings if "merged into the parent" in w] == [
        'links welded to their parent with an inertia no rigid body has not imported (merged into the parent, as '
        'pinocchio does): foot']
    eomlab.save(eomlab.checked(model), tmp_path / "leg.eom.json")  # the model file takes it


def test_balanceinertia_evens_out_an_inertial_that_breaks_the_triangle_inequality(tmp_path):
    bodies = hinge("b", '<inertial pos="0 0 0.1" mass="2" diaginertia="1 1 3" euler="0.2 0.3 0"/>')
    ours = assert_like_mujoco(write(tmp_path, mjcf(bodies, compiler='balanceinertia="true"')))
    assert np.allclose(np.linalg.eigvalsh(np.array(ours["b"].inertia)), 5 / 3)
    with pytest.raises(ModelError):  # without it, refused as MuJoCo refuses it
        import_model(write(tmp_path, mjcf(bodies), "unbalanced.xml"))
    with pytest.raises(ModelError):  # a negative moment stays refused
        import_model(write(tmp_path, mjcf(hinge("b", '<inertial pos="0 0 0" mass="1" diaginertia="1 1 -1"/>'),
                                          compiler='balanceinertia="true"'), "negative.xml"))


@pytest.mark.parametrize("compiler", ["", 'fitaabb="true"'])
def test_primitives_fitted_to_a_mesh(tmp_path, compiler):
    hex_obj(tmp_path / "hex.obj")
    bodies = "".join(hinge(kind, f'<geom type="{kind}" mesh="hex" pos="0.1 0 0" euler="0.2 0.1 0.3" fitscale="{scale}"/>')
                     for kind, scale in (("sphere", 1), ("capsule", 1.2), ("cylinder", 1), ("ellipsoid", 0.9), ("box", 1)))
    # fitaabb: MuJoCo takes the box from its vertices stored in single precision along its Jacobi axes (~1e-8)
    ours = assert_like_mujoco(write(tmp_path, mjcf(bodies, compiler=compiler, assets='<mesh name="hex" file="hex.obj"/>')),
                              1e-6 if compiler else RELATIVE)
    assert all(b.mass > 0 for b in ours.values())
