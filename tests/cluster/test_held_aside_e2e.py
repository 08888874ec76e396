"""Tables a newer build of the service wrote are held aside by a replica on the JetStream
journal, with a real ``nats-server`` and a real server process: found in the stream at start-up,
and appended by a newer replica while it runs. The replica serves every other table and stays
healthy, answers calls naming those FAILED_PRECONDITION, names each once in its log, counts
them, and leaves their messages in the stream as they are."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.cards import DECK
from pricing.games.events import CardRole, ExposeCard
from pricing.journal.jetstream import JetStreamJournal
from pricing.journal.jetstream_admin import subject_token
from pricing.server.store import TableStore
from pricing.tables import Game, TableConfig
from pricing.v1 import pricing_pb2 as pb
from tests.support.natsserver import NatsServer, nats_server
from tests.support.newer_build import NEWER
from tests.support.server import start_server
from tests.support.wire import expect_error, metric, wait_for

pytestmark = pytest.mark.timeout(60)

MESSAGE = "was written by a newer build of the service and is held aside until this replica"


@pytest.fixture(scope="module")
def nats() -> Iterator[NatsServer]:
    with nats_server() as server:
        yield server


async def publish_newer(url: str, *table_ids: str) -> None:
    """Append ``NEWER``'s ``table_ids`` to the stream as a newer replica would."""
    journal = JetStreamJournal([url])
    await journal.start()
    try:
        for table_id in table_ids:
            rows, _ = NEWER[table_id]
            for version, (kind, body) in enumerate(rows, start=1):
                headers = {
                    "Pricing-Version": str(version),
                    "Pricing-Seq": str(version - 1),
                    "Pricing-At": repr(1_764_000_000.0 + version),
                    "Pricing-Kind": kind,
                }
                subject = journal.prefix + subject_token(table_id)
                await journal.js.publish(subject, body, headers=headers)
    finally:
        await journal.close()


async def deal(url: str, table_id: str, cards: int) -> None:
    """A Hi-Lo table opened and dealt by this build, through the store."""
    store = TableStore(JetStreamJournal([url]))
    await store.journal.start()
    await store.open(table_id, TableConfig(Game.HILO))
    for seq in range(1, cards + 1):
        await store.apply(table_id, seq, ExposeCard(DECK[seq], CardRole.BURN))
    await store.close()


async def stored(url: str, table_ids: list[str]) -> dict[str, list[object]]:
    """Every message the stream holds of ``table_ids``, as it holds it."""
    journal = JetStreamJournal([url])
    await journal.start()
    try:
        out: dict[str, list[object]] = {}
        for table_id in table_ids:
            subject = journal.prefix + subject_token(table_id)
            messages = await journal._read(journal.stream, subject)
            out[table_id] = [(m.metadata.sequence.stream, m.data, m.headers) for m in messages]
        return out
    finally:
        await journal.close()


def test_a_replica_holds_aside_what_a_newer_build_wrote_and_serves_the_rest(
    nats: NatsServer,
) -> None:
    asyncio.run(deal(nats.url, "a", 6))
    asyncio.run(publish_newer(nats.url, "new-game"))
    server = start_server(f"--journal={nats.url}", "--max-lag=0.5")
    try:
        pricing = server.pricing()
        assert pricing.GetTable(pb.GetTableRequest(table_id="a")).version == 7
        expect_error(
            lambda: pricing.GetTable(pb.GetTableRequest(table_id="new-game")),
            grpc.StatusCode.FAILED_PRECONDITION,
            MESSAGE,
            NEWER["new-game"][1],
        )
        assert metric(server, "pricing_tables_held_aside") == 1

        # A newer replica opens a table while this one runs: held aside as it is followed,
        # the replica healthy all the while (it never waits to fold what it cannot).
        asyncio.run(publish_newer(nats.url, "new-rules", "new-kind"))
        wait_for(
            lambda: metric(server, "pricing_tables_held_aside") == len(NEWER),
            what="the tables appended by a newer replica held aside",
        )
        for table_id in ("new-rules", "new-kind"):
            expect_error(
                lambda t=table_id: server.dealer().OpenTable(
                    pb.OpenTableRequest(table_id=t, game=pb.GAME_HILO)
                ),
                grpc.StatusCode.FAILED_PRECONDITION,
                MESSAGE,
            )
        health = health_pb2_grpc.HealthStub(server.channel())
        assert health.Check(health_pb2.HealthCheckRequest()).status == (
            health_pb2.HealthCheckResponse.SERVING
        )
        card = pb.ExposeCardRequest(table_id="a", seq=7, card=str(DECK[30]), role=pb.CARD_ROLE_BURN)
        assert server.dealer().ExposeCard(card).version == 8
        before = asyncio.run(stored(nats.url, sorted(NEWER)))
        assert all(len(before[t]) == len(NEWER[t][0]) for t in NEWER), before
    finally:
        assert server.stop() == 0, server.log()
    log = server.log()
    for table_id, (_, why) in NEWER.items():
        lines = [line for line in log.splitlines() if f"table {table_id!r} is held aside" in line]
        assert len(lines) == 1 and why in lines[0], log
    assert "a message of" not in log, "a newer build's message was logged as damage"
    assert asyncio.run(stored(nats.url, sorted(NEWER))) == before
