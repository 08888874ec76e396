"""The old import path of ``pricing.games.hilo``: the same module, for code written against it."""

import sys

from pricing.games.hilo import *  # noqa: F403  (what type checkers see)

sys.modules[__name__] = sys.modules["pricing.games.hilo"]
