"""Test mechanisms written as URDF and as MJCF from one description, independently of eomlab's
converters (scipy for the rotations): a double pendulum, a 5-link chain with offset joint frames
and full inertia tensors, a ball-joint pendulum and a free-floating body."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation


@dataclass
class Link:
    name: str
    parent: str  # "world" for the ground
    joint: str  # hinge, slide, ball, free
    xyz: tuple = (0.0, 0.0, 0.0)
    rpy: tuple = (0.0, 0.0, 0.0)
    axis: tuple = (0.0, 0.0, 1.0)
    mass: float = 1.0
    com: tuple = (0.0, 0.0, 0.0)
    inertia: np.ndarray = field(default_factory=lambda: np.diag([0.1, 0.1, 0.1]))  # in the inertial frame
    irpy: tuple = (0.0, 0.0, 0.0)  # inertial frame turned in the link frame
    qpos: tuple = ()  # MJCF keyframe parts
    qvel: tuple = ()


def _t(values) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def _matrix(rpy) -> np.ndarray:
    return Rotation.from_euler("xyz", rpy).as_matrix()  # extrinsic x, y, z = URDF's Rz Ry Rx


def _quat(rpy) -> str:
    x, y, z, w = Rotation.from_euler("xyz", rpy).as_quat()
    return _t([w, x, y, z])


def _inertia_urdf(link: Link) -> str:
    I = np.asarray(link.inertia, dtype=float).tolist()
    return (f'<inertial><origin xyz="{_t(link.com)}" rpy="{_t(link.irpy)}"/><mass value="{link.mass!r}"/>'
            f'<inertia ixx="{I[0][0]!r}" ixy="{I[0][1]!r}" ixz="{I[0][2]!r}" iyy="{I[1][1]!r}" iyz="{I[1][2]!r}" '
            f'izz="{I[2][2]!r}"/></inertial>')


def urdf(name: str, links: list[Link]) -> str:
    out = [f'<robot name="{name}">', '<link name="world"/>']
    for link in links:
        out.append(f'<link name="{link.name}">{_inertia_urdf(link)}'
                   f'<visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>')
        origin = f'<origin xyz="{_t(link.xyz)}" rpy="{_t(link.rpy)}"/>'
        ends = f'<parent link="{link.parent}"/>'
        if link.joint == "ball":  # URDF has no ball joint: three revolute joints through massless links
            out.append(f'<link name="{link.name}_bx"/><link name="{link.name}_by"/>')
            chain = [(link.parent, f"{link.name}_bx", origin, "1 0 0"), (f"{link.name}_bx", f"{link.name}_by", "", "0 1 0"),
                     (f"{link.name}_by", link.name, "", "0 0 1")]
            for k, (parent, child, joint_origin, axis) in enumerate(chain):
                out.append(f'<joint name="{link.name}_j{k}" type="continuous"><parent link="{parent}"/>'
                           f'<child link="{child}"/>{joint_origin}<axis xyz="{axis}"/></joint>')
            continue
        kind = {"hinge": "continuous", "slide": "prismatic", "free": "floating"}[link.joint]
        # URDF needs a prismatic joint's <limit>; eomlab enforces it (issue 28) while the MuJoCo reference has
        # no limits, so it lies beyond any travel in these runs
        limit = '<limit lower="-1000" upper="1000" effort="1" velocity="1"/>' if kind == "prismatic" else ""
        out.append(f'<joint name="{link.name}_j" type="{kind}">{ends}<child link="{link.name}"/>{origin}'
                   f'<axis xyz="{_t(link.axis)}"/>{limit}</joint>')
    out.append("</robot>")
    return "\n".join(out)


def mjcf(name: str, links: list[Link], keyframe: bool, ball_as_hinges: bool = False) -> str:
    """MJCF of the same mechanism; `ball_as_hinges` writes a ball as the URDF's three hinges."""
    children: dict[str, list[Link]] = {}
    for link in links:
        children.setdefault(link.parent, []).append(link)

    def body(link: Link) -> str:
        R = _matrix(link.irpy)
        full = R @ link.inertia @ R.T
        inertial = (f'<inertial pos="{_t(link.com)}" mass="{link.mass!r}" fullinertia="'
                    f'{_t([full[0, 0], full[1, 1], full[2, 2], full[0, 1], full[0, 2], full[1, 2]])}"/>')
        if link.joint == "ball" and ball_as_hinges:
            joint = "".join(f'<joint name="{link.name}_j{k}" type="hinge" axis="{a}"/>'
                            for k, a in enumerate(("1 0 0", "0 1 0", "0 0 1")))
        elif link.joint == "free":
            joint = f'<freejoint name="{link.name}_j"/>'
        else:
            axis = f' axis="{_t(link.axis)}"' if link.joint in ("hinge", "slide") else ""
            joint = f'<joint name="{link.name}_j" type="{link.joint}"{axis}/>'
        inner = "".join(body(c) for c in children.get(link.name, []))
        return (f'<body name="{link.name}" pos="{_t(link.xyz)}" quat="{_quat(link.rpy)}">{joint}{inertial}'
                f'<geom type="sphere" size="0.05" contype="0" conaffinity="0"/>{inner}</body>')

    key = ""
    if keyframe:
        order = []
        stack = list(reversed(children.get("world", [])))
        while stack:
            link = stack.pop()
            order.append(link)
            stack += reversed(children.get(link.name, []))
        key = (f'<keyframe><key qpos="{_t([v for l in order for v in l.qpos])}" '
               f'qvel="{_t([v for l in order for v in l.qvel])}"/></keyframe>')
    return (f'<mujoco model="{name}"><compiler angle="radian"/><option><flag contact="disable"/></option>'
            f'<worldbody>{"".join(body(c) for c in children.get("world", []))}</worldbody>{key}</mujoco>')


def _inertia(rng, scale=1.0) -> np.ndarray:
    """A full, physically valid inertia tensor (principal moments obey the triangle inequality)."""
    a, b = rng.uniform(0.5, 1.0, 2) * scale
    moments = np.array([a, b, rng.uniform(abs(a - b) + 0.1 * scale, a + b - 0.1 * scale)])
    R = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    return R @ np.diag(moments) @ R.T


def double_pendulum() -> list[Link]:
    rod = np.diag([0.0843, 0.0843, 0.001])
    return [Link("upper", "world", "hinge", rpy=(0.0, 0.7, 0.0), axis=(0, 1, 0), com=(0, 0, -0.5), inertia=rod,
                 qpos=(0.3,), qvel=(1.0,)),
            Link("lower", "upper", "hinge", xyz=(0, 0, -1), rpy=(0, 0.5, 0), axis=(0, 1, 0), com=(0, 0, -0.5),
                 inertia=rod, qpos=(-0.4,), qvel=(0.0,))]


def five_link_chain() -> list[Link]:
    rng = np.random.default_rng(16)
    links, parent = [], "world"
    for k in range(5):
        axis = rng.normal(size=3)
        links.append(Link(f"link{k + 1}", parent, "slide" if k == 2 else "hinge",
                          xyz=tuple(rng.uniform(-0.3, 0.3, 3) + (0, 0, -0.4 if k else 0)),
                          rpy=tuple(rng.uniform(-1, 1, 3)), axis=tuple(axis / np.linalg.norm(axis)),
                          mass=float(rng.uniform(0.5, 2.0)), com=tuple(rng.uniform(-0.2, 0.2, 3) + (0, 0, -0.2)),
                          inertia=_inertia(rng, 0.05), irpy=tuple(rng.uniform(-1, 1, 3)),
                          qpos=(float(rng.uniform(-0.5, 0.5)),), qvel=(float(rng.uniform(-1, 1)),)))
        parent = f"link{k + 1}"
    return links


def ball_pendulum() -> list[Link]:
    rng = np.random.default_rng(3)
    p = np.array([0.9, 0.3, 0.2, 0.1])
    return [Link("bob", "world", "ball", xyz=(0, 0, 1), rpy=(0.4, 0.3, 0.0), mass=1.5, com=(0.2, 0.1, -0.8),
                 inertia=_inertia(rng, 0.1), irpy=(0.3, -0.2, 0.5), qpos=tuple(p / np.linalg.norm(p)),
                 qvel=(1.0, -0.5, 2.0))]


def free_body() -> list[Link]:
    rng = np.random.default_rng(5)
    p = np.array([0.8, -0.2, 0.4, 0.3])
    return [Link("block", "world", "free", xyz=(0.0, 0.0, 1.0), rpy=(0.1, 0.2, 0.3), mass=2.0, com=(0.1, 0.0, -0.1),
                 inertia=_inertia(rng, 0.2), irpy=(0.2, 0.1, -0.3),
                 qpos=(0.1, 0.2, 1.0, *(p / np.linalg.norm(p))), qvel=(0.5, 0.0, 3.0, 1.0, 2.0, 3.0))]


MECHANISMS = {"double_pendulum": double_pendulum, "five_link_chain": five_link_chain, "ball_pendulum": ball_pendulum,
              "free_body": free_body}
