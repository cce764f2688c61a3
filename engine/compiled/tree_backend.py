"""The optional compiled tree-dynamics path: a model's tree mapped onto pinocchio (`pip install
eomlab[fast]`), whose recursions give M (CRBA), the velocity-product and gravity terms (RNEA) and,
when no constraint needs M, the accelerations by the articulated-body algorithm (ABA: O(n), and
accurate where M is ill-conditioned because M is never formed or factored).

Every joint maps so that pinocchio's velocity vector *is* eomlab's speeds u (same order, no
velocity map), so M and the forcing carry over unchanged:

- revolute, prismatic (any axis): one pinocchio joint of that type;
- planar: slides along x and y, then a turn about z (two massless links);
- spherical / free in Euler parameters, or in Euler angles with body-rate speeds: pinocchio's
  spherical joint (quaternion, body-axis ω), after a massless 3-D translation for free joints;
- spherical / free in Euler angles with angle-rate speeds: three revolutes about the sequence's
  axes (R = R_a R_b R_c turns about moving axes), which is what the angle rates are;
- fixed: the body's inertia is carried by its parent's joint.

The numpy path of engine.mechanics.system stays the reference (tests compare the two) and the fallback:
without pinocchio, with EOMLAB_FAST_PATH=0 in the environment, or for a model it does not map.
"""
from __future__ import annotations

import math
import os
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from eomlab.engine.compiled.compiled_step import call_kernel, compiled_floating, compiled_kernels
from eomlab.engine.compiled.flat_tree import FlatTree, flat_tree  # noqa: F401  (FlatTree: its old home, named in the kernels' docstrings)
from eomlab.engine.joints import joint_type

if TYPE_CHECKING:
    from eomlab.engine.compiled.floating_tree import FloatingTree


#: the environment variable that switches the compiled path off ("0") for a process
FAST_PATH_VARIABLE = "EOMLAB_FAST_PATH"
NUMPY_PATH = "numpy"
PINOCCHIO_PATH = "pinocchio"
_UNIT_AXES = {(1.0, 0.0, 0.0): "RX", (0.0, 1.0, 0.0): "RY", (0.0, 0.0, 1.0): "RZ"}


def fast_path_wanted() -> bool:
    """False when the environment switches the compiled path off."""
    return os.environ.get(FAST_PATH_VARIABLE, "1").strip().lower() not in ("0", "false", "no", "off")


def _pinocchio():
    try:
        import pinocchio
    except ImportError:
        return None
    return pinocchio


#: pinocchio's Data holds eight nv³ tensors of doubles (its second-order derivatives), made whether
#: used or not: 64 nv³ bytes, half a gigabyte at 200 speeds and growing as the cube. Beyond this many
#: speeds (1 GiB) the numpy path runs instead.
MAX_COMPILED_SPEEDS = 256


def data_bytes(n_speeds: int) -> int:
    """About what pinocchio's Data for a tree of `n_speeds` speeds holds (its nv³ tensors)."""
    return 64 * n_speeds**3


def build_tree_backend(kin, gravity, armature=None):
    """(backend or None, the path in words): the pinocchio tree of `kin` (engine.kinematics
    TreeKinematics) when wanted, installed and of at most MAX_COMPILED_SPEEDS speeds, else None and
    why the numpy path runs. `armature`: the rotor inertia on each speed (eomlab's order), which
    pinocchio's CRBA, ABA and energy add on M's diagonal (engine.mechanics.armature)."""
    if not fast_path_wanted():
        return None, f"{NUMPY_PATH} ({FAST_PATH_VARIABLE}=0)"
    if kin.n_u > MAX_COMPILED_SPEEDS:
        return None, (f"{NUMPY_PATH} ({kin.n_u} speeds: pinocchio's Data would hold about "
                      f"{data_bytes(kin.n_u) / 2**30:.1f} GiB; the compiled path takes at most {MAX_COMPILED_SPEEDS})")
    pin = _pinocchio()
    if pin is None:
        return None, f"{NUMPY_PATH} (pinocchio not installed: pip install eomlab[fast])"
    return PinocchioTree(pin, kin, gravity, armature), PINOCCHIO_PATH


class PinocchioTree:
    """The tree of a TreeKinematics as a pinocchio Model; q and u map by a gather (plus a
    normalisation of Euler parameters and a quaternion per Euler-angle body-rate joint).

    Pinocchio's CRBA needs every subtree's speeds contiguous, so the joints go in depth-first
    order; when eomlab's body order is not depth-first the speeds are permuted on the way in and out.
    """

    def __init__(self, pin, kin, gravity, armature=None):
        self.pin = pin
        model = pin.Model()
        model.gravity.linear = np.asarray(gravity, dtype=float)
        q_gather: list[int] = []  # eomlab coordinate of each pinocchio coordinate (−1: filled per state)
        self._quaternions: list[tuple[int, int]] = []  # (pinocchio start, eomlab start of e0..e3)
        self._euler_quaternions: list[tuple[int, slice, object]] = []  # (pinocchio start, angles, sequence)
        joint_of: dict[int, int] = {}  # pinocchio joint carrying each body
        frame_of: dict[int, object] = {}  # placement of each body's frame in that joint's frame
        v_gather: list[int] = []  # eomlab speed of each pinocchio speed
        for b in _depth_first(kin.parent):
            jl = kin.joints[b]
            p = kin.parent[b]
            v_gather.extend(range(jl.u_slice.start, jl.u_slice.stop))
            parent_joint = 0 if p < 0 else joint_of[p]
            parent_frame = pin.SE3.Identity() if p < 0 else frame_of[p]
            placement = parent_frame * pin.SE3(np.array(jl.rotation, dtype=float), np.array(jl.at, dtype=float))
            chain = self._joint_chain(pin, jl)
            if not chain:  # fixed: rides on the parent's joint
                joint_id, frame = parent_joint, placement
            else:
                joint_id = parent_joint
                for k, (joint_model, q_source) in enumerate(chain):
                    joint_id = model.addJoint(joint_id, joint_model, placement if k == 0 else pin.SE3.Identity(),
                                              f"{kin.body_names[b]}_{k}")
                    start = len(q_gather)
                    if q_source == "quaternion":
                        e = jl.q_slice.stop - 4
                        self._quaternions.append((start, e))
                        q_gather.extend((e + 1, e + 2, e + 3, e))  # pinocchio: (x, y, z, w)
                    elif q_source == "euler":
                        self._euler_quaternions.append((start, slice(jl.q_slice.stop - 3, jl.q_slice.stop), jl.euler))
                        q_gather.extend((-1, -1, -1, -1))
                    else:
                        q_gather.extend(q_source)
                frame = pin.SE3.Identity()
            inertia = pin.Inertia(float(kin.mass[b]), kin.com_body[b].copy(), kin.inertia_body[b].copy())
            if joint_id > 0:
                model.appendBodyToJoint(joint_id, inertia, frame)
            joint_of[b] = joint_id
            frame_of[b] = frame
        self._first_centre = self._add_mass_centre_frames(model, kin, joint_of, frame_of)
        if model.nv != kin.n_u:
            raise ValueError(f"pinocchio tree has {model.nv} speeds, the model {kin.n_u}")
        self.has_armature = armature is not None and bool(np.any(armature))
        if self.has_armature:  # pinocchio's speed order
            model.armature = np.asarray(armature, dtype=float)[np.array(v_gather, dtype=int)]
        self.model, self.data = model, model.createData()
        self._q_gather = np.array(q_gather, dtype=int)
        self._plain = self._q_gather >= 0
        self._plain_source = self._q_gather[self._plain]
        self._simple = not self._quaternions and not self._euler_quaternions
        self._same = self._simple and np.array_equal(self._q_gather, np.arange(kin.n_q))
        self.n_u = kin.n_u
        self._v_gather = np.array(v_gather, dtype=int)
        self._v_scatter = np.argsort(self._v_gather)  # pinocchio's index of each eomlab speed
        self._permuted = not np.array_equal(self._v_gather, np.arange(kin.n_u))
        self._last_configuration = None  # (the bytes of q, q_pin) of the last `configuration` with quaternions
        self._lower = np.tril_indices(kin.n_u, -1)  # M's entries pinocchio's CRBA leaves unfilled
        # one Data for every call (pinocchio's holds nv³ tensors: MAX_COMPILED_SPEEDS says why); each
        # method reads what it needs from it before it returns
        self._weightless, self._gravity = pin.Motion.Zero(), pin.Motion(model.gravity)  # copies
        self._body_joint = np.array([joint_of[b] for b in range(kin.n_bodies)], dtype=int)
        self._body_joint_list = [int(j) for j in self._body_joint]
        placed = np.array([frame_of[b].homogeneous for b in range(kin.n_bodies)]).reshape(kin.n_bodies, 4, 4)
        self._body_frames = None if np.array_equal(placed, np.broadcast_to(np.eye(4), placed.shape)) else placed
        self.kin = kin

    @staticmethod
    def _joint_chain(pin, jl):
        """[(pinocchio joint model, its coordinates' source)]: a list of eomlab coordinate indices,
        "quaternion" (Euler parameters) or "euler" (a quaternion from the angles, per state)."""
        return joint_type(jl.type).pinocchio_chain(pin, jl, _UNIT_AXES)

    def configuration(self, q: np.ndarray) -> np.ndarray:
        """Pinocchio's q from eomlab's (Euler parameters normalised: eomlab's rotation of p is that of p/|p|)."""
        q = np.asarray(q, dtype=float)
        if self._same:  # revolute, prismatic, planar and Euler-rate joints only
            return q
        if self._simple:
            return q[self._q_gather]
        key = q.tobytes()  # asked for again at one q (the rows, then M and the forcing)
        last = self._last_configuration
        if last is not None and last[0] == key:
            return last[1]
        q_pin = np.empty(self._q_gather.size)
        q_pin[self._plain] = q[self._plain_source]
        for start, _ in self._quaternions:
            p = q_pin[start : start + 4]
            p /= np.sqrt(p @ p)
        for start, angles, sequence in self._euler_quaternions:
            q_pin[start : start + 4] = _euler_quaternion(sequence, q[angles])
        self._last_configuration = (key, q_pin)
        return q_pin

    def mass_matrix(self, q_pin: np.ndarray) -> np.ndarray:
        """M by the composite-rigid-body algorithm (pinocchio fills the upper triangle)."""
        M = self.pin.crba(self.model, self.data, q_pin).copy()
        lower = self._lower
        M[lower] = M.T[lower]
        return M[np.ix_(self._v_scatter, self._v_scatter)] if self._permuted else M

    def bias_forces(self, q_pin: np.ndarray, u: np.ndarray) -> np.ndarray:
        """C − Q_gravity (velocity products minus gravity forces) by the recursive Newton–Euler algorithm."""
        return self._ours(self.pin.nonLinearEffects(self.model, self.data, q_pin, self._theirs(u)))

    def accelerations(self, q_pin: np.ndarray, u: np.ndarray, tau: np.ndarray) -> np.ndarray:
        """u_dot of the unconstrained tree under extra generalized forces tau, by ABA (O(n), M never formed)."""
        return self._ours(self.pin.aba(self.model, self.data, q_pin, self._theirs(u), self._theirs(tau)))

    def _theirs(self, x: np.ndarray) -> np.ndarray:
        """A vector over eomlab's speeds in pinocchio's (depth-first) order."""
        return x[self._v_gather] if self._permuted else x

    def _ours(self, x: np.ndarray) -> np.ndarray:
        """A vector over pinocchio's speeds in eomlab's order (a copy: pinocchio reuses its Data)."""
        return x[self._v_scatter] if self._permuted else x.copy()

    def velocity_products(self, q_pin: np.ndarray, u: np.ndarray) -> np.ndarray:
        """C (the velocity-product terms alone) by RNEA with gravity switched off for the call."""
        self.model.gravity = self._weightless
        try:
            return self.bias_forces(q_pin, u)
        finally:
            self.model.gravity = self._gravity

    def gravity_forces(self, q_pin: np.ndarray) -> np.ndarray:
        """Q_gravity, the generalized gravity forces (pinocchio's g(q) is the torque that holds them)."""
        g = self.pin.computeGeneralizedGravity(self.model, self.data, q_pin)
        return -self._ours(g)

    # --- the bodies' kinematics, read by engine.compiled.compiled_kinematics ------------------------------

    def kinematic_state(self, q: np.ndarray, u: np.ndarray | None = None):
        """The bodies' poses, Jacobians, velocities and bias accelerations at (q, u), each formed on
        first use (u None: the positions stage, u = 0)."""
        from eomlab.engine.compiled.compiled_kinematics import CompiledKinematicState

        return CompiledKinematicState(self, self.configuration(q), u)

    def poses_and_axes(self, q_pin: np.ndarray):
        """R (nb, 3, 3) and origin (nb, 3) of every body frame, and each speed's world twist (nu, 6)
        in eomlab's order: the velocity of the body-fixed point at the world origin, then the
        angular axis. One pass of pinocchio's joint Jacobians (WORLD)."""
        data = self.data
        self.pin.computeJointJacobians(self.model, data, q_pin)
        J = np.array(data.J).reshape(6, self.n_u)  # (a single column comes back 1-D)
        if self._permuted:
            J = J[:, self._v_scatter]
        oMi = data.oMi
        R = np.array([oMi[j].rotation for j in self._body_joint_list])
        origin = np.array([oMi[j].translation for j in self._body_joint_list])
        if self._body_frames is not None:
            frames = self._body_frames
            origin = origin + (R @ frames[:, :3, 3:])[:, :, 0]
            R = R @ frames[:, :3, :3]
        return R, origin, J.T

    def world_jacobian(self, q_pin: np.ndarray):
        """(J, oMi): every speed's world twist (6, nu; the velocity of the body-fixed point at the world
        origin, then the angular axis) in eomlab's order, and pinocchio's joint placements (read them
        before the next call)."""
        data = self.data
        self.pin.computeJointJacobians(self.model, data, q_pin)
        J = data.J.reshape(6, self.n_u)
        return (J[:, self._v_scatter] if self._permuted else J.copy()), data.oMi

    def world_jacobian_rate(self, q_pin: np.ndarray, u: np.ndarray) -> np.ndarray:
        """J̇ (6, nu) at (q, u) in eomlab's order (pinocchio's time variation, WORLD)."""
        data = self.data
        self.pin.computeJointJacobiansTimeVariation(self.model, data, q_pin, self._theirs(u))
        dJ = data.dJ.reshape(6, self.n_u)
        return dJ[:, self._v_scatter] if self._permuted else dJ.copy()

    def bias_twists(self, q_pin: np.ndarray, u: np.ndarray) -> np.ndarray:
        """(nb, 6) the rate of every body's world twist at u̇ = 0 (linear part at the world origin,
        then angular): Σ over the speeds that move the body of J̇ u (pinocchio's dJ, WORLD)."""
        data = self.data
        self.pin.computeJointJacobiansTimeVariation(self.model, data, q_pin, self._theirs(u))
        dJ = data.dJ.reshape(6, self.n_u)
        if self._permuted:
            dJ = dJ[:, self._v_scatter]
        return self.kin.moved @ (dJ.T * u[:, None])

    def free_state_derivative(self):
        """y = (q, u) ↦ (q̇ = u, u̇ by ABA) of the unconstrained tree under no extra forces, for
        joints whose rates are their speeds: one function bound once, as the integrator calls it
        thousands of times a second. A fresh array per call (the solvers keep earlier ones); no
        finiteness check (a singular M gives NaN here: the caller names it by the Cholesky path)."""
        aba, model, data = self.pin.aba, self.model, self.data
        n = self.n_u
        no_effort = np.zeros(n)
        if self._same and not self._permuted:  # revolute and prismatic chains: pinocchio's q is eomlab's

            def derivative(y):
                out = np.empty(2 * n)
                out[:n] = y[n:]
                out[n:] = aba(model, data, y[:n], y[n:], no_effort)
                return out
        elif not self._quaternions:
            configuration, accelerations = self.configuration, self.accelerations

            def derivative(y):
                out = np.empty(2 * n)
                u = y[n:]
                out[:n] = u
                out[n:] = accelerations(configuration(y[:n]), u, no_effort)
                return out
        else:  # Euler parameters: ṗ = ½ p ⊗ (0, ω) (engine.kinematics.rates), the rest q̇ = u
            configuration, accelerations = self.configuration, self.accelerations
            n_q = self.kin.n_q
            from eomlab.engine.compiled.floating_tree import rate_layout

            plain_q, plain_u, blocks = rate_layout(self.kin)

            def derivative(y):
                out = np.empty(n_q + n)
                q, u = y[:n_q], y[n_q:]
                out[plain_q] = u[plain_u]
                for at, speeds in blocks:  # plain floats: numpy costs more than the arithmetic on four numbers
                    e0, e1, e2, e3 = q[at : at + 4].tolist()
                    w1, w2, w3 = u[speeds : speeds + 3].tolist()
                    out[at : at + 4] = (0.5 * (-e1 * w1 - e2 * w2 - e3 * w3), 0.5 * (e0 * w1 - e3 * w2 + e2 * w3),
                                        0.5 * (e3 * w1 + e0 * w2 - e1 * w3), 0.5 * (-e2 * w1 + e1 * w2 + e0 * w3))
                out[n_q:] = accelerations(configuration(q), u, no_effort)
                return out
        return derivative

    def free_state_jacobian(self):
        """y ↦ ∂ẏ/∂y of `free_state_derivative`, exact: pinocchio's analytic derivatives of the
        articulated-body algorithm (Carpentier and Mansard, RSS 2018), [[0, I], [∂q̈/∂q, ∂q̈/∂q̇]];
        None unless pinocchio's q is eomlab's and q̇ = u (as for the straight-bound derivative)."""
        if not (self._same and not self._permuted):
            return None
        derivatives, model, data = self.pin.computeABADerivatives, self.model, self.data
        n = self.n_u
        no_effort = np.zeros(n)

        def jacobian(y):
            derivatives(model, data, y[:n], y[n:], no_effort)
            J = np.zeros((2 * n, 2 * n))
            J[:n, n:] = np.eye(n)
            J[n:, :n] = data.ddq_dq
            J[n:, n:] = data.ddq_dv
            return J
        return jacobian

    def flat_tree(self) -> FlatTree | None:
        """The tree as flat arrays for engine.compiled.numba_kernels, when `free_state_derivative` binds
        pinocchio's `aba` straight to y (one revolute or prismatic joint per speed, eomlab's order):
        else None (engine.compiled.flat_tree)."""
        if not (self._same and not self._permuted) or self.has_armature:  # the kernels' ABA has no armature
            return None
        return flat_tree(self.model)

    def floating_tree(self) -> FloatingTree | None:
        """The tree as engine.compiled.floating_kernels takes it (spherical and free joints in Euler parameters,
        armature, any speed order), or None (Euler-angle joints with body rates, or a joint it does not take)."""
        from eomlab.engine.compiled.floating_tree import floating_tree

        return floating_tree(self.model, self._q_gather, self._v_gather)

    def _add_mass_centre_frames(self, model, kin, joint_of, frame_of) -> int:
        """A frame at each body's mass centre (for `sample_quantities`), added before the model's
        Data is made: pinocchio's Data holds nv³ tensors (see MAX_COMPILED_SPEEDS), so a
        second one is not an option. The index of the first."""
        pin = self.pin
        first = model.nframes
        for b in range(kin.n_bodies):
            at = frame_of[b] * pin.SE3(np.eye(3), kin.com_body[b].copy())
            model.addFrame(pin.Frame(f"{kin.body_names[b]}_mass_centre", joint_of[b], at, pin.FrameType.OP_FRAME))
        return first

    def sample_quantities(self, q_pin: np.ndarray, u: np.ndarray) -> tuple[float, float, np.ndarray]:
        """Kinetic energy, gravity's potential energy (−Σ m g·c) and every body's mass centre
        (n_bodies, 3), from one forward pass: the compiled one once numba's kernels are ready
        (engine.compiled.compiled_step; pinocchio's frame placements cost more than the step on long chains), else pinocchio's."""
        kernels = compiled_kernels()
        if kernels is not None and self._flat_sampling is not None:
            tree, body_joint, body_lever = self._flat_sampling
            centres = np.empty((len(body_joint), 3))
            T, V = call_kernel(kernels.energies_and_centres, tree, q_pin, u, body_joint, body_lever, centres)
            return T, V, centres
        return self.sampled_by_pinocchio(q_pin, u)

    def quantities(self, q: np.ndarray, u: np.ndarray) -> tuple[float, float, np.ndarray]:
        """`sample_quantities` at eomlab's (q, u): by engine.compiled.floating_kernels for the trees only it
        takes (from q itself, no pinocchio configuration), else as `sample_quantities`."""
        kernels = compiled_floating()
        if kernels is not None and self._floating_sampling is not None:
            tree, body_joint, body_lever = self._floating_sampling
            centres = np.empty((len(body_joint), 3))
            y = np.concatenate((np.asarray(q, dtype=float), np.asarray(u, dtype=float)))
            T, V = call_kernel(kernels.energies_and_centres, tree, y, body_joint, body_lever, centres)
            return T, V, centres
        return self.sample_quantities(self.configuration(q), u)

    @cached_property
    def _floating_sampling(self):
        """(floating tree, each body's kernel joint (−1: the ground), its mass centre in that joint's frame) for
        floating_kernels.energies_and_centres, or None when the tree does not take it."""
        tree = self.floating_tree() if self.flat_tree() is None else None  # (flat trees: numba_kernels' sampling)
        if tree is None:
            return None
        from eomlab.engine.compiled.floating_tree import kernel_joints

        return tuple(tree), kernel_joints(self.model)[self._body_joint], self._body_levers()

    def _body_levers(self) -> np.ndarray:
        """Every body's mass centre in the frame of the joint that carries it."""
        frames = self._body_frames if self._body_frames is not None else np.broadcast_to(np.eye(4), (self.kin.n_bodies, 4, 4))
        lever = np.einsum("bij,bj->bi", frames[:, :3, :3], self.kin.com_body) + frames[:, :3, 3]
        return np.ascontiguousarray(lever, dtype=float)

    @cached_property
    def _flat_sampling(self):
        """(flat tree, each body's flat joint (−1: the ground), its mass centre in that joint's
        frame) for numba_kernels.energies_and_centres, or None when the tree does not flatten."""
        tree = self.flat_tree()
        if tree is None:
            return None
        return tuple(tree), (self._body_joint - 1).astype(np.int64), self._body_levers()

    def sampled_by_pinocchio(self, q_pin: np.ndarray, u: np.ndarray) -> tuple[float, float, np.ndarray]:
        """`sample_quantities` by pinocchio's energy and frame placements (a frame per mass centre)."""
        pin, model, data = self.pin, self.model, self.data
        v = self._theirs(u)
        if not self.has_armature:
            pin.computeMechanicalEnergy(model, data, q_pin, v)
            T = float(data.kinetic_energy)
        else:  # pinocchio 4.1's energy holds the armature only in part: the bodies' alone, then the rotors' ½ Σ a u²
            armature = model.armature.copy()
            model.armature = np.zeros(model.nv)
            try:
                pin.computeMechanicalEnergy(model, data, q_pin, v)
            finally:
                model.armature = armature
            T = float(data.kinetic_energy) + 0.5 * float(armature @ (v * v))
        pin.updateFramePlacements(model, data)
        com = np.array([placement.translation for placement in data.oMf])[self._first_centre:]
        return T, float(data.potential_energy), com


def _depth_first(parent) -> list[int]:
    """Body indices in depth-first order (children in their order; parents precede children)."""
    children: dict[int, list[int]] = {}
    for b, p in enumerate(parent):
        children.setdefault(int(p), []).append(b)
    order, stack = [], list(reversed(children.get(-1, [])))
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children.get(b, [])))
    return order


def _euler_quaternion(sequence, angles) -> tuple[float, float, float, float]:
    """(x, y, z, w) of R_a(ψ) R_b(θ) R_c(φ): the product of the three turns' quaternions
    (cos ½α, sin ½α e), exact where a matrix-to-quaternion conversion would round (plain floats:
    three-vectors in numpy cost more than the arithmetic)."""
    w, x, y, z = 1.0, 0.0, 0.0, 0.0
    for axis, angle in zip((sequence.e_a, sequence.e_b, sequence.e_c), angles):
        c, s = math.cos(0.5 * angle), math.sin(0.5 * angle)
        ex, ey, ez = s * float(axis[0]), s * float(axis[1]), s * float(axis[2])
        w, x, y, z = (w * c - x * ex - y * ey - z * ez,
                      w * ex + c * x + y * ez - z * ey,
                      w * ey + c * y + z * ex - x * ez,
                      w * ez + c * z + x * ey - y * ex)
    return x, y, z, w
