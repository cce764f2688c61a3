"""Compare mode's row of words per method: what it integrates on this model and which of this
model's constraint rows drift, from the engine's facts (engine/model_facts.py: the rows per
level, the independent speeds) and the registry (which levels a formulation eliminates). Nothing
here is counted from the model."""
from __future__ import annotations

from eomlab.engine.methods import REGISTRY
from eomlab.engine.simulation import ModelFacts


def _rows(count: int, kind: str) -> str:
    return f"{count} {kind} row{'s' if count != 1 else ''}"


def _speeds(count: int) -> str:
    return f"{count} independent speed{'s' if count != 1 else ''}"


def _joined(counted: list[tuple[int, str]]) -> str:
    """"2 holonomic rows and 1 first-order row hold" (the verb agrees with the total)."""
    total = sum(count for count, _ in counted)
    return f"{' and '.join(text for _, text in counted)} hold{'s' if total == 1 else ''}"


def method_words(method: str, label: str, facts: ModelFacts, integrates: str = "") -> str:
    """One paragraph: `label` integrates …; then why its drift differs (or that nothing can drift)."""
    state = f"{label} integrates {integrates}" if integrates else label
    if not facts.constrained:
        return (f"{state}. The model has no constraints ({_speeds(facts.independent_speeds)}): there is "
                "no constraint drift, and every formulation integrates the same M(q) u̇ = f(q, u): with the "
                "same integrator settings the methods differ only by rounding.")
    eliminated = REGISTRY[method].eliminates if method in REGISTRY else ()
    exact, drifting = [], []
    for level, count, kind in (("holonomic", facts.holonomic_rows, "holonomic"),
                               ("velocity", facts.velocity_rows, "first-order")):
        if count:
            (exact if level in eliminated else drifting).append((count, _rows(count, kind)))
    parts = [f"{state} ({_speeds(facts.independent_speeds)} of {facts.speeds})"]
    if exact:
        parts.append(f"{_joined(exact)} at the velocity level by construction"
                     + ("; only positions drift" if facts.holonomic_rows and "holonomic" in eliminated else ""))
    if drifting:
        parts.append(f"{_joined(drifting)} only at the acceleration level, so velocity "
                     "(and position) residuals grow unless stabilised")
    if facts.acceleration_rows:
        parts.append(f"{_joined([(facts.acceleration_rows, _rows(facts.acceleration_rows, 'second-order'))])} "
                     "at the acceleration level, as in every formulation")
    return "; ".join(parts) + "."
