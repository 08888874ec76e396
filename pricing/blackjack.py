"""The old import path of ``pricing.games.blackjack``, kept for code written against it."""

from pricing.games.blackjack import *  # noqa: F403
