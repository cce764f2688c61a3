"""Unilateral constraints: joint limits that hold, contacts (spheres on the ground plane and on each
other), events located on the dense output, impacts by Newton's law of restitution solved with each
formulation's impulsive form, resting contacts held while they push (README: "Unilateral constraints").

- `rows`: the gaps g(q) ≥ 0, their rows G and biases γ, in joint or absolute coordinates.
- `lcp`: the small complementarity problem of several rows at once.
- `impacts`: the jump at an impact (in rounds), the resting rows and their forces.
- `events`: where a row closes or lets go within an accepted step.
- `run`: what `engine.simulation.Simulation` asks (its hooks).
"""
from eomlab.engine.unilateral.run_hooks import Unilateral, clamped_start  # noqa: F401
