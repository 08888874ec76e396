"""Refusals carry a google.rpc.Status in the grpc-status-details-bin trailer (ErrorInfo with a
stable reason and its values, BadRequest, PreconditionFailure, ResourceInfo, QuotaFailure),
against the real server: read from the raw trailer, and through the Python client's
attributes (``err.reason``, ``err.metadata``, ``err.field_violations``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from pricing.client import AsyncPricingClient, PricingClient, error_details
from pricing.server.status import REASONS
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.service.test_service_e2e import play_decks
from tests.support import ROOT
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import Feed, FeedStream, event

pytestmark = pytest.mark.timeout(120)


def raw_status(err: grpc.RpcError) -> status_pb2.Status:
    """The google.rpc.Status of ``err``, decoded from its raw trailer: the call's own code and
    message."""
    trailer = [v for k, v in err.trailing_metadata() or () if k == "grpc-status-details-bin"]
    assert len(trailer) == 1, err.trailing_metadata()
    status = status_pb2.Status.FromString(trailer[0])
    assert (status.code, status.message) == (err.code().value[0], err.details())
    return status


def detail(status: status_pb2.Status, kind: type[Any]) -> Any:
    found = []
    for packed in status.details:
        message = kind()
        if packed.Unpack(message):
            found.append(message)
    assert len(found) == 1, (kind.__name__, status)
    return found[0]


def info_of(err: grpc.RpcError) -> tuple[str, dict[str, str]]:
    """The raw trailer's ErrorInfo: its reason and metadata (its domain checked)."""
    info = detail(raw_status(err), error_details_pb2.ErrorInfo)
    assert info.domain == "pricing.v1"
    return info.reason, dict(info.metadata)


def refused(call: Callable[[], object], code: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    assert info.value.code() == code, info.value.details()
    return info.value


def by_client(err: grpc.RpcError) -> tuple[str, dict[str, str]]:
    """What the Python client's error says: its attributes, the same as ``error_details``."""
    reason, metadata = err.reason, dict(err.metadata)  # type: ignore[attr-defined]
    details = error_details(err)
    assert (details.reason, dict(details.metadata)) == (reason, metadata)
    return reason, metadata


@pytest.fixture
def client(server: ServerProcess) -> Any:
    with PricingClient(server.target, timeout=10) as client:
        yield client


def opened(server: ServerProcess, table_id: str, *cards: str) -> Feed:
    feed = Feed(server, table_id)
    feed.open()
    for card in cards:
        feed.expose(card)
    return feed


def expose(feed: Feed, seq: int, card: str) -> Callable[[], Message]:
    request = pb.ExposeCardRequest(
        table_id=feed.table_id, seq=seq, card=card, role=pb.CARD_ROLE_BURN
    )
    return lambda: feed.stub.ExposeCard(request)


def test_a_seq_gap_says_the_seq_expected(server: ServerProcess, table_id: str, client: Any) -> None:
    feed = opened(server, table_id, "2S")
    err = refused(expose(feed, 3, "3S"), grpc.StatusCode.FAILED_PRECONDITION)
    values = {"table_id": table_id, "seq": "3", "expected_seq": "2", "last_seq": "1"}
    assert info_of(err) == ("SEQ_GAP", values)
    violation = detail(raw_status(err), error_details_pb2.PreconditionFailure).violations[0]
    assert (violation.type, violation.subject) == ("SEQ_GAP", table_id)

    mine = refused(lambda: client.expose_card(table_id, 3, "3S", "BURN"), err.code())
    assert by_client(mine) == ("SEQ_GAP", values)


def test_a_seq_gap_on_a_feed_stream_keeps_its_details(server: ServerProcess, table_id: str) -> None:
    opened(server, table_id, "2S")
    stream = FeedStream(server.dealer())
    stream.send(event(table_id, 5, "expose_card", "3S", pb.CARD_ROLE_BURN))
    err = refused(stream.answer, grpc.StatusCode.FAILED_PRECONDITION)
    assert info_of(err)[1]["expected_seq"] == "2"

    async def on_the_asyncio_client() -> tuple[str, dict[str, str]]:
        async with AsyncPricingClient(server.target) as client:
            feed = client.feed(table_id, streamed=True)
            feed.last_seq = 4  # out of step: its next event is seq 5
            with pytest.raises(grpc.RpcError) as info:
                await feed.expose("3S", "BURN")
            await feed.end_stream()
            return by_client(info.value)

    reason, metadata = asyncio.run(on_the_asyncio_client())
    assert (reason, metadata["expected_seq"], metadata["last_seq"]) == ("SEQ_GAP", "2", "1")


def test_a_seq_conflict_names_the_seq_and_the_table(
    server: ServerProcess, table_id: str, client: Any
) -> None:
    feed = opened(server, table_id, "2S")
    err = refused(expose(feed, 1, "3S"), grpc.StatusCode.ALREADY_EXISTS)
    values = {"table_id": table_id, "seq": "1", "last_seq": "1"}
    assert info_of(err) == ("SEQ_CONFLICT", values)
    resource = detail(raw_status(err), error_details_pb2.ResourceInfo)
    assert (resource.resource_type, resource.resource_name) == ("pricing.v1.TableState", table_id)

    mine = refused(lambda: client.expose_card(table_id, 1, "3S", "BURN"), err.code())
    assert by_client(mine) == ("SEQ_CONFLICT", values)


def test_an_unknown_table(server: ServerProcess, client: Any) -> None:
    get = server.pricing().GetTable
    err = refused(lambda: get(pb.GetTableRequest(table_id="ghost")), grpc.StatusCode.NOT_FOUND)
    assert info_of(err) == ("TABLE_NOT_FOUND", {"table_id": "ghost"})
    resource = detail(raw_status(err), error_details_pb2.ResourceInfo)
    assert resource.resource_name == "ghost"

    watcher = Watcher(server.pricing(), "ghost")
    assert watcher.end() == grpc.StatusCode.NOT_FOUND
    assert info_of(watcher.call) == ("TABLE_NOT_FOUND", {"table_id": "ghost"})

    mine = refused(lambda: client.get_table("ghost"), grpc.StatusCode.NOT_FOUND)
    assert by_client(mine) == ("TABLE_NOT_FOUND", {"table_id": "ghost"})
    mine = refused(lambda: next(iter(client.watch_table("ghost"))), grpc.StatusCode.NOT_FOUND)
    assert by_client(mine) == ("TABLE_NOT_FOUND", {"table_id": "ghost"})


def test_a_card_not_in_the_shoe(server: ServerProcess, table_id: str, client: Any) -> None:
    feed = opened(server, table_id, "AS")
    err = refused(expose(feed, 2, "as"), grpc.StatusCode.FAILED_PRECONDITION)
    assert info_of(err) == ("CARD_NOT_IN_SHOE", {"table_id": table_id, "card": "AS"})

    mine = refused(lambda: client.expose_card(table_id, 2, "AS", "BURN"), err.code())
    assert by_client(mine) == ("CARD_NOT_IN_SHOE", {"table_id": table_id, "card": "AS"})


def test_stale_bets(server: ServerProcess, table_id: str, client: Any) -> None:
    feed = opened(server, table_id, "7S", "7H", "7D", "7C", "2S")  # SEVEN can no longer win
    closed_at = 6
    settle = server.pricing().Settle

    def bet(name: str, round_id: int, version: int) -> Callable[[], object]:
        request = pb.SettleRequest(
            table_id=table_id, round_id=round_id, version=version, bet=name, stake_cents=100
        )
        return lambda: settle(request)

    closed = refused(bet("SEVEN", 1, closed_at), grpc.StatusCode.FAILED_PRECONDITION)
    values = {
        "table_id": table_id,
        "why": "BET_CLOSED",
        "round_id": "1",
        "version": str(closed_at),
        "bet": "SEVEN",
        "current_version": str(closed_at),
    }
    assert info_of(closed) == ("STALE_BET", values)
    mine = refused(lambda: client.settle(table_id, 1, closed_at, "seven", 100), closed.code())
    assert by_client(mine) == ("STALE_BET", values)

    feed.expose("KH", pb.CARD_ROLE_RESULT)  # round 1 ends: round 2 opens at version 7
    late = refused(bet("HIGH", 1, 7), grpc.StatusCode.FAILED_PRECONDITION)
    reason, metadata = info_of(late)
    assert (reason, metadata["why"], metadata["version"]) == ("STALE_BET", "BETTING_CLOSED", "7")

    ahead = refused(bet("HIGH", 2, 999), grpc.StatusCode.FAILED_PRECONDITION)
    assert info_of(ahead) == (
        "VERSION_NOT_REACHED",
        {"table_id": table_id, "version": "999", "current_version": "7"},
    )


@pytest.mark.parametrize(
    ("request_", "method", "field", "reason"),
    [
        (
            pb.ExposeCardRequest(table_id="t", seq=1, card="ZZ", role=pb.CARD_ROLE_BURN),
            "ExposeCard",
            "card",
            "INVALID_CARD",
        ),
        (
            pb.ExposeCardRequest(table_id="t", seq=1, card="2S", role=0),
            "ExposeCard",
            "role",
            "INVALID_ARGUMENT",
        ),
        (
            pb.ExposeCardRequest(table_id="a b", seq=1, card="2S", role=pb.CARD_ROLE_BURN),
            "ExposeCard",
            "table_id",
            "INVALID_ARGUMENT",
        ),
        (
            pb.SettleRequest(table_id="t", round_id=1, version=1, bet="HIGH", stake_cents=0),
            "Settle",
            "stake_cents",
            "INVALID_ARGUMENT",
        ),
    ],
)
def test_an_invalid_argument_names_its_field(
    server: ServerProcess, request_: Message, method: str, field: str, reason: str
) -> None:
    Feed(server, "t").open()
    stub: Any = server.dealer() if method == "ExposeCard" else server.pricing()
    err = refused(lambda: getattr(stub, method)(request_), grpc.StatusCode.INVALID_ARGUMENT)
    assert info_of(err) == (reason, {"field": field})  # a malformed card: its own reason
    violation = detail(raw_status(err), error_details_pb2.BadRequest).field_violations[0]
    assert (violation.field, violation.description) == (field, err.details())

    with PricingClient(server.target) as client:
        call = getattr(client, {"ExposeCard": "send", "Settle": "settle"}[method])
        if method == "Settle":
            mine = refused(lambda: call("t", 1, 1, "HIGH", 0), err.code())
        else:
            mine = refused(lambda: call(request_), err.code())
    assert by_client(mine) == (reason, {"field": field})
    assert [(v.field, v.description) for v in mine.field_violations] == [  # type: ignore[attr-defined]
        (field, err.details())
    ]


HL, BJ = pb.GAME_HIGHER_LOWER, pb.GAME_BLACKJACK


@pytest.mark.parametrize(
    ("request_", "reason", "field", "message"),
    [
        (pb.QuoteRequest(game=HL, base_card="10H"), "INVALID_CARD", "base_card", "no 10s"),
        (pb.QuoteRequest(game=HL, exposed=["2S", "10S"]), "INVALID_CARD", "exposed[1]", "10S"),
        (
            pb.QuoteRequest(game=BJ, player_hand=["AS", "ZZ"], dealer_up_card="5H"),
            "INVALID_CARD",
            "player_hand[1]",
            "ZZ",
        ),
        (
            pb.QuoteRequest(game=BJ, decks=1, player_hand=["AS", "AS"], dealer_up_card="5H"),
            "INVALID_ARGUMENT",
            "player_hand[1]",
            "card AS in player_hand[1] is one more than the shoe holds: a deck holds one of each",
        ),
        (
            pb.QuoteRequest(game=BJ, decks=1, player_hand=["AS", "KD"], dealer_up_card="AS"),
            "INVALID_ARGUMENT",
            "dealer_up_card",
            "card AS in dealer_up_card is one more",
        ),
        (
            pb.QuoteRequest(game=BJ, decks=2, exposed=["7C", "7C"], player_hand=["7C", "8D"],
                            dealer_up_card="5H"),
            "INVALID_ARGUMENT",
            "player_hand[0]",
            "card 7C in player_hand[0] is one more than the shoe holds: 2 decks hold 2 of each",
        ),
        (
            pb.QuoteRequest(game=HL, decks=8, exposed=["2S"] * 400),
            "INVALID_ARGUMENT",
            "exposed",
            "a quote takes at most the 384 cards of its 8-deck shoe, got 400",
        ),
    ],
    ids=["ten-base", "ten-exposed", "bad-hand-card", "hand-twice", "up-card-twice",
         "hand-thrice-in-two-decks", "over-a-48-card-shoe"],
)  # fmt: skip
def test_a_quote_names_the_field_that_holds_the_bad_card(
    server: ServerProcess, request_: pb.QuoteRequest, reason: str, field: str, message: str
) -> None:
    """Not ``exposed`` for every card: the place of the card at fault, in the request's own
    paths, with the game's own shoe (Higher/Lower's decks hold 48 cards)."""
    err = refused(lambda: server.pricing().Quote(request_), grpc.StatusCode.INVALID_ARGUMENT)
    assert message in err.details()
    assert info_of(err) == (reason, {"field": field})
    violation = detail(raw_status(err), error_details_pb2.BadRequest).field_violations[0]
    assert (violation.field, violation.reason) == (field, reason)


def _rules(message: Any, **fields: Any) -> Any:
    for path, value in fields.items():
        *parents, name = path.split("__")
        target = message
        for parent in parents:
            target = getattr(target, parent)
        setattr(target, name, value)
    return message


TOO_HIGH = 10**9 + 1
ACE_RULE = pb.PayRule(rtp_bp=9000, max_hundredths=100)


@pytest.mark.parametrize(
    ("method", "request_", "fields", "message"),
    [
        ("Quote", pb.QuoteRequest(game=HL, higher_lower=pb.HigherLowerRules(
            bets={"ACE": pb.PayRule(rtp_bp=9000, max_hundredths=TOO_HIGH)})),
         {'higher_lower.bets["ACE"].max_hundredths'},
         "paytable entry ACE: max_hundredths must be a whole number from 0 to 1000000000 (a "
         "pay of 10,000,000 : 1), got 1000000001"),
        ("OpenTable", pb.OpenTableRequest(table_id="t", game=pb.GAME_HILO, hilo=pb.HiLoRules(
            low=pb.PayRule(rtp_bp=0, max_hundredths=264))),
         {"hilo.low.rtp_bp"}, "rtp_bp must be in (0, 10000]"),
        ("Quote", pb.QuoteRequest(game=pb.GAME_GOA_GAE, goa_gae=pb.GoaGaeRules(
            bets={"nine": pb.PayRule(rtp_bp=9000, min_hundredths=500, max_hundredths=100)})),
         {'goa_gae.bets["nine"].min_hundredths'}, "min_hundredths 500 is above"),
        ("Quote", pb.QuoteRequest(game=HL, higher_lower=pb.HigherLowerRules(
            bets={"ace": ACE_RULE, "ACE": ACE_RULE})),
         {'higher_lower.bets["ace"]', 'higher_lower.bets["ACE"]'}, "send each once"),
        ("Quote", pb.QuoteRequest(game=HL, higher_lower=pb.HigherLowerRules(shuffle_mode=99)),  # type: ignore[arg-type]
         {"higher_lower.shuffle_mode"}, "unknown higher_lower.shuffle_mode 99"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=pb.BlackjackRules(shuffle_mode=99)),  # type: ignore[arg-type]
         {"blackjack.shuffle_mode"}, "unknown blackjack.shuffle_mode 99"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=pb.BlackjackRules(dealer_rule=7)),  # type: ignore[arg-type]
         {"blackjack.dealer_rule"}, "unknown blackjack.dealer_rule 7"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=_rules(
            pb.BlackjackRules(), royal_match__crown_enabled=False,
            royal_match__crown_hundredths=5)),
         {"blackjack.royal_match.crown_hundredths"}, "Crown Treasure is off"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=_rules(
            pb.BlackjackRules(), royal_match__easy_hundredths=TOO_HIGH)),
         {"blackjack.royal_match.easy_hundredths"}, "easy_hundredths must be"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=pb.BlackjackRules(
            pairs=pb.PairsPaytable(payout_hundredths={"QUADS": 5}))),
         {'blackjack.pairs.payout_hundredths["QUADS"]'}, "pairs outcome 'QUADS'"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=pb.BlackjackRules(
            pairs=pb.PairsPaytable(payout_hundredths={"perfect": TOO_HIGH}))),
         {'blackjack.pairs.payout_hundredths["perfect"]'}, "perfect_hundredths must be"),
        ("Quote", pb.QuoteRequest(game=BJ, blackjack=pb.BlackjackRules(
            pairs=pb.PairsPaytable(preset=5))),  # type: ignore[arg-type]
         {"blackjack.pairs.preset"}, "unknown blackjack.pairs.preset 5"),
        ("Analyze", pb.AnalyzeRequest(game=BJ, shoes=20_001),
         {"shoes"}, "shoes must be at most 20000, got 20001"),
    ],
    ids=["pay-rule-over-its-bound", "hilo-pay-rule", "min-above-max", "names-in-two-cases",
         "hl-shuffle-mode-99", "bj-shuffle-mode-99", "dealer-rule-7", "crown-without-crown",
         "royal-match-pay", "pairs-outcome", "pairs-pay", "pairs-preset", "analyze-shoes"],
)  # fmt: skip
def test_an_invalid_option_names_its_path_in_the_request(
    server: ServerProcess, method: str, request_: Message, fields: set[str], message: str
) -> None:
    """Every option refused carries its BadRequest: the path of the option in the request,
    down to the field of a pay rule (``hilo.low.rtp_bp``) or the key of a map entry."""
    stub: Any = server.dealer() if method == "OpenTable" else server.pricing()
    err = refused(lambda: getattr(stub, method)(request_), grpc.StatusCode.INVALID_ARGUMENT)
    assert message in err.details()
    reason, metadata = info_of(err)
    assert reason == "INVALID_OPTION" and metadata["field"] in fields, metadata
    violation = detail(raw_status(err), error_details_pb2.BadRequest).field_violations[0]
    assert violation.field == metadata["field"]


def test_a_ten_at_higher_lower_is_an_invalid_card_in_exposecard_and_quote_alike(
    server: ServerProcess, table_id: str
) -> None:
    """A card the game's deck does not have is malformed for that table, whatever its shoe
    holds: INVALID_ARGUMENT (INVALID_CARD) on the feed, as in a Quote."""
    feed = Feed(server, table_id)
    feed.open(game=HL)
    fed = refused(lambda: feed.expose("10S", pb.CARD_ROLE_RESULT), grpc.StatusCode.INVALID_ARGUMENT)
    quoted = refused(
        lambda: server.pricing().Quote(pb.QuoteRequest(game=HL, exposed=["10S"])),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert fed.details() == quoted.details() == "card 10S is not in this game's deck: it has no 10s"
    assert info_of(fed) == ("INVALID_CARD", {"field": "card"})
    assert info_of(quoted) == ("INVALID_CARD", {"field": "exposed[0]"})
    state = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert (state.version, state.cards_remaining) == (1, 288)  # nothing applied


@pytest.mark.parametrize(
    ("card", "table", "field"), [("ZZ", "t", "card"), ("2S", "a b", "table_id")]
)
def test_a_field_on_a_feed_stream_is_named_by_its_path_in_the_feed_request(
    server: ServerProcess, card: str, table: str, field: str
) -> None:
    Feed(server, "t").open()
    stream = FeedStream(server.dealer())
    stream.send(event(table, 1, "expose_card", card, pb.CARD_ROLE_BURN))
    err = refused(stream.answer, grpc.StatusCode.INVALID_ARGUMENT)
    assert info_of(err)[1] == {"field": f"expose_card.{field}"}
    violation = detail(raw_status(err), error_details_pb2.BadRequest).field_violations[0]
    assert violation.field == f"expose_card.{field}"


# ---- every limit --------------------------------------------------------------------------


def limit_of(err: grpc.RpcError, limit: str, value: str) -> dict[str, str]:
    reason, metadata = info_of(err)
    assert reason == "LIMIT_EXCEEDED"
    assert (metadata["limit"], metadata["value"]) == (limit, value)
    quota = detail(raw_status(err), error_details_pb2.QuotaFailure).violations[0]
    assert quota.subject == f"--{limit}"
    return metadata


def test_max_tables() -> None:
    server = start_server("--max-tables=1")
    try:
        Feed(server, "a").open()
        err = refused(Feed(server, "b").open, grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert limit_of(err, "max-tables", "1") == {"limit": "max-tables", "value": "1"}
        with PricingClient(server.target) as client:
            mine = refused(lambda: client.open_table("b"), err.code())
        assert by_client(mine) == ("LIMIT_EXCEEDED", {"limit": "max-tables", "value": "1"})
    finally:
        assert server.stop() == 0


def test_max_feeds() -> None:
    server = start_server("--max-feeds=1")
    try:
        dealer = server.dealer()
        for table in ("a", "b"):
            dealer.OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        first = FeedStream(dealer)
        first.send(event("a", 1, "expose_card", "2S", pb.CARD_ROLE_BURN))
        assert first.answer().last_seq == 1
        over = FeedStream(dealer)
        over.send(event("b", 1, "expose_card", "2S", pb.CARD_ROLE_BURN))
        err = refused(over.answer, grpc.StatusCode.RESOURCE_EXHAUSTED)
        limit_of(err, "max-feeds", "1")
        with PricingClient(server.target) as client:
            feed = client.feed("b", streamed=True)
            with pytest.raises(grpc.RpcError) as info:
                feed.expose("2S", "BURN")
            feed.end_stream()
        assert by_client(info.value) == ("LIMIT_EXCEEDED", {"limit": "max-feeds", "value": "1"})
        first.done()
    finally:
        assert server.stop() == 0


def test_max_watchers_in_all_and_per_table() -> None:
    server = start_server("--max-watchers=2", "--max-watchers-per-table=1")
    watchers: list[Watcher] = []
    try:
        for table in ("a", "b", "c"):
            Feed(server, table).open()
        pricing = server.pricing()
        for table in ("a", "b"):
            watchers.append(Watcher(pricing, table))
            watchers[-1].next()
        over_table = Watcher(pricing, "a")
        assert over_table.end() == grpc.StatusCode.RESOURCE_EXHAUSTED
        metadata = limit_of(over_table.call, "max-watchers-per-table", "1")
        assert metadata["table_id"] == "a"
        over_all = Watcher(pricing, "c")
        assert over_all.end() == grpc.StatusCode.RESOURCE_EXHAUSTED
        limit_of(over_all.call, "max-watchers", "2")
        with PricingClient(server.target) as client:
            mine = refused(
                lambda: next(iter(client.watch_table("c"))), grpc.StatusCode.RESOURCE_EXHAUSTED
            )
        assert by_client(mine) == ("LIMIT_EXCEEDED", {"limit": "max-watchers", "value": "2"})
    finally:
        for w in watchers:
            w.cancel()
        assert server.stop() == 0


def test_max_message_bytes() -> None:
    server = start_server("--max-message-bytes=2048")
    try:
        big = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=["10S"] * 500)
        err = refused(lambda: server.pricing().Quote(big), grpc.StatusCode.RESOURCE_EXHAUSTED)
        limit_of(err, "max-message-bytes", "2048")
        with PricingClient(server.target) as client:
            mine = refused(lambda: client.quote("BLACKJACK", ["10S"] * 500, decks=8), err.code())
        assert by_client(mine)[1] == {"limit": "max-message-bytes", "value": "2048"}
    finally:
        assert server.stop() == 0


@pytest.mark.serial
def test_max_events_per_second() -> None:
    server = start_server("--max-events-per-second=1")
    try:
        feed = opened(server, "fast", "2S")
        err = refused(expose(feed, 2, "3S"), grpc.StatusCode.RESOURCE_EXHAUSTED)
        metadata = limit_of(err, "max-events-per-second", "1.0")
        assert metadata["table_id"] == "fast"
        with PricingClient(server.target) as client:
            mine = refused(lambda: client.expose_card("fast", 2, "3S", "BURN"), err.code())
        assert by_client(mine)[1]["limit"] == "max-events-per-second"
    finally:
        assert server.stop() == 0


def test_max_round_backlog() -> None:
    server = start_server("--max-round-backlog=2")
    try:
        feed = Feed(server, "slow")
        feed.open()
        # A watcher that reads nothing, on a connection whose window does not grow: it falls
        # more than two round results behind.
        channel = server.channel(options=[("grpc.http2.bdp_probe", 0)])
        slow = pb_grpc.PricingServiceStub(channel).WatchTable(pb.WatchTableRequest(table_id="slow"))
        for send in play_decks(feed, 30, seed=7):
            send()
        feed.close()  # had it kept up, its stream would end OK here
        seen = []
        with pytest.raises(grpc.RpcError) as ended:
            for state in slow:
                seen.append(state.version)
        err = ended.value
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        metadata = limit_of(err, "max-round-backlog", "2")
        assert metadata["from_version"] == str(seen[-1] + 1)
        assert metadata["table_id"] == "slow"
    finally:
        assert server.stop() == 0


def test_refusals_of_the_interceptors_carry_their_reason_too(tmp_path: Path) -> None:
    """The roles' refusals and --max-concurrent-rpcs happen before any servicer runs: their
    trailers carry an ErrorInfo as well (the reason is the status code's name, or the limit's)."""
    (tmp_path / "dealers").write_text("d" * 24 + "\n")
    (tmp_path / "readers").write_text("r" * 24 + "\n")
    server = start_server(
        f"--dealer-tokens-file={tmp_path / 'dealers'}",
        f"--reader-tokens-file={tmp_path / 'readers'}",
    )
    try:
        open_table = pb.OpenTableRequest(table_id="t", game=pb.GAME_HILO)
        for token, code in [
            (None, grpc.StatusCode.UNAUTHENTICATED),
            ("x" * 24, grpc.StatusCode.UNAUTHENTICATED),
            ("r" * 24, grpc.StatusCode.PERMISSION_DENIED),  # a reader's token on the dealer side
        ]:
            md = () if token is None else (("authorization", f"Bearer {token}"),)
            err = refused(lambda md=md: server.dealer().OpenTable(open_table, metadata=md), code)
            assert info_of(err) == (code.name, {}), token
            assert raw_status(err).message == err.details()
    finally:
        assert server.stop() == 0


def test_the_readme_lists_every_reason() -> None:
    """The errors table, moved from the README to the page for programs that read errors."""
    readme = (ROOT / "docs" / "reference" / "errors.md").read_text()
    missing = [reason for reason in REASONS if f"| `{reason}` |" not in readme]
    assert not missing, f"docs/reference/errors.md's errors table lacks {missing}"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (
            lambda s: s.dealer().OpenTable(
                pb.OpenTableRequest(table_id="d", game=pb.GAME_HILO, decks=9)
            ),
            "decks",
        ),
        (lambda s: s.pricing().Quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=99)), "decks"),
        (
            lambda s: s.pricing().Quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=["AS", "1H"])),
            "exposed[1]",
        ),
        (
            lambda s: s.pricing().Quote(
                pb.QuoteRequest(game=pb.GAME_BLACKJACK, exposed=["AS"], dealer_up_card="ZZ")
            ),
            "dealer_up_card",
        ),
        (
            lambda s: s.pricing().Quote(pb.QuoteRequest(game=pb.GAME_HILO, dealer_up_card="AS")),
            "dealer_up_card",
        ),
        (
            lambda s: s.dealer().OpenTable(
                pb.OpenTableRequest(
                    table_id="d", game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=9)
                )
            ),
            "blackjack.seats",
        ),
    ],
)
def test_a_bad_option_or_card_names_its_field(
    server: ServerProcess, call: Callable[[ServerProcess], object], field: str
) -> None:
    err = refused(lambda: call(server), grpc.StatusCode.INVALID_ARGUMENT)
    assert info_of(err)[1] == {"field": field}, err.details()
