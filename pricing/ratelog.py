"""Log lines at a bounded rate: a flood of rejected requests must not become a flood of log.

>>> budget = LogBudget(per_second=2, clock=lambda: 0.0)
>>> [budget.take() for _ in range(4)]
[0, 0, None, None]
>>> budget.clock = lambda: 1.0
>>> budget.take()  # the next line says how many were left out
2
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["LogBudget"]


class LogBudget:
    """At most ``per_second`` lines in each one-second window. ``take`` returns None when the
    line must be left out, else how many lines were left out before it (to say so)."""

    __slots__ = ("_left", "_suppressed", "_window", "clock", "per_second")

    def __init__(self, per_second: int = 20, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.clock = clock
        self._window = -1
        self._left = 0
        self._suppressed = 0

    def take(self) -> int | None:
        window = int(self.clock())
        if window != self._window:
            self._window = window
            self._left = self.per_second
        if self._left == 0:
            self._suppressed += 1
            return None
        self._left -= 1
        suppressed, self._suppressed = self._suppressed, 0
        return suppressed
