"""The console's aiohttp application, run in the server's own event loop (``web.AppRunner`` and
``web.TCPSite``: no signal handlers of its own, the server's shutdown stops it).

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

import ssl
from dataclasses import dataclass
from typing import Final

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from pricing.errors import InvalidInput
from pricing.server.console.access import access_middleware
from pricing.server.console.lobby import LobbyFeed, lobby_rows, stream_lobby
from pricing.server.console.pages import STATIC, Pages
from pricing.server.console.sse import refusal, stream_table
from pricing.server.console.views import StateViews
from pricing.server.security import Security
from pricing.server.service import PricingService
from pricing.tables import TableHeldAside, TableNotFound

__all__ = ["Console", "start_console"]

#: The largest request the console reads: it takes GETs only.
MAX_REQUEST_BYTES: Final = 16 * 1024
#: Requests (pages, JSON, assets) answered at once; more are refused with 429 naming the
#: limit. The event streams are bounded by the watcher limits and the lobby's own cap.
MAX_REQUESTS: Final = 256
#: Seconds an idle kept-alive connection stays open.
KEEPALIVE_SECONDS: Final = 15.0

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


async def tables(request: web.Request) -> web.Response:
    _check_ready(request.app[SERVICE])
    rows = lobby_rows(request.app[SERVICE], request.app[VIEWS], request.query.get("game", ""))
    return web.json_response({"tables": rows})


async def table(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    _check_ready(service)
    table_id = request.match_info["table_id"]
    try:
        hub = service.reads.table_hub(table_id)
    except (InvalidInput, TableNotFound, TableHeldAside) as exc:
        raise refusal(exc) from None
    return _json(request.app[VIEWS].of(table_id, hub.latest).text)


async def events(request: web.Request) -> web.StreamResponse:
    return await stream_table(request, request.app[SERVICE], request.app[VIEWS])


async def lobby_events(request: web.Request) -> web.StreamResponse:
    return await stream_lobby(request, request.app[LOBBY])


async def lobby_page(request: web.Request) -> web.Response:
    pages = request.app[PAGES]
    if not request.app[SERVICE].gate.ready:
        return pages.error(503, "the server is rebuilding its tables: reload shortly")
    rows = lobby_rows(request.app[SERVICE], request.app[VIEWS])
    return pages.render("lobby.html", title="lobby", rows=rows)


async def table_page(request: web.Request) -> web.Response:
    service, pages = request.app[SERVICE], request.app[PAGES]
    if not service.gate.ready:
        return pages.error(503, "the server is rebuilding its tables: reload shortly")
    table_id = request.match_info["table_id"]
    try:
        hub = service.reads.table_hub(table_id)
    except (InvalidInput, TableNotFound, TableHeldAside) as exc:
        return pages.error(refusal(exc).status, str(exc))
    state = request.app[VIEWS].of(table_id, hub.latest).fields
    return pages.render("table.html", title=table_id, table_id=table_id, state=state)


def _request_cap(most: int) -> Middleware:
    """At most ``most`` requests at once besides the event streams (bounded on their own)."""
    busy = 0

    @web.middleware
    async def cap(request: web.Request, handler: Handler) -> web.StreamResponse:
        nonlocal busy
        if request.path.endswith("/events"):
            return await handler(request)
        if busy >= most:
            raise web.HTTPTooManyRequests(
                text=f"console-requests: {most} requests are being answered; retry shortly"
            )
        busy += 1
        try:
            return await handler(request)
        finally:
            busy -= 1

    return cap


def build_app(service: PricingService, security: Security) -> web.Application:
    app = web.Application(
        middlewares=[
            _request_cap(MAX_REQUESTS),
            access_middleware(security.tokens, tls=security.certificates is not None),
        ],
        client_max_size=MAX_REQUEST_BYTES,
    )
    app[SERVICE] = service
    app[VIEWS] = StateViews()
    app[LOBBY] = LobbyFeed(service, app[VIEWS])
    app[PAGES] = Pages()
    app.router.add_get("/", lobby_page)
    app.router.add_get("/tables/{table_id}", table_page)
    app.router.add_static("/static", STATIC, append_version=False)
    app.router.add_get("/api/lobby/events", lobby_events)
    app.router.add_get("/api/health", health)
    app.router.add_get("/api/tables", tables)
    app.router.add_get("/api/tables/{table_id}", table)
    app.router.add_get("/api/tables/{table_id}/events", events)
    return app


def _ssl_context(security: Security) -> ssl.SSLContext | None:
    certificates = security.certificates
    if certificates is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificates.cert, certificates.key)
    if certificates.client_ca is not None:
        context.load_verify_locations(certificates.client_ca)
        context.verify_mode = ssl.CERT_REQUIRED
    return context


@dataclass
class Console:
    """The running console: its address, and how to stop it."""

    runner: web.AppRunner
    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"

    async def stop(self) -> None:
        """Stop taking connections and close those open; the event streams have ended by then
        (``Publisher.end_streams``)."""
        await self.runner.cleanup()


async def start_console(
    service: PricingService, security: Security, host: str, port: int, *, grace: float
) -> Console:
    """Serve the console on ``host``:``port`` (0: any free port). A port that cannot be bound
    is an ``OSError`` naming it and the flag to change."""
    runner = web.AppRunner(
        build_app(service, security),
        handle_signals=False,
        access_log=None,
        shutdown_timeout=grace,
        keepalive_timeout=KEEPALIVE_SECONDS,
    )
    await runner.setup()
    context = _ssl_context(security)
    site = web.TCPSite(runner, host, port, ssl_context=context, reuse_address=True)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise OSError(
            f"console port {host}:{port}: {exc.strerror or exc}: choose another --console-port "
            "(PRICING_CONSOLE_PORT) or change --console-host (PRICING_CONSOLE_HOST)"
        ) from exc
    bound = port
    for address in runner.addresses:
        if isinstance(address, tuple):
            bound = int(address[1])
            break
    return Console(runner, host, bound, context is not None)
