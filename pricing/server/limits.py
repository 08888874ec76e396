"""The limits a server puts on what its clients may claim, and the pieces that enforce them.

Each limit is a flag of ``pricing serve`` (``Limits`` holds their values); a request over one is
answered ``RESOURCE_EXHAUSTED`` with a message naming the flag and its value, and counted in
``pricing_limit_rejections_total{limit}``. Where each is checked:

- ``max_tables``: ``pricing.tables.Tables.open_table`` (the tables layer owns the tables);
- ``max_watchers`` / ``max_watchers_per_table``: ``PricingServicer.watch_table``
  (``pricing.server.reads``);
- ``max_round_backlog``: a table's ``pricing.server.fanout.Hub`` (round results held for its
  watchers);
- ``max_feeds``: ``DealerServicer.feed`` (``pricing.server.dealer``), the handler of
  ``DealerService.Feed`` (Feed streams open at once; their events are not counted in
  ``max_concurrent_writes``, as a stream applies one event at a time);
- ``max_message_bytes``: the request decoder of every handler (``pricing.server.status``),
  before the body is parsed;
- ``max_events_per_second``: ``TableRates``, a ``TokenBucket`` per table in front of the
  feed's writes;
- ``max_concurrent_writes`` / ``max_concurrent_reads``: two
  ``pricing.server.concurrency.ConcurrencyInterceptor``, one for DealerService's unary calls
  and one for PricingService's, so that no number of reads takes a write's place (health and
  reflection always answer; streams have the limits above);
- ``max_expensive_reads`` / ``max_expensive_reads_per_caller``:
  ``pricing.server.budgets.ExpensiveReads``, in front of the worker processes and the long
  positions (``PricingServicer``);
- ``max_read_seconds``: the longest a read may compute (its own deadline, if shorter, wins);
  ``max_answer_bytes``: the largest answer computed in a worker; ``read_workers``: the worker
  processes of each lane (``pricing.server.workers``);
- keepalive and idle settings: gRPC channel options (``grpc_options``), so dead connections
  are reaped by the transport;
- ``console_*``: the web console (``pricing.server.console``): connections open at once
  (``app``), lobby streams (``lobby``), and the seconds a connection may take to send a
  request's headers or stay idle between requests (``app``); its table streams are watchers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from pricing.errors import LimitExceeded
from pricing.server.fanout import ROUND_BACKLOG

__all__ = [
    "LimitExceeded",
    "Limits",
    "TableRates",
    "TokenBucket",
    "grpc_options",
]

KIB: Final = 1024
MIB: Final = 1024 * KIB


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit's value; the defaults are those of ``pricing serve``. 0 turns
    ``max_events_per_second`` off (a replayed or simulated feed may burst)."""

    max_tables: int = 10_000
    max_watchers: int = 50_000
    max_watchers_per_table: int = 10_000
    max_round_backlog: int = ROUND_BACKLOG
    max_message_bytes: int = 64 * KIB
    max_events_per_second: float = 0.0
    max_concurrent_writes: int = 1_000
    max_concurrent_reads: int = 1_000
    max_expensive_reads: int = 64
    max_expensive_reads_per_caller: int = 8
    max_read_seconds: float = 120.0
    #: gRPC's own default for what a client receives: a larger answer would fail there anyway.
    max_answer_bytes: int = 4 * MIB
    read_workers: int = 1
    max_feeds: int = 1_000
    keepalive_seconds: float = 60.0
    keepalive_timeout_seconds: float = 20.0
    idle_seconds: float = 600.0
    console_max_connections: int = 1_024
    console_max_lobbies: int = 64
    console_max_requests_per_second: float = 20.0
    console_idle_seconds: float = 15.0


def grpc_options(limits: Limits) -> list[tuple[str, Any]]:
    """gRPC server options for ``limits``. The transport's own receive limit is a backstop
    above ``max_message_bytes``: up to it, the service decodes nothing over the limit and
    answers with its own message (naming the flag); beyond it, gRPC refuses the body itself."""
    ms = 1000
    pending = (
        limits.max_watchers
        + limits.max_concurrent_writes
        + limits.max_concurrent_reads
        + limits.max_feeds
    )
    return [
        ("grpc.max_receive_message_length", max(16 * limits.max_message_bytes, 4096 * KIB)),
        # Ping an idle connection every keepalive_seconds; no answer within the timeout: the
        # peer is gone and the connection (and any stream on it) is closed.
        ("grpc.keepalive_time_ms", int(limits.keepalive_seconds * ms)),
        ("grpc.keepalive_timeout_ms", int(limits.keepalive_timeout_seconds * ms)),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 10 * ms),
        # A connection with no call for idle_seconds is closed (clients reconnect on demand).
        ("grpc.max_connection_idle_ms", int(limits.idle_seconds * ms)),
        # Calls the server has received but not yet handed to a handler. Past gRPC's default
        # hard limit (3,000) a burst of opens is CANCELLED before any handler sees it: no
        # status of ours, no count, no log. Room for every call the limits can let in (and a
        # handler's answer, RESOURCE_EXHAUSTED naming the limit, for the rest).
        ("grpc.server.max_pending_requests", pending),
        ("grpc.server.max_pending_requests_hard_limit", pending),
    ]


class TokenBucket:
    """``rate`` events a second on average, bursts of up to ``burst`` (at least one token: a
    bucket that holds less never lets an event through, so a rate under one a second would
    refuse every event forever instead of one every ``1 / rate`` seconds).

    >>> now = [0.0]
    >>> bucket = TokenBucket(rate=2, burst=2, clock=lambda: now[0])
    >>> [bucket.take() for _ in range(3)]
    [True, True, False]
    >>> now[0] = 0.5
    >>> bucket.take()
    True
    """

    __slots__ = ("_clock", "_level", "_stamp", "burst", "rate")

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self._clock = clock
        self._level = self.burst
        self._stamp = clock()

    def take(self) -> bool:
        now = self._clock()
        self._level = min(self.burst, self._level + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._level < 1:
            return False
        self._level -= 1
        return True


class TableRates:
    """``--max-events-per-second`` per table (0: off): each table's bucket, a burst of up to one
    second's worth (one event at least). A table's bucket goes when the table leaves memory
    (``forget``)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def check(self, table_id: str) -> None:
        """``LimitExceeded`` if ``table_id`` is sent events faster than the rate."""
        bucket = self._buckets.get(table_id)
        if bucket is None:
            bucket = self._buckets[table_id] = TokenBucket(self.rate, self.rate, self._clock)
        if not bucket.take():
            raise LimitExceeded(
                "max-events-per-second",
                self.rate,
                f"table {table_id!r} is sent events too fast",
                table_id=table_id,
            )

    def forget(self, table_id: str) -> None:
        self._buckets.pop(table_id, None)
