"""The lobby: every table as a row (what ListTables answers, with what each latest state says
of the player's chances), as JSON and as one server-sent event stream for every open lobby.

The rows are made at most once a second however many lobbies are open (``LobbyFeed`` keeps
the last made), and a lobby is sent them only when they changed: a busy floor costs a page one
event a second at most, never one per card.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any, Final

from aiohttp import web

from pricing.server.console.sse import HEADERS, KEEPALIVE, RETRY_MS
from pricing.server.console.views import StateViews, lobby_row
from pricing.server.service import PricingService
from pricing.wire import summary_to_proto

__all__ = ["LobbyFeed", "lobby_rows", "stream_lobby"]

#: The shortest time between two lobby events, and between two makings of the rows.
PERIOD: Final = 1.0
#: Lobby streams open at once; more are answered 429.
MAX_LOBBY_STREAMS: Final = 64


def _game_matches(row: dict[str, Any], game: str) -> bool:
    return not game or row["game"] in (game, f"GAME_{game}")


def lobby_rows(service: PricingService, views: StateViews, game: str = "") -> list[dict[str, Any]]:
    """Every table served, by id; only ``game``'s (``HILO`` or ``GAME_HILO``) if given."""
    game = game.upper()
    publisher = service.publisher
    rows: list[dict[str, Any]] = []
    for table in sorted(service.store.tables, key=lambda t: t.table_id):
        hub = publisher.hubs.get(table.table_id)
        if hub is None:
            continue
        summary = summary_to_proto(table.snapshot, table.seats, publisher.watching(table.table_id))
        row = lobby_row(summary, views.of(table.table_id, hub.latest))
        row["changed_at"] = views.changed_at(table.table_id)
        if _game_matches(row, game):
            rows.append(row)
    views.keep_only(set(publisher.hubs))
    return rows


class LobbyFeed:
    """The lobby's rows as one event's data, made at most once per ``PERIOD``."""

    def __init__(
        self,
        service: PricingService,
        views: StateViews,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.views = views
        self.clock = clock
        self.open = 0
        self._made_at = -PERIOD
        self._data = b""

    def data(self) -> bytes:
        now = self.clock()
        if now - self._made_at >= PERIOD:
            rows = lobby_rows(self.service, self.views)
            self._data = json.dumps({"tables": rows}, separators=(",", ":")).encode()
            self._made_at = now
        return self._data


async def stream_lobby(request: web.Request, feed: LobbyFeed) -> web.StreamResponse:
    """The lobby's rows as ``event: lobby`` whenever they changed, at most once a second,
    until the page closes or the server shuts down (the page then reconnects by itself)."""
    gate = feed.service.gate
    if gate.stopping or not gate.ready:
        raise web.HTTPServiceUnavailable(
            text="the server is shutting down" if gate.stopping else "the server is starting"
        )
    if feed.open >= MAX_LOBBY_STREAMS:
        raise web.HTTPTooManyRequests(
            text=f"{MAX_LOBBY_STREAMS} lobby pages are open: close one and retry"
        )
    feed.open += 1
    try:
        response = web.StreamResponse(headers=HEADERS)
        await response.prepare(request)
        await response.write(b"retry: %d\n\n" % RETRY_MS)
        sent = b""
        quiet = 0.0
        while not gate.stopping:
            data = feed.data()
            if data != sent:
                await response.write(b"event: lobby\ndata: %s\n\n" % data)
                sent, quiet = data, 0.0
            elif quiet >= KEEPALIVE:
                await response.write(b": keepalive\n\n")
                quiet = 0.0
            await asyncio.sleep(PERIOD)
            quiet += PERIOD
        with contextlib.suppress(ConnectionError):
            await response.write_eof()
        return response
    finally:
        feed.open -= 1
