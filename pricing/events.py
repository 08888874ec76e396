"""The old import path of ``pricing.games.events``, kept for code written against it."""

from pricing.games.events import *  # noqa: F403
