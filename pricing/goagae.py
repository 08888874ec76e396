"""The old import path of ``pricing.games.goagae``, kept for code written against it."""

from pricing.games.goagae import *  # noqa: F403
