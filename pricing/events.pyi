# The old import path of pricing.games.events: pricing.MOVED maps it to that module at run time;
# this stub lets type checkers follow it too.
from pricing.games.events import *  # noqa: F403
