"""Typed clients of the pricing service: ``AsyncPricingClient`` (grpc.aio) and ``PricingClient``
(blocking), with the same methods, plus ``DealerFeed``/``AsyncDealerFeed`` that number the
dealer feed's events themselves.

Failed calls raise ``grpc.RpcError`` (``grpc.aio.AioRpcError`` for the async client) with the
server's status code and message, and what a program needs of a refusal: ``err.reason`` (a
stable name such as ``"SEQ_GAP"``, None if the server gave none), ``err.metadata`` (its values,
e.g. ``{"expected_seq": "9", ...}``), ``err.field_violations`` (the request fields at
fault) and ``err.retry_after`` (the seconds its ``RetryInfo`` asks to wait, None without one),
read from the status's ``google.rpc.Status`` trailer; ``error_details(err)`` reads the same
from any ``grpc.RpcError``, typed (docs/reference/errors.md). A read (``quote``,
``get_table``, ``settle``, ...) refused for a budget that frees up (RESOURCE_EXHAUSTED with a
``RetryInfo``) is sent again after that delay, at most five times in all
(``_shared.READ_TRIES``) and within the client's ``timeout``; a feed resends its event (same
seq) after it too, and after ``retry_delay``'s backoff when the server was unreachable. A
client's ``sleep`` is what it and its feeds wait with. Enum arguments take the proto's names
with or without their prefix, in any case (``"GAME_HILO"``, ``"hilo"``, ``"RESULT"``), or
numbers.

Typical use (a game server)::

    with PricingClient("127.0.0.1:50051") as client:
        for state in client.watch_table("hilo-1"):
            show(state.prices)

and a dealer feed (``streamed=True``: its events on one Feed stream, not a call each)::

    with PricingClient() as client, client.feed("hilo-1", streamed=True) as feed:
        feed.open("HILO")
        feed.expose("7H", "BURN")

(leaving the ``with`` ends the stream, as ``feed.end_stream()`` does; ``async with`` on the
asyncio client. A feed dropped without either has its stream cancelled when it is
garbage-collected, which gives its place under the server's ``--max-feeds`` back.)

Each call is written once, as a coroutine doing its I/O through a transport: awaited on the
asyncio classes, run to its end at once on the blocking ones (whose transport never waits on
an event loop). The modules: ``_requests`` (each call's request, and the feed's events as
``FeedRequest`` lists them), ``_connection``, ``_errors`` (a refusal's details), ``_shared``
(one method for both sides, and the resend and resume rules), ``_transport``, ``_streams``
(the Feed stream on each side), ``_feed`` (a feed, written once) and ``_client`` (the clients
and their feeds, each side's classes).
"""

from __future__ import annotations

from pricing.client._client import AsyncDealerFeed, AsyncPricingClient, DealerFeed, PricingClient
from pricing.client._connection import DEFAULT_TARGET, Connection, default_target
from pricing.client._errors import ErrorDetails, FieldViolation, error_details
from pricing.client._shared import retry_delay
from pricing.client._streams import BlockingFeedStream, FeedStreamError

__all__ = [
    "DEFAULT_TARGET",
    "AsyncDealerFeed",
    "AsyncPricingClient",
    "BlockingFeedStream",
    "Connection",
    "DealerFeed",
    "ErrorDetails",
    "FeedStreamError",
    "FieldViolation",
    "PricingClient",
    "default_target",
    "error_details",
    "retry_delay",
]
