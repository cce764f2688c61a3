"""Hypothesis runs derandomized by default, so that a test run (and CI) is reproducible; set
HYPOTHESIS_PROFILE=explore for a fresh random search (what it finds goes into the code, and its
example into a test)."""
import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
