"""Constraint forces where they act: the reactions at the joints and the forces of every other
constraint (loop closures, contacts, knife edges, servos), from the multipliers λ of
M u̇ = f + Aᵀλ — physical forces and couples at points, not the raw λ.

- A constraint kind maps its own λ to Actions (`ConstraintKind.actions`: a coincident row
  A = e_dᵀ(J_b − J_a) puts λ e_d on b at its point and −λ e_d on a; a rolling disk's rows A = J_P
  put (λ_x, λ_y, λ_z) on the disk at its contact point; a joint's rows in absolute coordinates
  put their force at the child's origin and their couple on the child).
- The joints of a tree in joint coordinates have no multipliers: Newton–Euler over each body's
  subtree gives the wrench its parent exerts through its joint,

      F_B = Σ_{C ∈ subtree(B)} m_C a_C − (applied and constraint forces on C)
      M_B = Σ_{C ∈ subtree(B)} (G_C − o_B) × m_C a_C + Ḣ_C − (their moments about o_B),

  with a_C = J_v u̇ + a_bias at the formulation's u̇ and Ḣ = I α + ω × I ω. The couple is the
  joint's reaction torque (zero along a revolute's axis: `engine.forcing.action.joint_motion`).
"""
from __future__ import annotations

import weakref
from functools import lru_cache

import numpy as np

from eomlab.engine.mechanics.absolute import InJointCoordinates, JointCoordinateForce
from eomlab.engine.forcing.action import Action, ActionArrays
from eomlab.engine.forcing.applied_forces import applied_force_arrays
from eomlab.engine.constraints import JointRows, PlanarPins, SpatialPins
from eomlab.engine.joints import joint_type
from eomlab.engine.rotations import cross


def constraint_forces(system, evaluation, t: float, eps: float = 0.0, applied: list[Action] | None = None) -> list[Action]:
    """The reactions at the tree's joints (joint coordinates; none for free joints) followed by
    the forces of every constraint kind (absolute coordinates: the joints are among those), at
    the state of `evaluation` (a Formulation.evaluate result) at time t (pushes within eps).
    A constraint given as an equation in the coordinates has no point of action: ModelError
    naming it. `applied`: the applied forces at this state when the caller has them.

    In absolute coordinates a force or constraint written in joint coordinates acts through
    u_j = G u_abs (`engine.mechanics.joint_coordinates`), and G, a pseudo-inverse, differs from the
    joint's own motion off the constraints: the joints' multipliers then carry that difference
    besides the reactions. Such models get their joint reactions by Newton–Euler over the
    model's own tree as in joint coordinates."""
    known = None if applied is None else ActionArrays.of(applied)
    return constraint_force_arrays(system, evaluation, t, eps, known).actions()


def constraint_force_arrays(system, evaluation, t: float, eps: float = 0.0,
                            applied: ActionArrays | None = None) -> ActionArrays:
    """`constraint_forces` as rows of arrays (`applied`: `applied_force_arrays` at this state)."""
    ks = evaluation.dynamics.ks
    kinds, tree, joints = _reaction_plan(system)
    from_kinds = ActionArrays.of(multiplier_forces(system, ks, evaluation.multipliers, kinds))
    if not joints:
        return from_kinds
    known = ActionArrays.joined(applied_force_arrays(system, evaluation, t, eps) if applied is None else applied,
                                from_kinds)
    return ActionArrays.joined(joint_reactions(system, evaluation, known, joints, tree.parent), from_kinds)


_PLANS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _reaction_plan(system) -> tuple[list, object, list[int]]:
    """(the constraint kinds whose multipliers give forces, the tree whose joints' reactions come
    from Newton–Euler, those joints' bodies) of `system`, worked out once per system."""
    plan = _PLANS.get(system)
    if plan is None:
        view = getattr(system, "joint_coordinates", None)
        through_joints = view is not None and _acts_through_joint_coordinates(system)
        kinds = system.constraints.kinds if system.constraints is not None else []
        if through_joints:
            kinds = [k for k in kinds if not isinstance(k, JOINT_ROWS)]
        tree = view.kin if through_joints else system.kin
        plan = _PLANS[system] = (kinds, tree, [jl.body for jl in tree.joints if not _free(tree, jl)])
    return plan


def _acts_through_joint_coordinates(system) -> bool:
    kinds = system.constraints.kinds if system.constraints is not None else []
    return any(isinstance(x, (InJointCoordinates, JointCoordinateForce)) for x in [*kinds, *system.forces])


def multiplier_forces(system, ks, multipliers, kinds=None) -> list[Action]:
    """The Actions of every constraint kind of `system` (or of those of them in `kinds`) from
    its multipliers."""
    out: list[Action] = []
    if system.constraints is None:
        return out
    wanted = system.constraints.kinds if kinds is None else kinds
    row = 0
    for kind in system.constraints.kinds:
        if any(kind is k for k in wanted):
            out += kind.actions(ks, np.asarray(multipliers[row:row + kind.rows], float))
        row += kind.rows
    return out


def joint_reactions(system, evaluation, known: ActionArrays, bodies_wanted, parent=None) -> ActionArrays:
    """The force (at the body's origin) and couple each of `bodies_wanted` receives from its parent
    through its joint, by Newton–Euler over its subtree with the `known` forces on every body
    (`parent`: the tree, parents before children; by default the system's own)."""
    kin, ks = system.kin, evaluation.dynamics.ks
    parent = kin.parent if parent is None else parent
    u_dot = evaluation.u_dot
    a_com = np.einsum("bij,j->bi", ks.J_v, u_dot) + ks.a_bias
    alpha = np.einsum("bij,j->bi", ks.J_w, u_dot) + ks.alpha_bias
    inertia = ks.R @ kin.inertia_body @ ks.R.transpose(0, 2, 1)
    H_dot = (inertia @ alpha[:, :, None])[:, :, 0] + cross(ks.omega, (inertia @ ks.omega[:, :, None])[:, :, 0])
    # what each body needs beyond the known forces, as a force and a moment about the world origin
    force = kin.mass[:, None] * a_com
    moment = cross(ks.com, force) + H_dot
    bodies, points, forces, torques = known.on_bodies()
    if len(bodies):
        np.add.at(force, bodies, -forces)
        np.add.at(moment, bodies, -(cross(points, forces) + torques))
    subtree = _subtree_sums(tuple(int(p) for p in parent))
    wanted = np.asarray(list(bodies_wanted), int)
    force, moment = subtree[wanted] @ force, subtree[wanted] @ moment
    origins = ks.origin[wanted]
    k = len(wanted)
    return ActionArrays(tuple(f"joint {kin.body_names[b]}" for b in wanted), ("joint",) * k, wanted, origins,
                        force, moment - cross(origins, force), np.asarray(parent, int)[wanted], origins)


@lru_cache(maxsize=64)
def _subtree_sums(parent: tuple[int, ...]) -> np.ndarray:
    """(n, n) with row b the indicator of body b's subtree (b and its descendants): row b times
    per-body values sums them over the subtree (parents come before their children)."""
    n = len(parent)
    subtree = np.eye(n)
    for b in range(n - 1, -1, -1):
        if parent[b] >= 0:
            subtree[parent[b]] += subtree[b]
    subtree.setflags(write=False)
    return subtree


#: the kinds that hold a model's joints in absolute coordinates
JOINT_ROWS = (JointRows, PlanarPins, SpatialPins)


def _free(kin, jl) -> bool:
    """A joint that constrains nothing the kinematics move: free, or planar in a planar model."""
    return joint_type(jl.type).constrains_nothing(kin.planar)


def joint_forces_by_body(system, actions: list[Action]) -> np.ndarray:
    """(n_bodies, 3) force on each body from its parent through its joint (zero for free joints),
    from the joint Actions of `constraint_forces`."""
    out = np.zeros((system.kin.n_bodies, 3))
    names = {f"joint {name}": b for b, name in enumerate(system.kin.body_names)}
    for action in actions:
        b = names.get(action.source)
        if action.kind == "joint" and b is not None:
            out[b] = action.force if action.on == b else -action.force
    return out
