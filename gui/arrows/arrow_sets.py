"""What the arrows show at one sample: world points and vectors per arrow kind, read from the
engine (`engine.simulation.RunQuantities`: forces where they act, velocities, momenta), and the
scales that turn them into pixels.

No drawing here (gui/arrows/arrows_draw.py paints, gui/arrows/arrows_view.py switches and places) and no mechanics
(the engine computes every quantity); this picks which body gets which arrow.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.model import ModelError

#: arrow kinds: key → (menu text, legend text, colour, unit of its vectors)
KINDS = {
    "velocity": ("Mass-centre velocities", "velocity of G", "#009E73", "m/s"),
    "applied": ("Applied forces (gravity, springs, efforts)", "applied force", "#8E44AD", "N"),
    "constraint": ("Constraint forces at joints and contacts", "constraint force", "#D55E00", "N"),
    "omega": ("Angular velocity ω of 3-D bodies", "angular velocity ω", "#1A1A1A", "rad/s"),
    "momentum": ("Angular momentum H_G of 3-D bodies", "angular momentum H_G", "#D9A400", "kg·m²/s"),
}
#: what each kind reads of the engine at a sample row (`RunQuantities`, `Simulation` alike)
QUANTITY_METHODS = {"velocity": "mass_centre_velocities", "applied": "applied_force_arrays",
                    "constraint": "constraint_force_arrays", "omega": "angular_velocities",
                    "momentum": "angular_momenta"}
#: kinds about 3-D bodies only: nothing to read for a planar model
SPATIAL_KINDS = ("omega", "momentum")


def readers_of(kinds, planar: bool) -> set[str]:
    """The engine readers (`QUANTITY_METHODS`) the arrows of `kinds` call on a (planar) model."""
    return {QUANTITY_METHODS[kind] for kind in kinds if not (planar and kind in SPATIAL_KINDS)}
#: painting order (later on top) and shaft widths: H broad under a thin ω, which is often parallel
DRAW_ORDER = ("momentum", "omega", "applied", "constraint", "velocity")
WIDTHS = {"momentum": 8.0}
#: couples (torques) are drawn as arcs (2-D) or double-headed arrows (3-D) in this unit
COUPLE_UNIT = "N·m"
#: a typical large magnitude (`Scales`) is drawn this long: a share of the view's smaller side (px)
LONGEST_SHARE = 0.3
#: the quantile of the frames' largest magnitudes that sets a scale, and how many frames count
TYPICAL = 0.9
FRAMES_KEPT = 3000
#: after this many frames of a kind its scale is revised every REVISE_LATER-th frame only
SETTLED, REVISE_LATER = 300, 100
#: vectors shorter than this share of the longest are left out (round-off of a zero force)
NEGLIGIBLE = 1e-9


@dataclass
class ArrowSet:
    """Arrows of one kind in world coordinates: vectors at points, couples at points."""

    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    couple_points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    couples: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))

    @property
    def empty(self) -> bool:
        return not len(self.points) and not len(self.couple_points)


def _lengths(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", v, v))


def _kept(points: np.ndarray, vectors: np.ndarray, reference: float) -> tuple[np.ndarray, np.ndarray]:
    """The finite entries longer than `NEGLIGIBLE` times the longest (or `reference`)."""
    if not len(vectors):
        return _NONE, _NONE
    with np.errstate(invalid="ignore", over="ignore"):
        norms = _lengths(vectors)
        finite = np.isfinite(norms + points.sum(axis=1))
        largest = max(float(norms[finite].max(initial=0.0)), reference, 1e-300)
        ok = finite & (norms > NEGLIGIBLE * largest)
    return (points, vectors) if ok.all() else (points[ok], vectors[ok])


_NONE = np.zeros((0, 3))
_NONE.setflags(write=False)


def _finite_set(points, vectors, couple_points=None, couples=None) -> ArrowSet:
    """An ArrowSet without the non-finite or negligible entries (a couple is negligible beside the
    forces' size times a metre as well: the round-off about a pin's axis)."""
    p, v = _kept(points, vectors, 0.0)
    if couples is None or not len(couples):
        return ArrowSet(p, v)
    largest_force = float(_lengths(v).max(initial=0.0))
    cp, c = _kept(couple_points, couples, largest_force)
    return ArrowSet(p, v, cp, c)


def _from_actions(actions, planar: bool, both_ends: set[str]) -> ArrowSet:
    """Forces at their points (and couples) on the body each action is on (`actions`: the
    engine's ActionArrays); the reaction too for kinds in `both_ends` (a spring pulls both its
    ends). Planar: in-plane forces, z couples."""
    if not len(actions):
        return ArrowSet()
    points, forces, torques = actions.at, actions.force, actions.torque
    ends = np.fromiter((k in both_ends for k in actions.kinds), bool, len(actions)) & (actions.other >= 0)
    if ends.any():
        points = np.concatenate((points, actions.reaction_points()[ends]))
        forces = np.concatenate((forces, -forces[ends]))
        torques = np.concatenate((torques, -torques[ends]))
    if planar:
        forces, torques = forces.copy(), torques.copy()
        forces[:, 2] = 0.0
        torques[:, :2] = 0.0
    return _finite_set(points, forces, points, torques)


def _at_mass_centres(vectors: np.ndarray, centres: np.ndarray, bodies: np.ndarray) -> ArrowSet:
    return _finite_set(centres[bodies], vectors[bodies])


def moving_and_spinning(model) -> tuple[np.ndarray, np.ndarray]:
    """The bodies with mass (velocity arrows) and those with rotational inertia (ω, H)."""
    moving = np.array([b for b, body in enumerate(model.bodies) if body.mass > 0], int)
    spinning = np.array([b for b, body in enumerate(model.bodies) if any(body.inertia[k][k] > 0 for k in range(3))],
                        int)
    return moving, spinning


def arrow_sets(quantities, row: np.ndarray, frame, bodies, planar: bool, kinds) -> tuple[dict, dict]:
    """({kind: ArrowSet}, {kind: why nothing is drawn}) for the wanted `kinds` at sample `row`
    (drawn on the pose `frame` of the same sample; `bodies`: `moving_and_spinning` of the model).
    ω and H are for 3-D bodies: none in a planar model."""
    sets, problems = {}, {}
    centres = frame.mass_centres
    moving, spinning = bodies
    for kind in kinds:
        try:
            if planar and kind in SPATIAL_KINDS:
                problems[kind] = "planar model: ω and H are along z (see the plots)"
                sets[kind] = ArrowSet()
                continue
            values = getattr(quantities, QUANTITY_METHODS[kind])(row)
            if kind == "velocity":
                sets[kind] = _at_mass_centres(values, centres, moving)
            elif kind in ("applied", "constraint"):
                sets[kind] = _from_actions(values, planar, {"spring"} if kind == "applied" else set())
            else:  # omega, momentum
                sets[kind] = _at_mass_centres(values, centres, spinning)
        except ModelError as err:
            problems[kind] = str(err).split(": ", 1)[-1]
            sets[kind] = ArrowSet()
        except (ArithmeticError, ValueError, np.linalg.LinAlgError) as err:
            problems[kind] = f"cannot be computed at this state ({err})"
            sets[kind] = ArrowSet()
    return sets, problems


#: the mantissas a scale may have: a legend reads "0.25 N per px", and an arrow is at least 3/4 of
#: the length it may have
NICE_STEPS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceiling(x: float) -> float:
    """The smallest round number (`NICE_STEPS` × 10ⁿ) at or above x: a scale that reads well."""
    if not x > 0 or not math.isfinite(x):
        return 1.0
    exponent = math.floor(math.log10(x))
    for step in NICE_STEPS:
        value = step * 10.0 ** exponent
        if value >= x * (1 - 1e-12):
            return value
    return 10.0 ** (exponent + 1)


class Scales:
    """Units per pixel for each kind of arrow (`couple_key(kind)` for its couples), times the
    user's factor: the `TYPICAL` quantile of the largest magnitude of each frame seen over the run
    so far is drawn `LONGEST_SHARE` of the view long, rounded (`nice_ceiling`). A quantile, not the
    maximum: a four-bar's pin forces peak at four times their usual size for a moment, and a scale
    set by that moment would leave the arrows a few pixels long the rest of the run (at the peak
    they grow past their room instead). Each kind has its own scale, so that gravity stays readable
    beside a pin force ten times larger; the legend gives each one."""

    def __init__(self):
        self.seen: dict[str, np.ndarray] = {}  # per key: rows (the largest magnitude of a frame, its weight)
        self._count: dict[str, list] = {}  # per key: [its phase, frames seen]
        self.typical: dict[str, float] = {}
        self.factor = 1.0  # the user's "arrow length ×"

    def clear(self) -> None:
        self.seen.clear()
        self._count.clear()
        self.typical.clear()

    def see(self, key: str, vectors: np.ndarray, weight: float = 1.0) -> None:
        """Count a frame's arrows of `key`, weighted by the simulated time it stands for (frames
        come at wall-clock ticks: a phase slow to integrate would otherwise count more)."""
        if not len(vectors) or not weight > 0:
            return
        biggest = math.sqrt(float(np.einsum("ij,ij->i", vectors, vectors).max()))
        if not math.isfinite(biggest):
            return
        if key not in self.seen:
            self._count[key] = [len(self.seen), 0]  # staggered: each key takes its quantile in a frame of its own
            self.seen[key] = np.empty((FRAMES_KEPT, 2))
        phase, count = self._count[key]
        self.seen[key][count % FRAMES_KEPT] = biggest, weight
        count = self._count[key][1] = count + 1
        # a quantile (a sort of up to FRAMES_KEPT values) every tenth frame is plenty, and
        # once the scale has settled every REVISE_LATER-th (a few seconds of frames)
        if count < 20 or (count + phase) % (10 if count < SETTLED else REVISE_LATER) == 0:
            self.typical[key] = weighted_quantile(self.seen[key][:min(count, FRAMES_KEPT)], TYPICAL)

    def per_pixel(self, key: str, view_pixels: float) -> float:
        """The value per pixel of arrow of `key` for a view whose smaller side is `view_pixels`."""
        longest = max(LONGEST_SHARE * view_pixels, 20.0)
        return nice_ceiling(self.typical.get(key, 0.0) / longest) / self.factor


def weighted_quantile(pairs: np.ndarray, q: float) -> float:
    """The q-quantile of values pairs[:, 0] with weights pairs[:, 1]."""
    order = np.argsort(pairs[:, 0])
    cumulative = np.cumsum(pairs[order, 1])
    k = int(np.searchsorted(cumulative, q * cumulative[-1]))
    return float(pairs[order[min(k, len(order) - 1)], 0])


def couple_key(kind: str) -> str:
    """The scale of a kind's couples (N·m)."""
    return f"{kind} couple"


def scale_text(value: float, unit: str) -> str:
    """'0.05 m/s per px' with as many digits as the value needs."""
    return f"{value:.3g} {unit} per px"
