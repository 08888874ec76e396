# The old import path of pricing.games.goagae: pricing.MOVED maps it to that module at run time;
# this stub lets type checkers follow it too.
from pricing.games.goagae import *  # noqa: F403
