"""Shared fixtures for the engine tests: every formulation (engine.methods)."""
import pytest

from engine_helpers import FORMULATIONS


@pytest.fixture(params=FORMULATIONS)
def method(request):
    return request.param
