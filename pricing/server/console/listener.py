"""The console's listening socket, accepted by the console itself so that every connection is
counted from its accept, a TLS handshake in progress included: over
``--console-max-connections`` a connection is answered ``503`` naming the limit (plain HTTP) or
closed (TLS: nothing can be said before the handshake), counted either way, and never read; a
TLS handshake has ``HANDSHAKE_SECONDS``. A connection let in is handed to aiohttp's protocol
(``loop.connect_accepted_socket``); one whose answer does not move for
``--console-idle-seconds`` is cut (``_sweep``), counted as that limit's refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Callable
from typing import Final

from aiohttp import web

from pricing.errors import LimitExceeded

__all__ = ["HANDSHAKE_SECONDS", "Listener"]

log = logging.getLogger("pricing.server")

#: The longest a TLS handshake may take, if --console-idle-seconds is longer (a client that
#: opens a connection and says nothing holds a place among the connections that long).
HANDSHAKE_SECONDS: Final = 5.0
BACKLOG: Final = 128


def _refusal_answer(most: int) -> bytes:
    """What a plain connection over the limit is sent: 503 naming the flag."""
    text = str(LimitExceeded("console-max-connections", most, "console connections open"))
    body = text.encode() + b"\n"
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


class Listener:
    """Accepts the console's connections on ``sock`` for ``server`` (aiohttp's), at most
    ``most`` open at once; ``refused()`` is called for each connection refused."""

    def __init__(
        self,
        server: web.Server,
        sock: socket.socket,
        context: ssl.SSLContext | None,
        *,
        most: int,
        refused: Callable[[], None],
        idle: float,
        cut: Callable[[], None],
    ) -> None:
        self.server = server
        self.sock = sock
        self.context = context
        self.most = most
        self.answer = _refusal_answer(most)
        self.refused = refused
        self.idle = idle
        self.cut = cut
        self.handshaking = 0
        self._starting: set[asyncio.Task[None]] = set()
        self._accepting = asyncio.create_task(self._accept())
        self._sweeping = asyncio.create_task(self._sweep())

    @classmethod
    async def bind(cls, host: str, port: int) -> socket.socket:
        """A listening socket on ``host``:``port`` (the first address ``host`` resolves to)."""
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        return sock

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    @property
    def open(self) -> int:
        """Connections open: aiohttp's, and those still in their TLS handshake (for a loop turn
        or two a TLS one that just finished may be counted twice, and a plain one just
        accepted not yet: the limit holds to within the connections of one turn)."""
        return len(self.server.connections) + self.handshaking

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(self.sock)
            except OSError as exc:  # out of descriptors, say: the next accept may succeed
                log.warning("console: a connection could not be accepted: %s", exc)
                await asyncio.sleep(0.1)
                continue
            if self.open >= self.most:
                self.refused()
                if self.context is None:
                    with contextlib.suppress(OSError):
                        conn.send(self.answer)  # a fresh socket's buffer takes it at once
                conn.close()
                continue
            tls = self.context is not None
            self.handshaking += tls  # a plain one is aiohttp's from the next loop turn
            task = asyncio.create_task(self._start(conn, tls))
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    async def _start(self, conn: socket.socket, tls: bool) -> None:
        try:
            await asyncio.get_running_loop().connect_accepted_socket(
                self.server,
                conn,
                ssl=self.context,
                ssl_handshake_timeout=min(HANDSHAKE_SECONDS, self.idle) if tls else None,
            )
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError, asyncio.CancelledError):
            conn.close()  # a handshake that failed or took too long
        finally:
            self.handshaking -= tls

    async def _sweep(self) -> None:
        """Every ``idle`` seconds, cut each connection whose answer waits to be sent and has
        not shrunk since the last look: its client reads nothing (an answer asked for and left,
        a page whose machine stopped reading), and it would hold its place and the answer's
        memory for ever. A client that reads, however slowly, takes some of it in that time."""
        waiting: dict[int, int] = {}  # id of a transport -> bytes it had to send
        while True:
            await asyncio.sleep(self.idle)
            now: dict[int, int] = {}
            for handler in self.server.connections:
                transport = handler.transport
                if transport is None or transport.is_closing():
                    continue
                size = transport.get_write_buffer_size()
                if not size:
                    continue
                before = waiting.get(id(transport))
                if before is not None and size >= before:
                    self.cut()
                    transport.abort()
                else:
                    now[id(transport)] = size
            waiting = now

    async def close(self) -> None:
        """Stop accepting; connections being set up are dropped."""
        self._sweeping.cancel()
        self._accepting.cancel()
        for task in list(self._starting):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._accepting
        self.sock.close()
