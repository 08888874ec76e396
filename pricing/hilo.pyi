# The old import path of pricing.games.hilo: pricing.MOVED maps it to that module at run time;
# this stub lets type checkers follow it too.
from pricing.games.hilo import *  # noqa: F403
