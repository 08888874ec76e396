"""Typed clients of the pricing service: ``AsyncPricingClient`` (grpc.aio) and ``PricingClient``
(blocking), with the same methods, plus ``DealerFeed``/``AsyncDealerFeed`` that number the
dealer feed's events themselves.

Failed calls raise ``grpc.RpcError`` (``grpc.aio.AioRpcError`` for the async client) with the
server's status code and message, and what a program needs of a refusal: ``err.reason`` (a
stable name such as ``"SEQ_GAP"``, None if the server gave none), ``err.metadata`` (its values,
e.g. ``{"expected_seq": "9", ...}``), ``err.field_violations`` (the request fields at
fault) and ``err.retry_after`` (the seconds its ``RetryInfo`` asks to wait, None without one),
read from the status's ``google.rpc.Status`` trailer; ``error_details(err)`` reads the same
from any ``grpc.RpcError``, typed (README.md, "Errors for programs"). A read (``quote``,
``get_table``, ``settle``, ...) refused for a budget that frees up (RESOURCE_EXHAUSTED with a
``RetryInfo``) is sent again after that delay, at most ``READ_TRIES`` times in all and within
the client's ``timeout``; a feed resends its event (same seq) after it too. Enum arguments
take the proto's names with or without their prefix, in any case (``"GAME_HILO"``,
``"hilo"``, ``"RESULT"``), or numbers.

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
(the Feed stream on each side), ``_client`` and ``_feed``.
"""

from __future__ import annotations

# The modules whose ``sleep`` a feed pauses with (tests patch it through this package).
import asyncio as asyncio
import time as time

# Also importable from here as before the split (``X as X``: exported, not in ``__all__``).
from pricing.client._client import AsyncPricingClient, PricingClient
from pricing.client._connection import DEFAULT_TARGET, Connection, default_target
from pricing.client._errors import ErrorDetails, FieldViolation, error_details
from pricing.client._feed import AsyncDealerFeed, DealerFeed
from pricing.client._feed import _OpenStream as _OpenStream
from pricing.client._requests import EVENTS as EVENTS
from pricing.client._requests import Event as Event
from pricing.client._requests import Rules as Rules
from pricing.client._shared import FEED_RETRIES as FEED_RETRIES
from pricing.client._shared import READ_TRIES as READ_TRIES
from pricing.client._shared import log as log
from pricing.client._shared import retry_delay as retry_delay
from pricing.client._streams import BlockingFeedStream, FeedStreamError
from pricing.client._streams import FeedStream as FeedStream

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
]
