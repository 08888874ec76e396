# The old import path of pricing.games.blackjack.strategy: pricing.MOVED maps it to that
# module at run time; this stub lets type checkers follow it too.
from pricing.games.blackjack.strategy import *  # noqa: F403
