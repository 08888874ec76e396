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
from collections.abc import Iterator, Sequence
from enum import Enum
from typing import Final

from pricing.errors import LimitExceeded
from pricing.server.auth import bearer_token

__all__ = ["RETRY_AFTER_SECONDS", "ExpensiveReads", "ReadKind", "caller_of"]

#: What a refused expensive read is told to wait before it tries again (``RetryInfo``): about
#: the time one such read takes to leave its queue, so a retry finds room more often than not.
RETRY_AFTER_SECONDS: Final = 1.0


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
    ``total`` of each kind in all (running or waiting for a worker)."""

    def __init__(self, per_caller: int, total: int) -> None:
        self.per_caller = per_caller
        self.total = total
        self._all: dict[ReadKind, int] = dict.fromkeys(ReadKind, 0)
        self._callers: dict[tuple[ReadKind, str], int] = {}

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
                retry_after=RETRY_AFTER_SECONDS,
            )
        if mine >= self.per_caller:
            raise LimitExceeded(
                "max-expensive-reads-per-caller",
                self.per_caller,
                f"this caller has too many expensive reads ({kind.value}) under way",
                retry_after=RETRY_AFTER_SECONDS,
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
