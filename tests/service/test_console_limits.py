"""The web console's bounds: connections open at once, requests answered at once, lobby pages,
a connection that sends its request too slowly or idles, a quiet stream's keep-alive line, the
lobby's rows made once for every reader and in slices, and the JSON of tables gone dropped.

The socket bounds run against a real server on loopback; the request cap and the lobby's
making run the console's own application in this process, on a real ``PricingService``.
"""

from __future__ import annotations

import asyncio
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from pricing.server.console import app as console_app
from pricing.server.console.lobby import LobbyFeed
from pricing.server.console.views import SLACK, StateViews
from pricing.server.fanout import Published
from pricing.server.limits import Limits
from pricing.server.security import Security
from pricing.server.service import PricingService
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_service_errors import FakeContext
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Feed, wait_for

IDLE = 1.0
RATE = 5.0


@pytest.fixture(scope="module")
def tight() -> Iterator[ServerProcess]:
    process = start_server(
        "--console-port=0",
        "--console-max-connections=3",
        "--console-max-lobbies=1",
        f"--console-idle-seconds={IDLE}",
        f"--console-max-requests-per-second={RATE}",
    )
    yield process
    assert process.stop() == 0, process.log()


def connect(server: ServerProcess) -> socket.socket:
    assert server.console_port is not None
    return socket.create_connection(("127.0.0.1", server.console_port), timeout=10)


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def status(request: urllib.request.Request | str) -> int:
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def health(server: ServerProcess) -> int:
    return status(server.console_url("/api/health"))


def test_a_connection_over_the_cap_is_answered_503_naming_the_limit(
    tight: ServerProcess,
) -> None:
    Feed(tight, "console-held").open(game=pb.GAME_HILO)
    held = [connect(tight) for _ in range(3)]
    try:
        for sock in held:  # each a table's event stream: open until the page goes
            sock.sendall(b"GET /api/tables/console-held/events HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        over = connect(tight)
        answer = read_all(over).decode()
        over.close()
        assert answer.startswith("HTTP/1.1 503"), answer
        assert "console connections open: the limit --console-max-connections is 3" in answer
        assert "Retry-After: 1" in answer
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10  # the closed ones free their places
    while health(tight) != 200:
        assert time.monotonic() < deadline, "no place freed after the connections closed"
    assert 'pricing_limit_rejections_total{limit="console-max-connections"}' in tight.metrics_text()


def test_a_request_sent_too_slowly_is_cut_off_and_an_idle_connection_closed(
    tight: ServerProcess,
) -> None:
    slow = connect(tight)
    slow.sendall(b"GET / HTTP/1.1\r\n")
    started = time.monotonic()
    cut = False
    while time.monotonic() - started < 5 * IDLE:  # a header line now and then, never the end
        try:
            slow.sendall(b"X-Slow: 1\r\n")
            slow.settimeout(0.3)
            if slow.recv(1) == b"":
                cut = True
                break
        except TimeoutError:
            continue
        except OSError:
            cut = True
            break
    slow.close()
    assert cut, f"a request trickled for {5 * IDLE} s was not cut off"
    idle = connect(tight)
    idle.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert idle.recv(65536).startswith(b"HTTP/1.1 200")
    idle.settimeout(5 * IDLE)
    assert read_all(idle) == b"", "an idle kept-alive connection stayed open"
    idle.close()


def test_a_quiet_tables_stream_sends_a_keepalive_line(tight: ServerProcess) -> None:
    Feed(tight, "console-quiet").open(game=pb.GAME_HILO)
    sock = connect(tight)
    sock.sendall(b"GET /api/tables/console-quiet/events HTTP/1.1\r\nHost: x\r\n\r\n")
    sock.settimeout(5 * IDLE)
    seen = b""
    while b"\n: keepalive\n" not in seen:
        chunk = sock.recv(65536)
        assert chunk, f"the stream ended: {seen!r}"
        seen += chunk
    sock.close()
    assert seen.index(b"event: state") < seen.index(b": keepalive")


def test_lobby_pages_over_the_limit_are_answered_429_naming_it(tight: ServerProcess) -> None:
    first = connect(tight)
    first.sendall(b"GET /api/lobby/events HTTP/1.1\r\nHost: x\r\n\r\n")
    assert first.recv(65536).startswith(b"HTTP/1.1 200")
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(tight.console_url("/api/lobby/events"), timeout=10)
        assert refused.value.code == 429
        assert refused.value.headers["Retry-After"] == "1"
        said = refused.value.read().decode()
        assert said == "lobby pages open: the limit --console-max-lobbies is 1", said
    finally:
        first.close()


def test_an_unknown_game_is_refused_naming_the_games(tight: ServerProcess) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(tight.console_url("/api/tables?game=poker"), timeout=10)
    assert refused.value.code == 400
    said = refused.value.read().decode()
    assert said.startswith("game: 'POKER' is not a game; one of hilo, blackjack"), said


async def open_tables(service: PricingService, count: int, prefix: str = "t") -> None:
    rpc = service.rpc("OpenTable")
    for i in range(count):
        request = pb.OpenTableRequest(table_id=f"{prefix}{i:05d}", game=pb.GAME_HILO)
        await rpc(request, FakeContext())


def test_the_lobbys_rows_are_made_once_for_every_reader_and_let_the_loop_run() -> None:
    service = PricingService()
    now = [0.0]
    feed = LobbyFeed(service, clock=lambda: now[0])
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def run() -> None:
        await open_tables(service, 2000)
        other = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        before = ticks
        first, second = await asyncio.gather(feed.rows(), feed.rows())
        assert first is second, "two readers made the rows twice"
        assert len(first.rows) == 2000
        assert ticks - before > 2, "the making never let the loop run"
        assert await feed.rows() is first, "made again within the period"
        await open_tables(service, 1, prefix="late")
        now[0] += 1.0
        again = await feed.rows()
        assert again is not first
        assert [r.text for r in again.rows[:2000]] == [r.text for r in first.rows]
        assert again.rows[0] is first.rows[0], "an unchanged table's row was made again"
        assert b'"table_id":"late00000"' in again.document("GAME_HILO")
        assert again.document("GAME_BACCARAT") == b'{"tables":[]}'
        other.cancel()

    asyncio.run(run())


def test_the_json_of_tables_gone_is_dropped() -> None:
    served: dict[str, object] = {}
    views = StateViews(served)
    state = pb.TableState(table_id="x", version=1).SerializeToString()
    for i in range(SLACK + 10):
        views.of(f"gone-{i}", Published(1, state, False))
    assert len(views) <= SLACK + 1
    served["kept"] = object()
    kept = views.of("kept", Published(1, state, False))
    assert views.of("kept", kept.published) is kept


def test_a_page_further_behind_than_the_round_backlog_is_told_so_and_its_stream_ends() -> None:
    """A page reading slower than rounds end (more round results than --max-round-backlog
    between two of its reads) gets ``event: behind`` and its stream ends: its page reopens from
    the state as it is; the dealer's feed never waited for it."""
    service = PricingService(limits=Limits(max_round_backlog=1))
    app = console_app.build_app(service, Security())

    async def run() -> None:
        await open_tables(service, 1)
        async with TestServer(app) as server, aiohttp.ClientSession() as client:
            stream = await client.get(server.make_url("/api/tables/t00000/events"))
            assert stream.status == 200
            while b"event: state" not in await stream.content.readline():
                pass
            hub = service.publisher.hubs["t00000"]
            latest = hub.latest
            for version in range(latest.version + 1, latest.version + 4):  # at once: no await
                hub.publish(Published(version, latest.payload, False, ends_round=True))
            rest = (await stream.content.read()).decode()
            assert "event: behind" in rest, rest
            assert rest.rstrip().endswith("data: {}"), "the stream went on after behind"

    asyncio.run(run())


def test_a_client_asking_too_fast_is_answered_429_naming_the_limit(tight: ServerProcess) -> None:
    """A client's bucket holds two seconds' worth: a burst of ten answered, then refused."""
    codes = [health(tight) for _ in range(int(4 * RATE))]
    assert codes[0] == 200
    assert codes.count(429) >= RATE, codes
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(tight.console_url("/api/health"), timeout=10)
    assert refused.value.code == 429
    said = refused.value.read().decode()
    assert said == (
        "console requests from one client: the limit --console-max-requests-per-second is 5.0"
    ), said
    assert 'limit="console-max-requests-per-second"' in tight.metrics_text()
    made_up = [  # a token of nobody's, new each request, buys no fresh allowance
        urllib.request.Request(
            tight.console_url("/api/health"), headers={"Authorization": f"Bearer made-up-{i}"}
        )
        for i in range(int(4 * RATE))
    ]
    assert sum(status(request) == 429 for request in made_up) >= RATE


def cuts(server: ServerProcess) -> float:
    """The connections cut for an answer not taken in time."""
    found = re.search(
        r'^pricing_limit_rejections_total\{limit="console-idle-seconds"\} (\S+)$',
        server.metrics_text(),
        re.M,
    )
    return float(found[1]) if found else 0.0


def test_an_answer_never_taken_has_its_connection_cut_and_counted() -> None:
    """A client asking for many scripts in one go and reading none: the server's buffers fill,
    and within --console-idle-seconds the connection is cut, counted as that limit's."""
    server = start_server(
        "--console-port=0",
        f"--console-idle-seconds={IDLE}",
        "--console-max-requests-per-second=1e5",
    )
    try:
        assert server.console_port is not None
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", server.console_port))
        sock.sendall(b"GET /static/table.js HTTP/1.1\r\nHost: x\r\n\r\n" * 600)  # 4 MB asked
        try:
            wait_for(lambda: cuts(server) >= 1, timeout=10 * IDLE, what="the connection cut")
        finally:
            sock.close()
    finally:
        assert server.stop() == 0, server.log()


def test_a_request_that_is_not_http_is_one_warning_line_not_a_traceback(
    tight: ServerProcess,
) -> None:
    for garbage in (b"\x16\x03\x01 not http\r\n\r\n", b"GET / HTTP/1.1\r\nNo Host\r\n\r\n"):
        sock = connect(tight)
        sock.sendall(garbage)
        assert b" 400 Bad Request" in read_all(sock).split(b"\r\n")[0], garbage
        sock.close()
    log = tight.log()
    assert "Traceback" not in log, log
    assert "console: a request that is not HTTP refused (400)" in log
