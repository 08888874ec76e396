"""The old import path of ``pricing.games.blackjack``: the same module."""

import sys

from pricing.games.blackjack import *  # noqa: F403  (what type checkers see)

sys.modules[__name__] = sys.modules["pricing.games.blackjack"]
