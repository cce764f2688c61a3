"""One entry point: a Model and a method name → that formulation's Equations."""
from __future__ import annotations

import threading
from collections import OrderedDict

from eomlab.engine.methods import REGISTRY, SYMBOLIC_METHODS
from eomlab.engine.model import Model, ModelError

from eomlab.engine.symbolic.derived_equations import Equations
from eomlab.engine.symbolic.errors import Progress
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.linearized_equations import linearized_view
from eomlab.engine.symbolic.roberson_wittenburg import tree_view

#: every registered formulation's derivation, and the views that are symbolic only (engine.methods.SYMBOLIC_VIEWS)
FORMULATIONS = {**{key: entry.derivation() for key, entry in REGISTRY.items()}, "roberson_wittenburg": tree_view,
                "linearized": linearized_view}
#: accepted spellings besides the names above
ALIASES = {"tree": "roberson_wittenburg", "rw": "roberson_wittenburg", "uk": "udwadia_kalaba"}


def method_name(model: Model, method: str | None) -> str:
    name = method or model.settings.method
    name = ALIASES.get(name, name)
    if name not in FORMULATIONS:
        raise ModelError("settings.method" if method is None else "",
                         f"unknown method {name!r}; expected one of {', '.join(SYMBOLIC_METHODS)}")
    return name


def derive(model: Model, method: str | None = None, parameters: str = "numbers",
           cancel: threading.Event | None = None) -> Equations:
    """Derive `model`'s equations in the formulation `method` (default: the model's setting).

    Raises SymbolicTooLarge (a ModelError) for models beyond the size guard and
    DerivationCancelled when `cancel` is set during the derivation.
    """
    # the symbolic view always works in joint coordinates ("absolute" is a numeric choice)
    name = method_name(model, method)
    _check_euler_parameters(model, name)
    progress = Progress(cancel)
    progress.checkpoint("start")
    return FORMULATIONS[name](_tree(model, parameters, progress))


#: the trees of the last few models: a second formulation of the same model starts from its
#: kinematics and from the energies, mass matrix and forces the first one formed
_TREES: OrderedDict = OrderedDict()
TREES_KEPT = 4


def _tree(model: Model, parameters: str, progress: Progress) -> SymbolicTree:
    key = (model, parameters)
    tree = _TREES.pop(key, None)
    if tree is None:
        tree = SymbolicTree(model, parameters=parameters, progress=progress)
    tree.progress = progress
    _TREES[key] = tree
    while len(_TREES) > TREES_KEPT:
        _TREES.popitem(last=False)
    return tree


def _check_euler_parameters(model: Model, name: str) -> None:
    """Euler-parameter joints: only the forms written in the model's speeds (four rates for three
    degrees of freedom would make the mass matrix in the rates singular, the normalisation
    constraint a row of its own)."""
    in_speeds = [key for key, entry in REGISTRY.items() if entry.symbolic_in_speeds]
    if name in in_speeds:
        return
    for i, b in enumerate(model.bodies):
        if b.joint.quaternion:
            raise ModelError(f"bodies[{i}].joint.orientation", f"Euler parameters (\"quaternion\") are derived in "
                             f"the forms written in the speeds only (method {' or '.join(in_speeds)}), not {name}: "
                             "in their rates the mass matrix is singular")


def symbolic_tree(model: Model, parameters: str = "numbers",
                  cancel: threading.Event | None = None) -> SymbolicTree:
    return SymbolicTree(model, parameters=parameters, progress=Progress(cancel))
