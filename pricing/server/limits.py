"""The limits a server puts on what its clients may claim, and the pieces that enforce them.

Each limit is a flag of ``pricing serve`` (``Limits`` holds their values); a request over one is
answered ``RESOURCE_EXHAUSTED`` with a message naming the flag and its value, and counted in
``pricing_limit_rejections_total{limit}``. Where each is checked:

- ``max_tables``: ``pricing.tables.Tables.open_table`` (the tables layer owns the tables);
- ``max_watchers`` / ``max_watchers_per_table``: ``PricingService.WatchTable``;
- ``max_round_backlog``: a table's ``pricing.server.fanout.Hub`` (round results held for its
  watchers);
- ``max_feeds``: ``PricingService.Feed``, the handler of ``DealerService.Feed`` (Feed streams
  open at once; their events are not counted in ``max_concurrent_rpcs``, as a stream applies
  one event at a time);
- ``max_message_bytes``: the request decoder of every handler (``pricing.server.service``), before
  the body is parsed;
- ``max_events_per_second``: a ``TokenBucket`` per table in front of the feed's writes;
- ``max_concurrent_rpcs``: ``ConcurrencyInterceptor``, for the unary calls of the two pricing
  services (health and reflection always answer; streams have the limits above);
- keepalive and idle settings: gRPC channel options (``grpc_options``), so dead connections
  are reaped by the transport.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc
import grpc.aio

from pricing.errors import LimitExceeded
from pricing.server.fanout import ROUND_BACKLOG

__all__ = [
    "BuiltHandlers",
    "ConcurrencyInterceptor",
    "LimitExceeded",
    "Limits",
    "TableRates",
    "TokenBucket",
    "grpc_options",
    "refusing_handler",
]

KIB: Final = 1024


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
    max_concurrent_rpcs: int = 1_000
    max_feeds: int = 1_000
    keepalive_seconds: float = 60.0
    keepalive_timeout_seconds: float = 20.0
    idle_seconds: float = 600.0


def grpc_options(limits: Limits) -> list[tuple[str, Any]]:
    """gRPC server options for ``limits``. The transport's own receive limit is a backstop
    above ``max_message_bytes``: up to it, the service decodes nothing over the limit and
    answers with its own message (naming the flag); beyond it, gRPC refuses the body itself."""
    ms = 1000
    pending = limits.max_watchers + limits.max_concurrent_rpcs + limits.max_feeds
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
    """``rate`` events a second on average, bursts of up to ``burst``.

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
        self.burst = burst
        self._clock = clock
        self._level = burst
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
    second's worth. A table's bucket goes when the table leaves memory (``forget``)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._buckets: dict[str, TokenBucket] = {}

    def check(self, table_id: str) -> None:
        """``LimitExceeded`` if ``table_id`` is sent events faster than the rate."""
        bucket = self._buckets.get(table_id)
        if bucket is None:
            bucket = self._buckets[table_id] = TokenBucket(self.rate, burst=max(1.0, self.rate))
        if not bucket.take():
            raise LimitExceeded(
                "max-events-per-second", self.rate, f"table {table_id!r} is sent events too fast"
            )

    def forget(self, table_id: str) -> None:
        self._buckets.pop(table_id, None)


if TYPE_CHECKING:  # generic only in the type stubs
    ServerInterceptor = grpc.aio.ServerInterceptor[Any, Any]
    Handler = grpc.RpcMethodHandler[Any, Any]
else:
    ServerInterceptor = grpc.aio.ServerInterceptor
    Handler = grpc.RpcMethodHandler

Continuation = Callable[[grpc.HandlerCallDetails], Awaitable[Handler]]


class BuiltHandlers:
    """Handlers an interceptor builds around others, each built once and then reused.

    A wrapper built per call costs its closures, and hands the interceptor outside a new
    handler every call, so that one cannot reuse what it built either. ``get(key, inner,
    build)`` returns the handler built from ``inner`` under ``key`` while ``inner`` is the very
    handler it was built from (each is held here, so no other object can take its id).
    Bounded: should some path hand over a new inner handler every call, the cache starts
    afresh at ``limit`` entries rather than grow."""

    __slots__ = ("_built", "_limit")

    def __init__(self, limit: int = 4096) -> None:
        self._built: dict[object, tuple[Handler, Handler]] = {}
        self._limit = limit

    def get(self, key: object, inner: Handler, build: Callable[[Handler], Handler]) -> Handler:
        cached = self._built.get(key)
        if cached is not None and cached[0] is inner:
            return cached[1]
        if len(self._built) >= self._limit:
            self._built.clear()
        built = build(inner)
        self._built[key] = (inner, built)
        return built


def refusing_handler(handler: Handler, code: grpc.StatusCode, details: str) -> Handler:
    """A handler of ``handler``'s kind that ends the call at once with ``code``, before the
    request is even decoded (a stream: on its first message). The roles' interceptor keeps the
    ones it builds (``BuiltHandlers``, keyed by method, code and details)."""

    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, details)

    async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, details)
        yield  # pragma: no cover - abort raises

    async def bidi(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, details)
        yield  # pragma: no cover - abort raises

    def keep(data: bytes) -> bytes:
        return data

    if handler.stream_stream is not None:
        return grpc.stream_stream_rpc_method_handler(bidi, request_deserializer=keep)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(stream, request_deserializer=keep)
    return grpc.unary_unary_rpc_method_handler(unary, request_deserializer=keep)


class ConcurrencyInterceptor(ServerInterceptor):
    """At most ``limit`` unary calls of ``services`` in progress at once; the next one is
    refused with RESOURCE_EXHAUSTED (counted by ``on_reject``).

    A call is counted, or refused, as its handler starts: interception comes earlier, before
    the request has arrived, so a burst of calls intercepted in one turn of the event loop
    would all find the count as it was and all be let in."""

    def __init__(
        self, limit: int, services: tuple[str, ...], on_reject: Callable[[str], None]
    ) -> None:
        self.limit = limit
        self.in_flight = 0
        self._prefixes = tuple(f"/{s}/" for s in services)
        self._on_reject = on_reject
        # Each method's counting handler, built once: the metrics interceptor outside then
        # meets the same handler every call and keeps its own.
        self._built = BuiltHandlers()
        self._refused = str(
            LimitExceeded("max-concurrent-rpcs", limit, "too many calls in progress; retry later")
        )

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if (
            handler is None
            or handler.unary_unary is None
            or not handler_call_details.method.startswith(self._prefixes)
        ):
            return handler
        return self._built.get(handler_call_details.method, handler, self._count)

    def _count(self, handler: Handler) -> Handler:
        behaviour: Any = handler.unary_unary

        async def counted(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if self.in_flight >= self.limit:  # checked and counted with no await between
                self._on_reject("max-concurrent-rpcs")
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, self._refused)
            self.in_flight += 1
            try:
                return await behaviour(request, context)
            finally:
                self.in_flight -= 1

        return grpc.unary_unary_rpc_method_handler(
            counted,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
