"""The four formulations behind one interface (engine.formulations.base.Formulation)."""
from .base import ConstraintFailure, Evaluation, Formulation
from .kane import Kane
from .lagrange import Lagrange
from .maggi import Maggi, MaggiPartitioned
from .udwadia_kalaba import UdwadiaKalaba

FORMULATIONS = {f.name: f for f in (Lagrange, Maggi, UdwadiaKalaba, Kane)}


def make_formulation(name, system, settings, variant: str | None = None) -> Formulation:
    if name == "maggi" and variant == "partitioning":
        return MaggiPartitioned(system, settings)
    return FORMULATIONS[name](system, settings)


__all__ = ["FORMULATIONS", "make_formulation", "Formulation", "Evaluation", "ConstraintFailure",
           "Lagrange", "Maggi", "MaggiPartitioned", "UdwadiaKalaba", "Kane"]
