"""The old import path of ``pricing.games.blackjack.strategy``, kept for code written against it."""

from pricing.games.blackjack.strategy import *  # noqa: F403
