"""A table's states as server-sent events: a ``Slot`` of the table's hub, subscribed as
WatchTable subscribes one and counted against the same watcher limits, so a slow page skips
prices (the slot keeps only the newest state) and never holds the dealer's feed up.

Each event is ``event: state``, ``id:`` the version, ``data:`` the state's JSON; a page is
written to at most ten times a second, each time with every state due. The stream
ends when the table closes (after its final state), when the server shuts down (the browser's
EventSource reconnects by itself), or with ``event: behind`` when the page fell further behind
than the round results a table holds (it reconnects and starts from the state as it is).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Final

from aiohttp import web

from pricing.errors import InvalidInput, LimitExceeded
from pricing.server.console.views import StateViews
from pricing.server.fanout import FellBehind, Hub, Published, Slot
from pricing.server.service import PricingService
from pricing.tables import TableHeldAside, TableNotFound

__all__ = ["HEADERS", "RETRY_MS", "check_streaming", "refusal", "stream_table", "table_hub"]

#: What an EventSource waits before reconnecting (ms), sent first on every stream.
RETRY_MS: Final = 2000
#: The shortest time between two writes to a page (seconds): a person reads no faster, and
#: each write is a system call per page.
PAGE_INTERVAL: Final = 0.1

HEADERS: Final = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # a reverse proxy (nginx) must not buffer the stream
}


def refusal(exc: Exception, service: PricingService) -> web.HTTPException:
    """The HTTP answer of a read the service refuses; a limit is counted in
    ``pricing_limit_rejections_total`` as the gRPC port counts it, and answered 429 with the
    message naming it."""
    if isinstance(exc, LimitExceeded):
        service.metrics.limit_rejections.labels(exc.limit).inc()
        retry = {"Retry-After": str(max(1, round(exc.retry_after or 1)))}
        return web.HTTPTooManyRequests(text=str(exc), headers=retry)
    if isinstance(exc, TableNotFound):
        return web.HTTPNotFound(text=str(exc))
    if isinstance(exc, TableHeldAside):
        return web.HTTPConflict(text=str(exc))
    return web.HTTPBadRequest(text=str(exc))


def table_hub(service: PricingService, table_id: str) -> Hub:
    """The hub of the table a request names; its refusal (400, 404, 409) if none."""
    try:
        return service.reads.table_hub(table_id)
    except (InvalidInput, TableNotFound, TableHeldAside) as exc:
        raise refusal(exc, service) from None


def check_streaming(service: PricingService) -> None:
    """A stream opens only while the server serves: 503 while it starts or shuts down (the
    page's EventSource retries)."""
    gate = service.gate
    if gate.stopping or not gate.ready:
        raise web.HTTPServiceUnavailable(
            text="the server is shutting down" if gate.stopping else "the server is starting"
        )


async def stream_table(
    request: web.Request, service: PricingService, views: StateViews
) -> web.StreamResponse:
    table_id = request.match_info["table_id"]
    check_streaming(service)
    hub = table_hub(service, table_id)
    try:
        service.reads.check_watchers(hub, table_id)
    except LimitExceeded as exc:
        raise refusal(exc, service) from None
    # A quiet table's stream says so now and then (--console-idle-seconds), so that a reverse
    # proxy's read timeout does not cut it.
    keepalive = service.limits.console_idle_seconds
    response = web.StreamResponse(headers=HEADERS)
    with service.reads.watching(hub, _resume_from(request, hub)) as slot:
        try:
            await response.prepare(request)
            await response.write(b"retry: %d\n\n" % RETRY_MS)
            text = views.of
            await _send(response, slot, lambda p: text(table_id, p).text, keepalive)
            await response.write_eof()
        except ConnectionError:  # the page went away as it was written to
            pass
    return response


async def _send(
    response: web.StreamResponse,
    slot: Slot,
    text: Callable[[Published], bytes],
    keepalive: float,
) -> None:
    """Write what ``slot`` is given until the stream ends, each write with every state due by
    then (the round results held, then the newest), and then a pause of about
    ``PAGE_INTERVAL``: a busy table costs a page ten writes a second, not one a card. The pause
    is drawn between a half and one and a half ``PAGE_INTERVAL``, so that the pages of a table,
    all woken by the same card, do not write again all at once for ever after (each write is
    a system call: fifty at once hold the event loop, and the browsers' machine, together)."""
    ended = False
    while not ended:
        frames: list[bytes] = []
        try:
            # ``asyncio.timeout``: no task per wait; ``take`` may be cancelled as it waits
            async with asyncio.timeout(keepalive):
                published = await slot.take()
            while True:
                if published is None:  # the server is shutting down
                    ended = True
                    break
                frames.append(
                    b"event: state\nid: %d\ndata: %s\n\n" % (published.version, text(published))
                )
                if published.final:
                    ended = True
                    break
                if slot.pending is None:
                    break
                published = await slot.take()  # at once: a state is pending
        except TimeoutError:
            frames.append(b": keepalive\n\n")
        except FellBehind:
            frames.append(b"event: behind\ndata: {}\n\n")
            ended = True
        if frames:
            await response.write(b"".join(frames))
        if not ended:
            await asyncio.sleep(PAGE_INTERVAL * (0.5 + random.random()))


def _resume_from(request: web.Request, hub: Hub) -> int:
    """The version a reconnecting page resumes from: after the ``Last-Event-ID`` its
    EventSource sends (the last state it was sent), so that the round results it missed are
    sent first, if the hub holds them all (from its ``horizon``: the console reads no
    journal) and the id is one the table has had; else 0, the latest state only."""
    try:
        resume = int(request.headers.get("Last-Event-ID", "")) + 1
    except ValueError:
        return 0
    return resume if max(hub.horizon, 1) <= resume <= hub.latest.version else 0
