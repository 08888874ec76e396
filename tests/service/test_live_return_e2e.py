"""The live return as metrics, on a real server: a Hi-Lo table dealt decks with the sevens
taken out (48 cards, priced as 52: SEVEN never wins) shows ``pricing_live_return_z`` for SEVEN
past -4 within 500 rounds (LOW, HIGH, ODD and EVEN drift the other way, more slowly: the
sevens they are priced to lose to never come); a server killed and started again on its
journal shows the same figures, to the last digit, and they are the exact report's; closed,
the table's series are gone."""

from __future__ import annotations

import signal

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pricing.analysis.live import live_stats
from pricing.cards import Rank
from pricing.games.events import ExposeCard
from pricing.journal.tools import export_records
from pricing.tables import FeedEvent
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number
from tests.support.live_feeds import hilo_feed
from tests.support.server import ServerProcess, start_server
from tests.support.wire import FeedStream, event, scraped

pytestmark = pytest.mark.slow

TABLE = "short-deck"
SHORT = hilo_feed(50, seed=31, without=[Rank.SEVEN])  # 500 rounds
BETS = ("LOW", "HIGH", "ODD", "EVEN", "SEVEN")
#: Decks fed between two scrapes.
CHUNK = 5


def request(seq: int, feed_event: FeedEvent) -> pb.FeedRequest:
    if isinstance(feed_event, ExposeCard):
        role = enum_number(pb.CardRole, feed_event.role.name)
        return event(TABLE, seq, "expose_card", str(feed_event.card), role)
    return event(TABLE, seq, {"NewShoe": "new_shoe", "VoidRound": "void_round"}[
        type(feed_event).__name__
    ])  # fmt: skip


def send(server: ServerProcess, events: list[FeedEvent], first_seq: int) -> None:
    """``events`` on one Feed stream, all sent before any answer is read."""
    stream = FeedStream(server.dealer())
    for seq, feed_event in enumerate(events, start=first_seq):
        stream.send(request(seq, feed_event))
    for _ in events:
        stream.answer()
    stream.done()


def figures(server: ServerProcess, rounds: int) -> dict[str, tuple[float, float]]:
    """Each bet's (z, rounds), from the first page that shows ``rounds`` rounds of SEVEN
    (offered every round: the table believes four sevens are always left)."""

    def read() -> dict[str, tuple[float, float]]:
        found: dict[str, dict[str, float]] = {"z": {}, "rounds": {}}
        for family in text_string_to_metric_families(server.metrics_text()):
            if family.name in ("pricing_live_return_z", "pricing_live_return_rounds"):
                for sample in family.samples:
                    if sample.labels["table_id"] == TABLE:
                        kind = family.name.rsplit("_", 1)[1]
                        found[kind][sample.labels["bet"]] = sample.value
        return {bet: (found["z"].get(bet, 0.0), found["rounds"].get(bet, 0.0)) for bet in BETS}

    return scraped(read, lambda now: now["SEVEN"][1] == rounds)


def decks(events: list[FeedEvent]) -> list[list[FeedEvent]]:
    """The feed cut before each NewShoe."""
    cut = [i for i, e in enumerate(events) if type(e).__name__ == "NewShoe"]
    return [events[a:b] for a, b in zip([0, *cut], [*cut, len(events)], strict=True)]


def test_a_short_deck_shows_in_seven_z_within_500_rounds_and_survives_a_restart() -> None:
    server = start_server()
    assert server.data_dir is not None
    server.dealer().OpenTable(pb.OpenTableRequest(table_id=TABLE, game=pb.GAME_HILO))
    seq = rounds = 0
    crossed: int | None = None
    shoes = decks(SHORT.events)
    for start in range(0, len(shoes), CHUNK):
        events = [e for shoe in shoes[start : start + CHUNK] for e in shoe]
        send(server, events, seq + 1)
        seq += len(events)
        rounds += sum(isinstance(e, ExposeCard) and e.role.name == "RESULT" for e in events)
        now = figures(server, rounds)
        if crossed is None and now["SEVEN"][0] <= -4:
            crossed = rounds
    assert rounds == 500 and crossed is not None and crossed <= 500, (crossed, now)

    # Killed: no clean shutdown, so the table comes back from an image mid-deck and the
    # records after it, folded again.
    assert server.stop(signal.SIGKILL) == -signal.SIGKILL
    again = start_server(data_dir=server.data_dir)
    try:
        assert figures(again, rounds) == now
        closed = pb.CloseTableRequest(table_id=TABLE, seq=seq + 1)
        again.dealer().CloseTable(closed)  # a closed table's series go with it
        gone = scraped(lambda: TABLE in again.metrics_text(), lambda held: not held)
        assert not gone
    finally:
        assert again.stop() == 0, again.log()
    exact = live_stats([export_records(server.data_dir, TABLE)])
    for bet, (z, n) in now.items():
        assert n == exact.bets[bet].stakes
        assert z == pytest.approx(exact.bets[bet].z, rel=1e-9)
