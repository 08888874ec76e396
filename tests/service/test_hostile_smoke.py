"""The hostile-reader check's path in miniature (``make hostile`` runs it under load:
``bench/hostile.py``): a real server takes a unary dealer feed on a Higher/Lower table while
a couple of each expensive read runs beside it: Quotes with the player edge of an 8-deck
shoe, Analyze reports (blackjack, depleting Higher/Lower) and 1,000-leg positions on the
feed's own table. Only function is checked, no timing: every feed event is accepted, and
every read is answered, or refused for the load it makes (RESOURCE_EXHAUSTED,
DEADLINE_EXCEEDED), never with INTERNAL or any other status."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import grpc
import pytest
from google.protobuf.message import Message

from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.hostile import (
    HigherLowerDealer,
    Readers,
    Tally,
    blackjack_report,
    channel,
    edge_quotes,
    higher_lower_report,
    position_request,
    read,
    streamed,
)
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(60)

LEGS = 1000
CALLS = 2  # each reader's
FEED_EVENTS = 200  # at most: the feed goes on while the reads do
#: What a read may get under load, besides its answer.
LOAD_REFUSALS = {"RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"}


async def deal_rounds(target: str, dealer: HigherLowerDealer, results: int) -> None:
    async with channel(target) as chan:
        stub = pb_grpc.DealerServiceStub(chan)
        await stub.OpenTable(dealer.open_request())
        events = [pb.FeedRequest(expose_card=dealer.fresh()) for _ in range(results)]
        for state in await streamed(stub, events):
            dealer.answered(state)


def loads(target: str, dealer: HigherLowerDealer) -> list[Readers]:
    """Two readers of each kind, each making CALLS calls; the reports small enough to finish in
    a test (the same calls as the load test's, with fewer simulated shoes and decks)."""
    position = position_request(dealer.table_id, dealer.legs[:LEGS])
    kinds: dict[str, Sequence[Message]] = {
        "Quote": edge_quotes(2),
        "Analyze": [blackjack_report(seed=1, shoes=10), higher_lower_report(decks=2)],
        "SettlePosition": [position],
    }
    return [
        Readers(
            method,
            target,
            tuple(r.SerializeToString() for r in requests),
            concurrent=2,
            deadline=30,
            calls=CALLS,
            seconds=30,
            channels=2,
        )
        for method, requests in kinds.items()
    ]


async def feed_while(
    target: str, dealer: HigherLowerDealer, reading: asyncio.Future[list[Tally]]
) -> list[str]:
    """Unary ExposeCard calls, one after another until the reads are done: each call's status."""
    codes: list[str] = []
    async with channel(target) as chan:
        stub = pb_grpc.DealerServiceStub(chan)
        while not reading.done() and len(codes) < FEED_EVENTS:
            try:
                dealer.answered(await stub.ExposeCard(dealer.next_event(), timeout=30))
                codes.append("OK")
            except grpc.aio.AioRpcError as err:
                codes.append(err.code().name)
    return codes


async def hostile(target: str, dealer: HigherLowerDealer) -> tuple[list[str], list[Tally]]:
    stop = asyncio.Event()
    reading = asyncio.gather(*(read(load, stop) for load in loads(target, dealer)))
    codes = await feed_while(target, dealer, reading)
    return codes, await reading


def test_the_feed_is_accepted_while_every_expensive_read_runs(server: ServerProcess) -> None:
    dealer = HigherLowerDealer("hostile-smoke")
    asyncio.run(deal_rounds(server.target, dealer, LEGS + 1))
    assert len(dealer.legs) == LEGS
    codes, tallies = asyncio.run(hostile(server.target, dealer))
    assert codes and set(codes) == {"OK"}, codes
    for tally in tallies:
        assert sum(tally.codes.values()) == 2 * CALLS, tally
        assert set(tally.codes) <= {"OK", *LOAD_REFUSALS}, tally
