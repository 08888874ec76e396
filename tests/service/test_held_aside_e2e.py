"""Tables a newer build of the service wrote are held aside, with a real journal file and a real
server process: a Hi-Lo journal given tables whose opening names a game no build serves, whose
rules carry a field this build does not have, or with an event of a kind it does not know (the
bytes a newer build would write). The server serves every other table, answers calls naming
those FAILED_PRECONDITION, names each once in its log, counts them, and leaves their rows as
they are; ``pricing journal check`` names them and exits 0, ``salvage`` copies them as they
are, ``export`` says why it does not export one."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.cards import DECK
from pricing.client import error_details
from pricing.games.events import CardRole, ExposeCard
from pricing.journal.sqlite import SqliteJournal
from pricing.journal.sqlite_schema import FILE_NAME
from pricing.server.store import TableStore
from pricing.tables import Game, TableConfig
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_journal_damage_e2e import run
from tests.support.newer_build import NEWER
from tests.support.server import start_server
from tests.support.wire import expect_error, metric

pytestmark = pytest.mark.timeout(60)

#: The tables this build wrote: each one's count of burnt cards.
SERVED = {"a": 9, "b": 2}


def journal_with_newer_tables(data: Path) -> None:
    """``SERVED`` dealt by this build (in process, on the real journal file), then ``NEWER``'s
    tables written into the file as a newer build would have."""

    async def deal() -> None:
        store = TableStore(SqliteJournal(data), snapshot_every=4)
        for table_id, cards in SERVED.items():
            await store.open(table_id, TableConfig(Game.HILO))
            for seq in range(1, cards + 1):
                await store.apply(table_id, seq, ExposeCard(DECK[seq], CardRole.BURN))
        await store.close()

    asyncio.run(deal())
    conn = sqlite3.connect(data / FILE_NAME)
    with conn:
        for table_id, (rows, _) in NEWER.items():
            conn.execute("INSERT INTO tables (table_id) VALUES (?)", (table_id,))
            for version, (kind, body) in enumerate(rows, start=1):
                conn.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                    (table_id, version, version - 1, 1_764_000_000.0 + version, kind, body),
                )
    conn.close()


def rows_of(data: Path, tables: list[str]) -> list[object]:
    """Every row the journal holds of ``tables``."""
    conn = sqlite3.connect(data / FILE_NAME)
    marks = ", ".join("?" * len(tables))
    try:
        return [
            sorted(conn.execute(f"SELECT * FROM {name} WHERE table_id IN ({marks})", tables))
            for name in ("tables", "events", "images")
        ]
    finally:
        conn.close()


def test_tables_a_newer_build_wrote_are_held_aside_and_the_others_serve(tmp_path: Path) -> None:
    data = tmp_path / "data"
    journal_with_newer_tables(data)
    held = sorted(NEWER)
    before = rows_of(data, held)

    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 0, out
    for table_id, (rows, why) in NEWER.items():
        line = next(line for line in out.splitlines() if line.startswith(f"table {table_id!r}: W"))
        assert "WRITTEN BY A NEWER BUILD" in line and why in line, line
        assert f"table {table_id!r}: whole, versions 1-{len(rows)}" in out, out
    assert out.splitlines()[-1] == "5 table(s), 0 damaged, 3 written by a newer build (not damage)"
    code, out, err = run("journal", "export", "new-game", "--data-dir", str(data))
    assert (code, out) == (1, "")
    assert "written by a newer build of the service" in err and "a build as new" in err, err
    salvaged = tmp_path / "salvaged"  # not damage: salvage copies them as they are
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0 and "salvaged 5 table(s)" in out, out
    assert rows_of(salvaged, held) == before

    # Retention sweeps often, and snapshots every 2 events: neither touches a table held aside.
    server = start_server("--closed-retention=0.2", "--snapshot-every=2", data_dir=data)
    try:
        health = health_pb2_grpc.HealthStub(server.channel())
        assert health.Check(health_pb2.HealthCheckRequest()).status == (
            health_pb2.HealthCheckResponse.SERVING
        )
        pricing, dealer = server.pricing(), server.dealer()
        for table_id, cards in SERVED.items():
            state = pricing.GetTable(pb.GetTableRequest(table_id=table_id))
            assert (state.version, state.last_seq) == (cards + 1, cards)
        card = pb.ExposeCardRequest(
            table_id="a", seq=10, card=str(DECK[30]), role=pb.CARD_ROLE_BURN
        )
        assert dealer.ExposeCard(card).version == 11  # the others take writes as ever

        refused = grpc.StatusCode.FAILED_PRECONDITION
        message = "was written by a newer build of the service and is held aside until this"
        for table_id, (_, why) in NEWER.items():
            err = expect_error(
                lambda t=table_id: pricing.GetTable(pb.GetTableRequest(table_id=t)),
                refused,
                f"table {table_id!r} {message} replica is upgraded",
                why,
            )
            details = error_details(err)
            assert details.reason == "TABLE_HELD_ASIDE"
            assert details.metadata["table_id"] == table_id and why in details.metadata["why"]
            calls = [
                lambda t=table_id: dealer.OpenTable(
                    pb.OpenTableRequest(table_id=t, game=pb.GAME_HILO)
                ),
                lambda t=table_id: dealer.ExposeCard(
                    pb.ExposeCardRequest(table_id=t, seq=9, card="2S", role=pb.CARD_ROLE_BURN)
                ),
                lambda t=table_id: pricing.Settle(
                    pb.SettleRequest(table_id=t, round_id=1, version=2, bet="HIGH", stake_cents=1)
                ),
                lambda t=table_id: next(pricing.WatchTable(pb.WatchTableRequest(table_id=t))),
            ]
            for call in calls:
                expect_error(call, refused, message)
        listed = pricing.ListTables(pb.ListTablesRequest())
        assert [t.table_id for t in listed.tables] == sorted(SERVED)
        assert metric(server, "pricing_tables_held_aside") == len(NEWER)
    finally:
        assert server.stop() == 0, server.log()
    log = server.log()
    for table_id, (_, why) in NEWER.items():
        lines = [line for line in log.splitlines() if f"table {table_id!r} is held aside" in line]
        assert len(lines) == 1, log
        assert "WARNING" in lines[0] and "a newer build of the service wrote it" in lines[0]
        assert why in lines[0], lines[0]
    assert "3 table(s) held aside, written by a newer build" in log, log
    assert rows_of(data, held) == before, "the journal of a table held aside was written"
