"""The web console over HTTP against a real server on loopback: the lobby and a table's state
as JSON, a table's states as server-sent events, the watcher limits, and the refusal to serve
beyond loopback unprotected."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from pricing.v1 import pricing_pb2 as pb
from tests.support import ROOT
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Feed, wait_for


@pytest.fixture(scope="module")
def console() -> Iterator[ServerProcess]:
    process = start_server(  # its tests ask as fast as they are answered: no rate limit
        "--console-port=0", "--max-watchers-per-table=2", "--console-max-requests-per-second=1e5"
    )
    yield process
    code = process.stop()
    assert code == 0, process.log()


def get_json(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.console_url(path), timeout=10) as response:
        assert response.headers["Content-Type"].startswith("application/json")
        return json.loads(response.read())


class EventStream:
    """Reads a console event stream in a thread: each ``event: state`` as its JSON."""

    def __init__(self, server: ServerProcess, table_id: str) -> None:
        assert server.console_port is not None
        self.connection = http.client.HTTPConnection("127.0.0.1", server.console_port, timeout=10)
        self.connection.request("GET", f"/api/tables/{table_id}/events")
        self.response = self.connection.getresponse()
        self.states: queue.Queue[dict[str, Any] | None] = queue.Queue()
        if self.response.status == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event = ""
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line.removeprefix("event: ")
                elif line.startswith("data: ") and event == "state":
                    self.states.put(json.loads(line.removeprefix("data: ")))
        except (OSError, ValueError, AttributeError):  # closed under it (``close``)
            pass
        self.states.put(None)

    def until(self, version: int) -> dict[str, Any]:
        while True:
            state = self.states.get(timeout=10)
            assert state is not None, "the stream ended"
            if int(state["version"]) >= version:
                return state

    def close(self) -> None:
        """Close the connection now: shut down first, so that the reading thread's ``recv``
        returns (a plain close leaves the socket open, with no FIN sent, until it does)."""
        if self.connection.sock is not None:
            with contextlib.suppress(OSError):
                self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def test_the_lobby_lists_an_opened_table(console: ServerProcess) -> None:
    feed = Feed(console, "console-lobby")
    feed.open(game=pb.GAME_HILO)

    def listed() -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = get_json(console, "/api/tables")["tables"]
        return [r for r in rows if r["table_id"] == "console-lobby"]

    wait_for(lambda: bool(listed()), what="the table in the lobby (its rows are a second old)")
    (row,) = listed()
    assert row["game"] == "GAME_HILO"
    assert row["cards_remaining"] == 52
    assert row["watchers"] == 0
    assert "best_bet" in row and "player_edge" in row
    only = get_json(console, "/api/tables?game=blackjack")["tables"]
    assert all(r["game"] == "GAME_BLACKJACK" for r in only)


def test_a_card_changes_the_state_endpoints_version(console: ServerProcess) -> None:
    feed = Feed(console, "console-state")
    opened = feed.open(game=pb.GAME_HILO)
    before = get_json(console, "/api/tables/console-state")
    assert int(before["version"]) == opened.version
    exposed = feed.expose("2S")
    after = get_json(console, "/api/tables/console-state")
    assert int(after["version"]) == exposed.version > opened.version
    assert after["exposed"] == ["2S"]


def test_an_unknown_table_is_not_found(console: ServerProcess) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        get_json(console, "/api/tables/no-such-table")
    assert caught.value.code == 404


def test_an_event_stream_receives_the_state_after_a_card(console: ServerProcess) -> None:
    feed = Feed(console, "console-sse")
    opened = feed.open(game=pb.GAME_HILO)
    stream = EventStream(console, "console-sse")
    try:
        assert stream.response.status == 200
        assert stream.response.headers["Content-Type"] == "text/event-stream"
        assert int(stream.until(opened.version)["version"]) == opened.version
        exposed = feed.expose("7H")
        state = stream.until(exposed.version)
        assert state["exposed"] == ["7H"]
    finally:
        stream.close()


def test_the_watcher_limit_is_answered_429_naming_it(console: ServerProcess) -> None:
    feed = Feed(console, "console-limit")
    opened = feed.open(game=pb.GAME_HILO)
    streams = [EventStream(console, "console-limit") for _ in range(2)]
    try:
        for stream in streams:
            stream.until(opened.version)  # subscribed
        third = EventStream(console, "console-limit")
        assert third.response.status == 429
        assert "max-watchers-per-table" in third.response.read().decode()
        third.close()
    finally:
        for stream in streams:
            stream.close()


def test_a_closed_page_frees_its_watchers_place_at_once_and_quietly(
    console: ServerProcess,
) -> None:
    """Two pages of a quiet table (its limit: 2) closed: two more open at once, long before
    the table's next state or the streams' keep-alive line would have found the old ones
    gone, and nothing is logged as an error."""
    feed = Feed(console, "console-closed-pages")
    opened = feed.open(game=pb.GAME_HILO)
    for _ in range(3):
        streams = [EventStream(console, "console-closed-pages") for _ in range(2)]
        for stream in streams:
            stream.until(opened.version)
            stream.close()

        def both_open() -> bool:
            again = [EventStream(console, "console-closed-pages") for _ in range(2)]
            for stream in again:
                stream.close()
            return all(stream.response.status == 200 for stream in again)

        wait_for(both_open, timeout=5, what="the closed pages' places freed")
    assert "Traceback" not in console.log(), console.log()


def test_every_answer_says_where_a_page_may_load_from(console: ServerProcess) -> None:
    for path in ("/", "/api/tables", "/static/console.js", "/api/tables/no-such-table"):
        try:
            with urllib.request.urlopen(console.console_url(path), timeout=10) as response:
                headers = response.headers
        except urllib.error.HTTPError as refused:
            headers = refused.headers
        assert headers["Content-Security-Policy"] == "default-src 'self'; frame-ancestors 'none'"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["Cache-Control"] == "no-cache"


def test_beyond_loopback_unprotected_it_refuses_to_start_as_grpc_does() -> None:
    def start(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(ROOT / "server.py"), "--data-dir=:memory:", "--port=0",
             "--metrics-port=0", *args],
            check=False, capture_output=True, text=True, timeout=60, cwd=ROOT,
            env={k: v for k, v in os.environ.items() if not k.startswith("PRICING_")},
        )  # fmt: skip

    console = start("--console-port=0", "--console-host=0.0.0.0")
    grpc = start("--host=0.0.0.0")
    assert console.returncode == grpc.returncode == 2
    said = console.stderr.strip().splitlines()[-1]
    assert said.endswith(
        "--console-host 0.0.0.0 serves beyond this machine without TLS (--tls-cert and "
        "--tls-key), reader tokens (--reader-tokens-file): configure them, or pass --insecure "
        "to accept the risk"
    ), said
    tail = ": configure them, or pass --insecure to accept the risk"
    assert grpc.stderr.strip().endswith(tail)


def get_text(server: ServerProcess, path: str) -> tuple[str, str]:
    """The body of ``path`` and its content type."""
    with urllib.request.urlopen(server.console_url(path), timeout=10) as response:
        return response.read().decode(), response.headers["Content-Type"]


#: An address the page would load or link from outside the server: a src or href (or a CSS
#: url() or @import) that names a scheme or starts with //.
EXTERNAL = re.compile(
    r"""(?:src|href)\s*=\s*["']?\s*(?:[a-z]+:)?//|url\(\s*["']?\s*(?:[a-z]+:)?//|@import""", re.I
)
ASSETS = ("/static/console.js", "/static/lobby.js", "/static/table.js", "/static/console.css")
GAMES = (
    pb.GAME_HILO,
    pb.GAME_BLACKJACK,
    pb.GAME_GOA_GAE,
    pb.GAME_HIGHER_LOWER,
    pb.GAME_BACCARAT,
    pb.GAME_DRAGON_TIGER,
)


def lobby_ids(server: ServerProcess) -> list[str]:
    return [row["table_id"] for row in get_json(server, "/api/tables")["tables"]]


def test_the_lobby_and_each_games_table_page_show_their_tables(console: ServerProcess) -> None:
    ids = [f"console-page-{pb.Game.Name(game).lower()}" for game in GAMES]
    for table_id, game in zip(ids, GAMES, strict=True):
        Feed(console, table_id).open(game=game)
    page, kind = get_text(console, "/")
    assert kind.startswith("text/html") and '<table id="lobby"' in page
    wait_for(lambda: set(ids) <= set(lobby_ids(console)))  # the rows are a second old
    for table_id in ids:
        page, kind = get_text(console, f"/tables/{table_id}")
        assert kind.startswith("text/html")
        assert f'data-table-id="{table_id}"' in page
        assert f'data-events="/api/tables/{table_id}/events"' in page


def test_the_assets_are_served_with_their_types(console: ServerProcess) -> None:
    for path in ASSETS:
        body, kind = get_text(console, path)
        assert body
        wanted = "text/css" if path.endswith(".css") else "javascript"
        assert wanted in kind, (path, kind)


def test_no_page_or_asset_loads_anything_from_outside(console: ServerProcess) -> None:
    Feed(console, "console-closed-network").open(game=pb.GAME_BACCARAT)
    for path in ("/", "/tables/console-closed-network", *ASSETS):
        body, _ = get_text(console, path)
        assert EXTERNAL.search(body) is None, (path, EXTERNAL.search(body))


def test_a_table_id_with_markup_is_escaped_on_the_error_page(console: ServerProcess) -> None:
    markup = urllib.parse.quote("<img src=x onerror=alert(1)>", safe="")
    with pytest.raises(urllib.error.HTTPError) as caught:
        get_text(console, f"/tables/{markup}")
    assert caught.value.code == 400
    body = caught.value.read().decode()
    assert "<img" not in body
    assert "&lt;img src=x" in body
    with pytest.raises(urllib.error.HTTPError) as missing:
        get_text(console, "/tables/no-such-table")
    assert missing.value.code == 404


class Lines:
    """An event stream's non-blank lines, read as they come."""

    def __init__(
        self, server: ServerProcess, path: str, headers: dict[str, str] | None = None
    ) -> None:
        assert server.console_port is not None
        self.connection = http.client.HTTPConnection("127.0.0.1", server.console_port, timeout=10)
        self.connection.request("GET", path, headers=headers or {})
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def __iter__(self) -> Iterator[str]:
        while line := self.response.readline():
            if text := line.decode().rstrip("\n"):
                yield text

    def close(self) -> None:
        self.connection.close()


def test_the_streams_tell_the_page_when_to_reconnect_and_the_lobby_streams_rows(
    console: ServerProcess,
) -> None:
    Feed(console, "console-lobby-stream").open(game=pb.GAME_DRAGON_TIGER)
    lobby = Lines(console, "/api/lobby/events")
    try:
        lines = iter(lobby)
        assert next(lines) == "retry: 2000"
        for _ in range(3):  # the rows are a second old: the table is in the first or second
            assert next(lines) == "event: lobby"
            rows = json.loads(next(lines).removeprefix("data: "))["tables"]
            assert all("alerts" in r and "changed_at" in r for r in rows)
            if "console-lobby-stream" in {r["table_id"] for r in rows}:
                break
        else:
            raise AssertionError("the lobby's events never listed the table opened")
    finally:
        lobby.close()
    table = Lines(console, "/api/tables/console-lobby-stream/events")
    try:
        assert next(iter(table)) == "retry: 2000"
    finally:
        table.close()


def test_a_reconnecting_page_is_first_sent_the_round_results_it_missed(
    console: ServerProcess,
) -> None:
    """An EventSource reconnects with ``Last-Event-ID``: the rounds that ended since (Hi-Lo:
    each result card ends one) come first, in order, then the state as it is."""
    feed = Feed(console, "console-resume")
    feed.open(game=pb.GAME_HILO)
    for card in ("2S", "3S", "4S", "5S", "6S"):  # the opening burns
        seen = feed.expose(card).version
    rounds = [feed.expose(card, role=pb.CARD_ROLE_RESULT).version for card in ("7H", "8H", "9H")]
    later = feed.expose("TD", role=pb.CARD_ROLE_RESULT).version
    lines = Lines(console, "/api/tables/console-resume/events", {"Last-Event-ID": str(seen)})
    try:
        ids = []
        for line in lines:
            if line.startswith("id: "):
                ids.append(int(line.removeprefix("id: ")))
            if ids and ids[-1] >= later:
                break
        assert ids == [*rounds, later], ids
    finally:
        lines.close()


def test_a_shutdown_is_not_held_by_pages_that_do_not_read() -> None:
    """A lobby and a table page whose browsers read nothing: SIGTERM still stops the server
    well within its grace, and cleanly."""
    server = start_server("--console-port=0", grace=1)
    Feed(server, "console-stuck").open(game=pb.GAME_HILO)
    assert server.console_port is not None
    stuck = []
    for path in ("/api/lobby/events", "/api/tables/console-stuck/events"):
        sock = socket.create_connection(("127.0.0.1", server.console_port), timeout=10)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        stuck.append(sock)
    try:
        started = time.monotonic()
        assert server.stop() == 0, server.log()
        took = time.monotonic() - started
        assert took < 5, f"stopped after {took:.1f} s, grace 1 s"
        assert "Traceback" not in server.log(), server.log()
    finally:
        for sock in stuck:
            sock.close()


@pytest.mark.parametrize("last", ["99999999999999999999999", "-7", "not a number", ""])
def test_a_last_event_id_the_table_never_had_starts_from_the_state_as_it_is(
    console: ServerProcess, last: str
) -> None:
    table_id = f"console-odd-resume-{len(last)}"
    feed = Feed(console, table_id)
    feed.open(game=pb.GAME_HILO)
    latest = feed.expose("2S").version
    lines = Lines(console, f"/api/tables/{table_id}/events", {"Last-Event-ID": last})
    try:
        first = next(line for line in lines if line.startswith("id: "))
        assert first == f"id: {latest}", first
    finally:
        lines.close()
