"""The console's aiohttp application, run in the server's own event loop (``web.AppRunner``
behind the console's own socket, ``listener``: no signal handlers of its own, the server's
shutdown stops it).

aiohttp, not Starlette on uvicorn: one library is both the server and the streaming response,
it runs inside an event loop it did not create, and it needs no ASGI server beside it.

Routes (all GET, read-only):

- ``/``: the lobby's page; ``/tables/{table_id}``: a table's page (``pages``);
- ``/static/...``: their script and style;
- ``/api/lobby/events``: the lobby's rows as server-sent events (``lobby``);
- ``/api/health``: ``{"status": "SERVING"}`` once the tables are recovered;
- ``/api/tables``: the lobby, what ListTables answers with what each latest state tells;
- ``/api/tables/{table_id}``: the table's latest state as JSON;
- ``/api/tables/{table_id}/events``: its states as server-sent events (``sse``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from aiohttp import web

from pricing.server.console.access import COOKIE, access_middleware
from pricing.server.console.guard import quiet_bad_requests, rate_limit
from pricing.server.console.listener import Listener
from pricing.server.console.lobby import LobbyFeed, stream_lobby
from pricing.server.console.pages import STATIC, Pages
from pricing.server.console.sse import refusal, stream_table, table_hub
from pricing.server.console.views import StateViews
from pricing.server.security import Security
from pricing.server.service import PricingService
from pricing.v1 import pricing_pb2 as pb

__all__ = ["Console", "start_console"]

log = logging.getLogger("pricing.server")

#: The largest request the console reads: it takes GETs only.
MAX_REQUEST_BYTES: Final = 16 * 1024

SERVICE: Final = web.AppKey("service", PricingService)
VIEWS: Final = web.AppKey("views", StateViews)
LOBBY: Final = web.AppKey("lobby", LobbyFeed)
PAGES: Final = web.AppKey("pages", Pages)


def _json(body: bytes) -> web.Response:
    return web.Response(body=body, content_type="application/json")


async def health(request: web.Request) -> web.Response:
    gate = request.app[SERVICE].gate
    serving = gate.ready and not gate.stopping
    return web.json_response(
        {"status": "SERVING" if serving else "NOT_SERVING"}, status=200 if serving else 503
    )


def _check_ready(service: PricingService) -> None:
    if not service.gate.ready:
        raise web.HTTPServiceUnavailable(text="the server is rebuilding its tables: retry shortly")


def _game(request: web.Request) -> str:
    """The ``game`` query's ``pb.Game`` name (``hilo`` or ``GAME_HILO``), "" for every game."""
    asked = request.query.get("game", "").upper()
    if not asked:
        return ""
    name = asked if asked.startswith("GAME_") else f"GAME_{asked}"
    known = pb.Game.keys()[1:]  # not GAME_UNSPECIFIED
    if name not in known:
        games = ", ".join(g.removeprefix("GAME_").lower() for g in known)
        raise web.HTTPBadRequest(text=f"game: {asked!r} is not a game; one of {games}")
    return name


async def tables(request: web.Request) -> web.Response:
    _check_ready(request.app[SERVICE])
    game = _game(request)
    return _json((await request.app[LOBBY].rows()).document(game))


async def table(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    _check_ready(service)
    table_id = request.match_info["table_id"]
    return _json(request.app[VIEWS].of(table_id, table_hub(service, table_id).latest).text)


async def events(request: web.Request) -> web.StreamResponse:
    return await stream_table(request, request.app[SERVICE], request.app[VIEWS])


async def lobby_events(request: web.Request) -> web.StreamResponse:
    return await stream_lobby(request, request.app[LOBBY])


async def lobby_page(request: web.Request) -> web.Response:
    pages = request.app[PAGES]
    try:
        _check_ready(request.app[SERVICE])
    except web.HTTPException as refused:
        return pages.error(refused.status, refused.text or "")
    return pages.html(pages.once("lobby.html", title="lobby"))


async def table_page(request: web.Request) -> web.Response:
    service, pages = request.app[SERVICE], request.app[PAGES]
    table_id = request.match_info["table_id"]
    try:
        _check_ready(service)
        hub = table_hub(service, table_id)
    except web.HTTPException as refused:  # the same answer as the JSON's, as a page
        return pages.error(refused.status, refused.text or "")
    state = request.app[VIEWS].of(table_id, hub.latest)
    return pages.html(
        state.page(
            lambda: pages.text("table.html", title=table_id, table_id=table_id, state=state.fields)
        )
    )


#: Every answer's headers: the page's scripts, styles and streams come from the console
#: alone (the browser enforces it: no CDN), nothing is sniffed into another type, no address
#: of the console is sent on as a Referer, and no answer is used again without asking (an
#: upgraded server's scripts are fetched anew).
HEADERS: Final = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


async def _headers(_: web.Request, response: web.StreamResponse) -> None:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)


def build_app(service: PricingService, security: Security) -> web.Application:
    app = web.Application(
        middlewares=[
            rate_limit(
                service.limits.console_max_requests_per_second,
                COOKIE,
                lambda exc: refusal(exc, service),
                known=lambda token: security.tokens.role_of(token) is not None,
            ),
            access_middleware(security.tokens, tls=security.certificates is not None),
        ],
        client_max_size=MAX_REQUEST_BYTES,
    )
    app[SERVICE] = service
    app[VIEWS] = StateViews(service.publisher.hubs)
    app[LOBBY] = LobbyFeed(service)
    app[PAGES] = Pages()
    app.on_response_prepare.append(_headers)
    app.router.add_get("/", lobby_page)
    app.router.add_get("/tables/{table_id}", table_page)
    app.router.add_static("/static", STATIC, append_version=False)
    app.router.add_get("/api/lobby/events", lobby_events)
    app.router.add_get("/api/health", health)
    app.router.add_get("/api/tables", tables)
    app.router.add_get("/api/tables/{table_id}", table)
    app.router.add_get("/api/tables/{table_id}/events", events)
    return app


@dataclass
class Console:
    """The running console: its address, and how to stop it."""

    runner: web.AppRunner
    listener: Listener
    lobby: LobbyFeed
    unquiet: Callable[[], None]
    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"

    async def stop(self, within: float) -> None:
        """Stop taking connections, end the lobby streams and close the connections open,
        within ``within`` seconds (the table streams have ended: ``Publisher.end_streams``);
        a handler still running then is cancelled."""
        await self.listener.close()
        self.lobby.close()
        try:
            async with asyncio.timeout(within):
                await self.runner.cleanup()
        except TimeoutError:
            log.warning("the console's connections were cut off after %.1f s", within)
        self.unquiet()


async def start_console(
    service: PricingService, security: Security, host: str, port: int, *, grace: float
) -> Console:
    """Serve the console on ``host``:``port`` (0: any free port). A port that cannot be bound
    is an ``OSError`` naming it and the flag to change.

    The socket is the console's own (``listener``): every connection counted from its accept,
    those over ``--console-max-connections`` refused before anything of them is read. A
    connection that takes over ``--console-idle-seconds`` to send a request's headers, or
    stays that long idle between requests, is closed (aiohttp's keep-alive timer, which runs
    from the connection's start), and so is one whose answer has not moved for that long (its
    client reads nothing: ``Listener``)."""
    limits = service.limits
    idle = limits.console_idle_seconds
    app = build_app(service, security)
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        shutdown_timeout=grace,
        keepalive_timeout=idle,
        # a page closed ends its stream at once (its watcher's place freed), not at the next
        # state the stream would have written
        handler_cancellation=True,
    )
    await runner.setup()
    server = runner.server
    assert server is not None
    context = None if security.certificates is None else security.certificates.ssl_context()
    try:
        sock = await Listener.bind(host, port)
    except OSError as exc:
        await runner.cleanup()
        raise OSError(
            f"console port {host}:{port}: {exc.strerror or exc}: choose another --console-port "
            "(PRICING_CONSOLE_PORT) or change --console-host (PRICING_CONSOLE_HOST)"
        ) from exc
    rejections = service.metrics.limit_rejections
    listener = Listener(
        server,
        sock,
        context,
        most=limits.console_max_connections,
        refused=rejections.labels("console-max-connections").inc,
        idle=idle,
        cut=rejections.labels("console-idle-seconds").inc,
    )
    unquiet = quiet_bad_requests()
    return Console(runner, listener, app[LOBBY], unquiet, host, listener.port, context is not None)
