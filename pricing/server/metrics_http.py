"""The HTTP server of the metrics page: ``/metrics`` and nothing else, with bounded resources.

``prometheus_client.start_http_server`` answers every path and gives each connection a thread
for as long as the client keeps it open, so a few hundred half-sent requests hold a few hundred
threads for ever. This server answers ``/metrics`` only (404 elsewhere), gives each connection
``timeout`` seconds per read or write, and serves at most ``max_connections`` at once: a
connection beyond that is closed at once, before any thread is started for it.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

__all__ = ["MetricsHTTPServer", "serve_metrics_http"]

TIMEOUT_SECONDS: Final = 5.0
MAX_CONNECTIONS: Final = 32
SWITCH_INTERVAL: Final = 0.0005
#: How often the metrics page's thread looks for ``shutdown()``, in seconds.
SHUTDOWN_POLL_SECONDS: Final = 0.05
SLOW_RENDER_SECONDS: Final = 0.05
#: A page this large (thousands of tables) is reused for at least ``LARGE_PAGE_SECONDS``: a
#: scraper looping on it would otherwise keep a thread rendering and copying it, taking turns
#: with the event loop; Prometheus scrapes every few seconds, so a second-old page costs it
#: nothing. A smaller page is rendered afresh for every scrape, however long it took: a few
#: thousand series cannot be slow to render by themselves, only on a machine busy with other
#: work, and reusing it then would serve a state older than the scrape (a table closed, still
#: listed).
LARGE_PAGE_BYTES: Final = 256 * 1024
LARGE_PAGE_SECONDS: Final = 1.0


class _MetricsHandler(BaseHTTPRequestHandler):
    timeout = TIMEOUT_SECONDS  # StreamRequestHandler sets it on the socket before each read
    server: MetricsHTTPServer

    def do_GET(self) -> None:
        if urlsplit(self.path).path != "/metrics":
            self.send_error(404, "Not Found", "this server serves /metrics only")
            return
        body, content_type = self.server.page(self.headers.get("Accept", ""))
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not logged (a scrape every few seconds would drown the service's log)."""


class MetricsHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # accepted (and refused at once if full) rather than left waiting

    def __init__(
        self,
        address: tuple[str, int],
        registry: CollectorRegistry,
        *,
        max_connections: int = MAX_CONNECTIONS,
        extra: Callable[[], bytes] = bytes,
    ) -> None:
        self.registry = registry
        self._extra = extra  # families rendered outside the registry (pre-rendered lines)
        self._slots = threading.BoundedSemaphore(max_connections)
        self._render = threading.Lock()
        self._pages: dict[str, tuple[float, bytes]] = {}  # content type -> (fresh until, page)
        host, port = address
        self.address_family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        super().__init__(address, _MetricsHandler)

    def page(self, accept: str) -> tuple[bytes, str]:
        """The page in the format ``accept`` asks for. Rendering many series is pure Python
        holding the GIL, so one page is rendered at a time, and a page that took longer than
        ``SLOW_RENDER_SECONDS`` is reused for twice as long as it took: however many clients
        scrape, rendering then takes at most a third of one core, and the event loop the rest.
        A page under ``LARGE_PAGE_BYTES`` is rendered afresh for every scrape."""
        encoder, content_type = choose_encoder(accept)
        with self._render:
            now = time.monotonic()
            cached = self._pages.get(content_type)
            if cached is not None and now < cached[0]:
                return cached[1], content_type
            body = _with_extra(encoder(self.registry), self._extra())
            took = time.monotonic() - now
            fresh = 0.0
            if len(body) >= LARGE_PAGE_BYTES:
                slow = took > SLOW_RENDER_SECONDS
                fresh = max(2 * took if slow else 0.0, LARGE_PAGE_SECONDS)
            self._pages[content_type] = (now + took + fresh, body)
            return body, content_type

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # full: close at once, no thread for it
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def _with_extra(page: bytes, extra: bytes) -> bytes:
    """The registry's page with ``extra`` families added (before OpenMetrics' ``# EOF``)."""
    eof = b"# EOF\n"
    if page.endswith(eof):
        return page[: -len(eof)] + extra + eof
    return page + extra


def serve_metrics_http(
    registry: CollectorRegistry,
    host: str,
    port: int,
    *,
    extra: Callable[[], bytes] = bytes,
) -> tuple[MetricsHTTPServer, int]:
    """Serve ``registry`` on ``http://host:port/metrics`` from a daemon thread; the server
    (``shutdown()`` stops it) and the bound port (``port`` 0: any free port)."""
    # Rendering a page of many series is pure Python in this thread, holding the GIL: with the
    # default 5 ms switch interval the event loop would wait up to 5 ms at each hand-over, and
    # a card's trip through the service takes several. 0.5 ms keeps the feed's latency close
    # to idle while a scrape runs (bench/reads_vs_feed.py).
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    httpd = MetricsHTTPServer((host.strip("[]"), port), registry, extra=extra)
    # serve_forever looks for shutdown() every poll interval: the standard 0.5 s would hold
    # every stop of the server for up to half a second; a wake-up every 50 ms costs nothing.
    thread = threading.Thread(
        target=httpd.serve_forever,
        kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS},
        name="metrics-http",
        daemon=True,
    )
    thread.start()
    return httpd, int(httpd.server_address[1])
