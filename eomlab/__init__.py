"""eomlab — the Equations-of-Motion Lab, as a Python library.

>>> import eomlab
>>> result = eomlab.simulate(eomlab.preset("double_compound_pendulum"), t_end=0.5)
>>> result["upper_theta"].shape, result.failure
((51,), None)

`load`/`save` read and write ``*.eom.json`` files, `preset` builds a built-in model, and the model
dataclasses (`Model`, `Body`, `Joint`, ...) build one in code. `simulate` returns a `Result`,
`stream` a `Run` to iterate in batches, `equations` the symbolic equations of motion;
`kinematics`, `jacobian`, `mass_matrix`, `inverse_dynamics` and `forward_dynamics` the mechanics at
one state (eomlab.mechanics_api).
The engine installs as ``eomlab.engine`` and the window as ``eomlab.gui`` (their folders are
``engine/`` and ``gui/`` at the top of the source tree; ``pyproject.toml`` maps them).
"""
from pathlib import Path as _Path

# A source checkout keeps engine/ and gui/ beside this folder, not inside it: let the package find them there
# too, so a checkout works the same installed (editable) or not.
_source_root = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).resolve().parent / "engine").is_dir() and (_source_root / "engine" / "__init__.py").is_file():
    __path__.append(str(_source_root))  # noqa: F821 - a package's own __path__

__version__ = "0.1.0"

from eomlab.engine.model import (  # noqa: E402 - the package path above comes first
    Body, BodyTorque, Coincident, Distance, ExpressionConstraint, Joint, JointEffort, JointSpring, KnifeEdge,
    Model, ModelError, PointForce, PointRef, Prescribed, RollingDisk, Settings, Shape, Spring, Stabilization)
from eomlab.api import (  # noqa: E402
    Batch, Result, Run, checked, equations, load, preset, presets, save, simulate, stream)
from eomlab.mechanics_api import (  # noqa: E402
    forward_dynamics, inverse_dynamics, jacobian, kinematics, mass_matrix, with_initial_state)

__all__ = [
    "load", "save", "preset", "presets", "checked", "simulate", "stream", "equations", "Result", "Run", "Batch",
    "Model", "Body", "Joint", "Shape", "Settings", "Stabilization", "PointRef", "Coincident", "Distance",
    "Prescribed", "KnifeEdge", "RollingDisk", "ExpressionConstraint", "Spring", "JointSpring", "JointEffort",
    "PointForce", "BodyTorque", "ModelError", "sweep", "linearize",
    "kinematics", "jacobian", "mass_matrix", "inverse_dynamics", "forward_dynamics", "with_initial_state",
]


def __getattr__(name: str):
    """`eomlab.sweep` (the Python API of `eomlab sweep`) loads on first use: it pulls in scipy and sympy,
    which `import eomlab` (the window's start, `eomlab run`) does not wait for."""
    if name == "sweep":
        from eomlab.engine.sweep import sweep

        return sweep
    if name == "linearize":  # the linearized equations (engine.linearize), loaded on first use as well
        from eomlab.engine.linearize import linearize

        return linearize
    raise AttributeError(f"module 'eomlab' has no attribute {name!r}")
