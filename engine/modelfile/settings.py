"""The settings section."""
from __future__ import annotations

from eomlab.engine.methods import METHODS
from eomlab.engine.model import COORDINATES, INTEGRATORS, MAGGI_BASES, STABILIZATIONS, Settings, Stabilization
from eomlab.engine.modelfile.fields import _choice, _fields, _number
from eomlab.engine.modelfile.schema import _SETTINGS_FIELDS, _STABILIZATION_FIELDS


def _settings(data: object, path: str) -> Settings:
    data = _fields(data, path, _SETTINGS_FIELDS)
    defaults = Settings()
    values = {}
    for key, options in (("method", METHODS), ("coordinates", COORDINATES), ("integrator", INTEGRATORS)):
        values[key] = _choice(data[key], f"{path}.{key}", options) if key in data else getattr(defaults, key)
    for key in ("rtol", "atol", "t_end", "dt_out", "dt"):
        values[key] = _number(data[key], f"{path}.{key}", positive=True) if key in data else getattr(defaults, key)
    if "stabilization" in data:
        values["stabilization"] = _stabilization(data["stabilization"], f"{path}.stabilization")
    if "maggi_basis" in data:
        values["maggi_basis"] = _choice(data["maggi_basis"], f"{path}.maggi_basis", MAGGI_BASES)
    return Settings(**values)


def _stabilization(data: object, path: str) -> Stabilization:
    data = _fields(data, path, _STABILIZATION_FIELDS, ("kind",))
    kind = _choice(data["kind"], f"{path}.kind", STABILIZATIONS)
    if kind == "baumgarte":
        _fields(data, path, _STABILIZATION_FIELDS, ("alpha", "beta"))
    defaults = Stabilization()
    alpha = _number(data["alpha"], f"{path}.alpha", minimum=0.0) if "alpha" in data else defaults.alpha
    beta = _number(data["beta"], f"{path}.beta", minimum=0.0) if "beta" in data else defaults.beta
    tolerance = _number(data["tolerance"], f"{path}.tolerance", positive=True) if "tolerance" in data else defaults.tolerance
    return Stabilization(kind=kind, alpha=alpha, beta=beta, tolerance=tolerance)
