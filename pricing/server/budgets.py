"""The read side's budgets for expensive reads: how many one caller may have under way, and how
many may be under way in all, of each kind.

An expensive read is one that costs far more than a table's state: a quote of a player's edge
or hand (milliseconds to a tenth of a second), a report (seconds), a long position (a
millisecond per hundred legs). They run in worker processes or in short slices, but each
still takes a place in a queue, so one game server firing thousands of them could keep every
other caller waiting. Each kind has its own count, so a caller's reports never use up the
places of its quotes. A caller is its token, or, on a server without tokens, its address
(its IP, whatever the port: one game server, many connections).

A read beyond a budget is refused at once, for the price of a status: RESOURCE_EXHAUSTED
naming the flag, with a ``google.rpc.RetryInfo`` saying when to try again.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from typing import Final

from pricing.errors import LimitExceeded
from pricing.server.auth import bearer_token

__all__ = [
    "MAX_RETRY_AFTER_SECONDS",
    "RETRY_AFTER_SECONDS",
    "ExpensiveReads",
    "ReadKind",
    "caller_of",
]

#: What a refused expensive read is told to wait before it tries again (``RetryInfo``), at
#: least: about the time one such read takes to leave its queue, so a retry finds room more
#: often than not.
RETRY_AFTER_SECONDS: Final = 1.0
#: At most: a caller flooding far past its budget is told to wait up to this long.
MAX_RETRY_AFTER_SECONDS: Final = 30.0


class ReadKind(Enum):
    """The kinds of expensive read, each with its own budgets."""

    QUOTE = "quote"  # a Quote with include_player_edge or a player_hand
    REPORT = "report"  # Analyze
    POSITION = "position"  # a SettlePosition with many legs


def caller_of(metadata: Sequence[tuple[str, str | bytes]] | None, peer: str) -> str:
    """Who is calling: a digest of its bearer token (a secret is never held as it is), else
    its address without the port (``peer`` as gRPC gives it: ``ipv4:127.0.0.1:5432``,
    ``ipv6:[::1]:5432``).

    >>> caller_of((), "ipv4:10.0.0.7:50312"), caller_of((), "ipv6:[::1]:50312")
    ('ipv4:10.0.0.7', 'ipv6:[::1]')
    >>> caller_of((("authorization", "Bearer s3cret"),), "ipv4:10.0.0.7:1")[:6]
    'token:'
    """
    token = bearer_token(metadata)
    if token is not None:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:16]
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return f"{kind}:{rest.rpartition(':')[0]}"
    return peer


class ExpensiveReads:
    """At most ``per_caller`` expensive reads of each kind under way for one caller, and
    ``total`` of each kind in all (running or waiting for a worker).

    A refusal's retry delay grows with how far the caller is past its budget: a caller
    refused N times in the last second (N calls waiting on its side, more or less) is told to
    wait ``RETRY_AFTER_SECONDS`` × N / ``per_caller``, between ``RETRY_AFTER_SECONDS`` and
    ``MAX_RETRY_AFTER_SECONDS``. An honest client flooding the server so sends a few calls a
    second, not thousands, each refused for the price of a status."""

    def __init__(
        self, per_caller: int, total: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_caller = per_caller
        self.total = total
        self._all: dict[ReadKind, int] = dict.fromkeys(ReadKind, 0)
        self._callers: dict[tuple[ReadKind, str], int] = {}
        self._clock = clock
        # Refusals by kind and caller: this second's, and the one before's.
        self._window = clock()
        self._refused: dict[tuple[ReadKind, str], int] = {}
        self._refused_before: dict[tuple[ReadKind, str], int] = {}

    def retry_after(self, key: tuple[ReadKind, str]) -> float:
        """Count a refusal of ``key``; the seconds its caller is told to wait.

        >>> now = [0.0]
        >>> reads = ExpensiveReads(per_caller=4, total=10, clock=lambda: now[0])
        >>> key = (ReadKind.QUOTE, "a")
        >>> [reads.retry_after(key) for _ in range(8)][-1], reads.retry_after(key)
        (2.0, 2.25)
        >>> now[0] = 1.5; reads.retry_after(key)  # the last second's count still stands
        2.25
        >>> now[0] = 3.0; reads.retry_after(key)
        1.0
        """
        now = self._clock()
        if now - self._window >= 1.0:
            recent = now - self._window < 2.0
            self._refused_before = self._refused if recent else {}
            self._refused = {}
            self._window = now
        count = self._refused[key] = self._refused.get(key, 0) + 1
        behind = max(count, self._refused_before.get(key, 0)) / self.per_caller
        return min(MAX_RETRY_AFTER_SECONDS, RETRY_AFTER_SECONDS * max(1.0, behind))

    def under_way(self, kind: ReadKind) -> int:
        return self._all[kind]

    @contextlib.contextmanager
    def admit(self, kind: ReadKind, caller: str) -> Iterator[None]:
        """Count a read of ``kind`` by ``caller`` while it runs; ``LimitExceeded`` (with a
        retry delay) if a budget is spent."""
        key = (kind, caller)
        mine = self._callers.get(key, 0)
        if self._all[kind] >= self.total:
            raise LimitExceeded(
                "max-expensive-reads",
                self.total,
                f"too many expensive reads ({kind.value}) under way on this server",
                retry_after=self.retry_after(key),
            )
        if mine >= self.per_caller:
            raise LimitExceeded(
                "max-expensive-reads-per-caller",
                self.per_caller,
                f"this caller has too many expensive reads ({kind.value}) under way",
                retry_after=self.retry_after(key),
            )
        self._all[kind] += 1
        self._callers[key] = mine + 1
        try:
            yield
        finally:
            self._all[kind] -= 1
            left = self._callers[key] - 1
            if left:
                self._callers[key] = left
            else:
                del self._callers[key]  # a caller gone leaves nothing behind
