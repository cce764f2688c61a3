"""The formulations behind one interface (engine.formulations.formulation.Formulation); which ones
exist, and their classes, the registry engine.methods says."""
from eomlab.engine.methods import REGISTRY, method
from eomlab.engine.formulations.formulation import ConstraintFailure, Evaluation, Formulation

#: key → numeric class, for every registered formulation
FORMULATIONS = {key: entry.formulation_class() for key, entry in REGISTRY.items()}


def make_formulation(name, system, settings, variant: str | None = None) -> Formulation:
    return method(name).formulation_class(variant)(system, settings)


__all__ = ["FORMULATIONS", "make_formulation", "Formulation", "Evaluation", "ConstraintFailure"]
