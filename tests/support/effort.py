"""How hard the randomised tests try, by the run they are in.

``make test`` loads hypothesis' ``suite`` profile: every property test draws the same examples
in every run (derandomised), so the suite's time is the same from run to run and a failure
comes back on the next run; the costliest checks draw fewer examples there.
``make test-exhaustive`` loads the ``exhaustive`` profile (``HYPOTHESIS_PROFILE=exhaustive``):
fresh random examples each run, and those checks at their full count.

>>> effort(suite=40, exhaustive=400) in (40, 400)
True
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

__all__ = ["EXHAUSTIVE", "effort", "exhaustive_only", "load_profile"]

EXHAUSTIVE = os.environ.get("HYPOTHESIS_PROFILE") == "exhaustive"

#: A mark for a case too costly for ``make test`` whose siblings there check the same thing
#: (a parameter of a test that ``make test`` runs with the cheaper ones).
exhaustive_only = pytest.mark.skipif(not EXHAUSTIVE, reason="make test-exhaustive runs it")


def effort(*, suite: int, exhaustive: int) -> int:
    """A count of examples, kills or restarts: ``suite`` in ``make test``, ``exhaustive`` in
    ``make test-exhaustive``."""
    return exhaustive if EXHAUSTIVE else suite


def load_profile() -> None:
    """Register both profiles and load the one the environment names (``suite`` by default).
    Called by ``tests/conftest.py`` before any test module is imported, since a test's own
    ``@settings`` takes the profile loaded when the module is imported as its default."""
    settings.register_profile("suite", derandomize=True, database=None)
    settings.register_profile("exhaustive", derandomize=False)
    settings.load_profile("exhaustive" if EXHAUSTIVE else "suite")
