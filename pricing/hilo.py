"""The old import path of ``pricing.games.hilo``, kept for code written against it."""

from pricing.games.hilo import *  # noqa: F403
