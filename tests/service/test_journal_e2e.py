"""What an operator meets of the journal, through real server processes and the console
script: a restart under a watching ``pricing watch``, start-up guards, recovery gating health,
retention into the archive, and export/replay reproducing the prices of any version."""

from __future__ import annotations

import asyncio
import io
import json
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing import cli
from pricing.cards import DECK
from pricing.cli.format import watch_header
from pricing.cli.journal import ROUNDS_HEADER
from pricing.games.events import CardRole, ExposeCard
from pricing.journal.sqlite import SqliteJournal
from pricing.journal.sqlite_schema import SCHEMA_VERSION
from pricing.server.store import TableStore
from pricing.tables import Game, TableConfig
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.service.test_durability_e2e import free_port, restart
from tests.support import ROOT
from tests.support.server import Watcher, start_server
from tests.support.wire import Feed, metric, wait_for

pytestmark = pytest.mark.timeout(120)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def test_watch_reconnects_across_a_restart_and_resumes_without_a_gap() -> None:
    server = start_server(f"--port={free_port()}")
    feed = Feed(server, "w")
    feed.open()
    lines: list[str] = []
    seen = threading.Semaphore(0)

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            for line in text.splitlines():
                if line:
                    lines.append(line)
                    seen.release()
            return len(text)

    result: list[int] = []
    watcher = threading.Thread(
        target=lambda: result.append(cli.main(["watch", "w", "--server", server.target], Out())),
        daemon=True,
    )
    watcher.start()
    for card in ["2S", "3S"]:
        feed.expose(card)
    while not any(line.startswith("v3 ") for line in lines):
        assert seen.acquire(timeout=10)
    server = restart(server)  # kill -9 under the watcher
    # A channel of its own: the watcher's reconnecting channel to this address may be in
    # backoff, and channels share subchannels by default.
    own = server.channel([("grpc.use_local_subchannel_pool", 1)])
    feed.server, feed.stub = server, pb_grpc.DealerServiceStub(own)
    deadline = time.monotonic() + 20
    while metric(server, "pricing_watchers") < 1:  # the watcher is back (its backoff ≤ 1 s)
        assert time.monotonic() < deadline, lines
        time.sleep(0.05)
    for card in ["4S", "5S", "6S"]:
        feed.expose(card)
    feed.close()
    watcher.join(30)
    assert result == [0], lines
    versions = [int(m.group(1)) for line in lines if (m := re.match(r"^v(\d+) ", line))]
    # From its first state on: every version once, in order, none lost across the restart.
    assert versions[0] <= 3 and versions == list(range(versions[0], 8)), lines
    said = [line for line in lines if "reconnecting" in line]
    assert len(said) == 1 and "UNAVAILABLE" in said[0] and "from version 4" in said[0], lines
    assert lines[-1] == "table 'w' closed"
    assert server.stop() == 0, server.log()


def _start_fails(data_dir: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--port=0", "--metrics-port=0",
         f"--data-dir={data_dir}"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert '"ready"' not in done.stdout
    return done.stderr


def test_a_journal_it_cannot_use_stops_the_start_with_a_message(tmp_path: Path) -> None:
    newer = tmp_path / "newer"
    asyncio.run(SqliteJournal(newer).close())
    conn = sqlite3.connect(newer / "journal.sqlite3")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.close()
    err = _start_fails(newer)
    assert str(newer / "journal.sqlite3") in err
    assert f"version {SCHEMA_VERSION + 3}" in err and f"version {SCHEMA_VERSION}" in err

    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "journal.sqlite3").write_bytes(b"\x00garbage" * 1000)
    assert "is not a readable journal" in _start_fails(garbage)


def test_health_is_not_serving_until_every_table_is_recovered(tmp_path: Path) -> None:
    async def fill() -> None:
        store = TableStore(SqliteJournal(tmp_path), snapshot_every=10**6)  # no snapshots
        for t in range(150):
            await store.open(f"r{t}", TableConfig(Game.HILO))
            for seq, card in enumerate(DECK[:40], start=1):
                await store.apply(f"r{t}", seq, ExposeCard(card, CardRole.BURN))
        await store.journal.close()

    asyncio.run(fill())
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "server.py"), f"--port={port}", "--metrics-port=0",
         f"--data-dir={tmp_path}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    statuses: list[int] = []
    refused = 0
    try:
        fast_reconnect = [  # the port opens a moment after exec: retry it within 50 ms
            ("grpc.initial_reconnect_backoff_ms", 20),
            ("grpc.min_reconnect_backoff_ms", 20),
            ("grpc.max_reconnect_backoff_ms", 50),
        ]
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=fast_reconnect) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            get = channel.unary_unary(
                "/pricing.v1.PricingService/GetTable",
                request_serializer=pb.GetTableRequest.SerializeToString,
                response_deserializer=pb.TableState.FromString,
            )
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    status = health.Check(health_pb2.HealthCheckRequest(), timeout=1).status
                except grpc.RpcError:
                    continue  # not listening yet
                if not statuses or statuses[-1] != status:
                    statuses.append(status)
                if status == health_pb2.HealthCheckResponse.NOT_SERVING:
                    try:  # recovering: refused; or done a moment before health says so
                        state = get(pb.GetTableRequest(table_id="r149"), timeout=5)
                        assert state.version == 41, state
                    except grpc.RpcError as exc:
                        assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc.details()
                        assert "rebuilding its tables" in (exc.details() or "")
                        refused += 1
                    lobby = channel.unary_unary(
                        "/pricing.v1.PricingService/ListTables",
                        request_serializer=pb.ListTablesRequest.SerializeToString,
                        response_deserializer=pb.ListTablesResponse.FromString,
                    )
                    try:  # never a partial lobby
                        assert len(lobby(pb.ListTablesRequest(), timeout=5).tables) == 150
                    except grpc.RpcError as exc:
                        assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc.details()
                if status == health_pb2.HealthCheckResponse.SERVING:
                    state = get(pb.GetTableRequest(table_id="r149"))
                    assert state.version == 41 and len(state.exposed) == 40
                    break
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert statuses == [
        health_pb2.HealthCheckResponse.NOT_SERVING,
        health_pb2.HealthCheckResponse.SERVING,
    ]
    assert refused > 0


def check_replay(path: Path, states: dict[int, pb.TableState]) -> None:
    """``journal replay`` of table arch's export: each round under its header, then the final
    state (the bets named) and the state at any version, as its watchers were sent them."""
    code, replayed = run("journal", "replay", str(path))
    assert code == 0
    shown = replayed.splitlines()
    assert shown[:5] == [
        *ROUNDS_HEADER,
        "v7     1      1    KH",
        "v8     2      2    2C",
        "v9     3      3    7D",
    ]
    assert shown[5].split() == ["v10", "4", "4", "void"]
    final = states[11]
    assert shown[-4:] == [
        "# the final state, version 11",
        *watch_header(final, round_lines=False),
        cli.format_state(final),
    ]
    assert shown[-2].split()[-5:] == ["LOW", "HIGH", "ODD", "EVEN", "SEVEN"]  # the bets named
    for version in (6, 8):  # any version's prices, as the watchers were sent them
        code, at = run("journal", "replay", str(path), "--at-version", str(version))
        assert code == 0
        assert at.splitlines() == [
            *watch_header(states[version], round_lines=False),
            cli.format_state(states[version]),
        ]


def test_retention_archives_a_closed_table_and_export_replay_reproduce_it() -> None:
    server = start_server("--closed-retention=1s")
    assert server.data_dir is not None
    feed = Feed(server, "arch")
    feed.open()
    watcher = Watcher(server.pricing(), "arch")
    first = watcher.next()  # subscribed before the first event
    states = {first.version: first}

    def sent(state: pb.TableState) -> None:
        # Read before the next event goes: a watcher behind is sent only the newest state.
        states[state.version] = watcher.until(state.version)

    for card in ["2S", "3S", "4S", "5S", "6S"]:
        sent(feed.expose(card))
    for card in ["KH", "2C", "7D"]:
        sent(feed.expose(card, pb.CARD_ROLE_RESULT))
    sent(feed.void())
    sent(feed.close())
    assert sorted(states) == list(range(1, 12)) and watcher.end() == grpc.StatusCode.OK

    # While it is retained: export from the live journal (read-only, the server running).
    code, exported = run("journal", "export", "arch", "--data-dir", str(server.data_dir))
    assert code == 0
    lines = exported.splitlines()
    assert len(lines) == 11
    first, card = json.loads(lines[0]), json.loads(lines[6])
    assert first["event"]["OpenTable"]["game"] == "GAME_HILO" and first["version"] == 1
    assert (card["seq"], card["version"], card["event"]) == (
        6,
        7,
        {"ExposeCard": {"card": "KH", "role": "CARD_ROLE_RESULT"}},
    )
    assert card["accepted_at"].endswith("Z")

    read = server.pricing()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # retention is time itself: poll for its end
        try:
            read.GetTable(pb.GetTableRequest(table_id="arch"))
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.NOT_FOUND
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the closed table was not moved out after its retention")
    # Out of memory comes first, then the journal's commit of the forget, then its log line.
    wait_for(lambda: "left the journal" in server.log(), what="the journal's forget logged")

    # Gone from the journal: export reads the archive, the same lines.
    code, archived = run("journal", "export", "arch", "--data-dir", str(server.data_dir))
    assert (code, archived) == (0, exported)
    path = server.data_dir / "arch.jsonl"
    path.write_text(archived)
    check_replay(path, states)
    code, _ = run("journal", "replay", str(path), "--at-version", "99")
    assert code == 1
    assert server.stop() == 0, server.log()


def test_replay_names_the_line_that_is_not_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    line = {"table_id": "x", "seq": 1, "version": 2, "accepted_at": "2026-01-01T00:00:00Z"}
    bad.write_text(json.dumps({**line, "event": {"NewShoe": {}}}) + "\n")
    code, _ = run("journal", "replay", str(bad))
    assert code == 2
    assert "line 1" in capsys.readouterr().err
    code, _ = run("journal", "export", "nope", "--data-dir", str(tmp_path))
    assert code == 1
    assert "no journal at" in capsys.readouterr().err


def test_tables_opening_and_closing_for_weeks_keep_memory_and_journal_bounded() -> None:
    server = start_server("--closed-retention=0s")
    assert server.data_dir is not None
    dealer, read = server.dealer(), server.pricing()
    for t in range(200):
        dealer.OpenTable(pb.OpenTableRequest(table_id=f"day-{t}", game=pb.GAME_HILO))
        dealer.ExposeCard(
            pb.ExposeCardRequest(table_id=f"day-{t}", seq=1, card="2S", role=pb.CARD_ROLE_BURN)
        )
        dealer.CloseTable(pb.CloseTableRequest(table_id=f"day-{t}", seq=2))
    deadline = time.monotonic() + 30
    while read.ListTables(pb.ListTablesRequest()).tables:  # each leaves once swept
        assert time.monotonic() < deadline, "closed tables were not moved out"
        time.sleep(0.05)
    conn = sqlite3.connect(f"file:{server.data_dir / 'journal.sqlite3'}?mode=ro", uri=True)
    counts = [
        conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("tables", "events", "images")
    ]
    conn.close()
    assert counts == [0, 0, 0]
    assert len(list((server.data_dir / "archive").glob("day-*.jsonl.gz"))) == 200
    assert metric(server, "pricing_tables") == 0
    assert server.stop() == 0, server.log()
