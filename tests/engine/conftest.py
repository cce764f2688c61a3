"""Shared fixtures for the engine tests: the four formulations."""
import pytest

from engine_helpers import FORMULATIONS


@pytest.fixture(params=FORMULATIONS)
def method(request):
    return request.param
