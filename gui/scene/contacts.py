"""Where the contacts of a model are in a pose, for either view: the spheres' centres and radii,
the ground plane (through the origin, normal to −gravity) and the contact points and normals of
the rows that touch (an impact flashes there). No mechanics: the frame's poses and the model's
`contacts` only."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: a contact whose gap is below this fraction of its smaller radius touches (it flashes)
TOUCH_FRACTION = 0.02
#: a flash lasts this long in simulated time after the contact began to touch (s)
FLASH_SECONDS = 0.12


def ground_normal(gravity) -> np.ndarray:
    g = np.asarray(gravity, dtype=float)
    norm = float(np.linalg.norm(g))
    return -g / norm if norm > 0 else np.array([0.0, 1.0, 0.0])


@dataclass
class Touch:
    point: np.ndarray  # world point of contact
    normal: np.ndarray  # from the ground or sphere b towards sphere a
    index: int  # the contact's index in model.contacts


class ContactGeometry:
    """The spheres and touches of `model` at a frame; remembers when each contact began to touch,
    so a touch flashes for FLASH_SECONDS and a resting contact does not flash for ever."""

    def __init__(self, model):
        self.model = model
        self.normal = ground_normal(model.gravity)
        self.has_ground = any(c.b is None for c in model.contacts)
        self._since: dict[int, float] = {}
        self._last_t: float | None = None

    def _centre(self, frame, sphere) -> np.ndarray:
        i = self.model.body_index(sphere.body)
        return frame.origins[i] + frame.rotations[i] @ np.asarray(sphere.point, float)

    def spheres(self, frame) -> list[tuple[np.ndarray, float]]:
        """(centre, radius) of every contact sphere (each drawn once)."""
        seen, out = set(), []
        for c in self.model.contacts:
            for s in (c.a, c.b):
                if s is None or (s.body, tuple(s.point), s.radius) in seen:
                    continue
                seen.add((s.body, tuple(s.point), s.radius))
                out.append((self._centre(frame, s), float(s.radius)))
        return out

    def flashing(self, frame) -> list[Touch]:
        """The touches that began within FLASH_SECONDS before the frame's time."""
        t = float(frame.t)
        if self._last_t is not None and t < self._last_t:
            self._since.clear()  # the run went back (restore, reset): start afresh
        self._last_t = t
        out = []
        for k, c in enumerate(self.model.contacts):
            a = self._centre(frame, c.a)
            if c.b is None:
                gap, n = float(self.normal @ a) - c.a.radius, self.normal
                point, smaller = a - c.a.radius * n, c.a.radius
            else:
                b = self._centre(frame, c.b)
                d = a - b
                dist = float(np.linalg.norm(d))
                n = d / dist if dist > 0 else self.normal
                gap, point, smaller = dist - c.a.radius - c.b.radius, b + c.b.radius * n, min(c.a.radius, c.b.radius)
            if gap > TOUCH_FRACTION * smaller:
                self._since.pop(k, None)
                continue
            began = self._since.setdefault(k, t)
            if t - began <= FLASH_SECONDS:
                out.append(Touch(point, n, k))
        return out
