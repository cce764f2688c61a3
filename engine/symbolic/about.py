"""What each formulation's page says before the model's own equations: the equation's standard
name and source, its general form, what each symbol is, and what sets the method apart.

Found by the title a derivation gives, so a formulation added to the registry gets its page from its entry in
about.json (and a plain title when it has none). Formulas are LaTeX; everything else is prose.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class About:
    name: str  # the equation's standard name
    source: str  # who published it, and when
    general: tuple[tuple[str, str], ...]  # (role, LaTeX) of the general form
    symbols: tuple[tuple[str, str], ...]  # (LaTeX symbol, what it is)
    difference: str  # two or three sentences: what sets this method apart
    roles: dict = field(default_factory=dict)


def _load() -> dict[str, About]:
    """The explanations, kept as text in about.json beside this module (prose and LaTeX, not code)."""
    text = (Path(__file__).with_name("about.json")).read_text(encoding="utf-8")
    return {key: About(name=entry["name"], source=entry["source"],
                       general=tuple(tuple(pair) for pair in entry["general"]),
                       symbols=tuple(tuple(pair) for pair in entry["symbols"]), difference=entry["difference"])
            for key, entry in json.loads(text).items()}


_ALL = _load()
LAGRANGE, MAGGI, UDWADIA_KALABA = _ALL["LAGRANGE"], _ALL["MAGGI"], _ALL["UDWADIA_KALABA"]
KANE, ROBERSON_WITTENBURG, GIBBS_APPELL = _ALL["KANE"], _ALL["ROBERSON_WITTENBURG"], _ALL["GIBBS_APPELL"]
LINEARIZED = _ALL["LINEARIZED"]

#: each page's explanation, found by the title its derivation gives (the list of formulations itself is
#: the registry's, engine.methods)
ABOUTS = {about.name: about for about in _ALL.values()}


def about_of(method: str) -> About | None:
    """A formulation's explanation by its registry key (about.json names them in capitals), before
    any derivation: the panel typesets the general form while sympy derives."""
    return _ALL.get(method.upper())


#: what corresponds across formulations (side-by-side view): role -> (label, colour)
ROLES = {
    "general": ("the governing equation", "#555555"),
    "mass": ("mass matrix", "#0072B2"),
    "forcing": ("applied and velocity forces", "#009E73"),
    "constraint_force": ("constraint forces", "#D55E00"),
    "constraints": ("constraints", "#CC79A7"),
    "reduced": ("equations free of multipliers", "#E69F00"),
    "multipliers": ("multipliers", "#56B4E9"),
}
