"""Log lines at a bounded rate: a flood of rejected requests must not become a flood of log.

>>> budget = LogBudget(lines=2, clock=lambda: 0.0)
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
    """At most ``lines`` lines in ``seconds``, the window starting at its first line. ``take``
    returns None when the line must be left out, else how many lines were left out before it
    (to say so); ``reset`` starts afresh (the next line is logged)."""

    __slots__ = ("_left", "_start", "_suppressed", "clock", "lines", "seconds")

    def __init__(
        self,
        lines: int = 20,
        seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lines = lines
        self.seconds = seconds
        self.clock = clock
        self.reset()

    def reset(self) -> None:
        self._start = -float("inf")
        self._left = 0
        self._suppressed = 0

    def take(self) -> int | None:
        now = self.clock()
        if now - self._start >= self.seconds:
            self._start = now
            self._left = self.lines
        if self._left == 0:
            self._suppressed += 1
            return None
        self._left -= 1
        suppressed, self._suppressed = self._suppressed, 0
        return suppressed
