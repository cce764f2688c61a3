"""A chain of four-bars (a test and bench model): a planar serial chain of 3n rods where rods 3k, 3k+1,
3k+2 are the crank, coupler and rocker of four-bar k, whose rocker's tip is held at the ground pivot
(4(k+1), 0) by a coincident constraint in x and y; the next crank starts there. Each four-bar has the
geometry and masses of assets/models/four_bar.eom.json (ground 4, crank 1.5, coupler 4, rocker 3)."""
from __future__ import annotations

import json
import os

from eomlab.engine.modelfile.reading import model_from_dict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FOUR_BAR = os.path.join(ROOT, "assets", "models", "four_bar.eom.json")


def four_bar_chain_data(n: int) -> dict:
    """The model file's dictionary of a chain of n four-bars (n = 1 is the four-bar itself)."""
    with open(FOUR_BAR, encoding="utf-8") as fh:
        single = json.load(fh)
    crank, coupler, rocker = single["bodies"]
    # absolute angle of a rocker at the assembled pose; the next crank turns back to the first crank's
    rocker_absolute = sum(b["joint"]["q0"][0] for b in (crank, coupler, rocker))
    restart = crank["joint"]["q0"][0] - rocker_absolute
    bodies, constraints = [], []
    parent = "ground"
    for k in range(n):
        for template in (crank, coupler, rocker):
            body = json.loads(json.dumps(template))
            name = f"{template['name']}{k}"
            body["name"], body["parent"] = name, parent
            body["joint"]["names"] = [f"{name}_theta"]
            if template is crank and k > 0:
                body["joint"]["at"] = [3.0, 0.0, 0.0]  # the previous rocker's tip
                body["joint"]["q0"] = [restart]
            bodies.append(body)
            parent = name
        closure = json.loads(json.dumps(single["constraints"][0]))
        closure["name"] = f"closure{k}"
        closure["a"]["body"] = f"rocker{k}"
        closure["b"]["point"] = [4.0 * (k + 1), 0.0, 0.0]
        constraints.append(closure)
    data = dict(single, name=f"chain of {n} four-bars", bodies=bodies, constraints=constraints)
    return data


def four_bar_chain(n: int):
    """The Model of a chain of n four-bars."""
    return model_from_dict(four_bar_chain_data(n))


