"""A table of bad requests across every RPC, against the real server: each gets its documented
status code (never OK, UNKNOWN or INTERNAL), the server stays SERVING, and every table is byte
for byte what it was before."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.server.service import MAX_DETAILS
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_rich_errors import detail, raw_status
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import FEED_CALLS, Feed

pytestmark = pytest.mark.timeout(180)

U64 = 2**64 - 1
U32 = 2**32 - 1
C = grpc.StatusCode
BAD, PRE, NOT, DUP, BIG, UNIMPL = (
    C.INVALID_ARGUMENT,
    C.FAILED_PRECONDITION,
    C.NOT_FOUND,
    C.ALREADY_EXISTS,
    C.RESOURCE_EXHAUSTED,
    C.UNIMPLEMENTED,
)
D, P = "pricing.v1.DealerService", "pricing.v1.PricingService"
TABLES = ("hilo", "bj", "goa", "bac", "shut")


def goagae(**bets: int) -> pb.GoaGaeRules:
    rules = pb.GoaGaeRules()
    for name, rtp in bets.items():
        rules.bets[name.replace("_sp", " ")].CopyFrom(pb.PayRule(rtp_bp=rtp))
    return rules


def pairs(**pays: int) -> pb.BlackjackRules:
    rules = pb.BlackjackRules()
    for name, hundredths in pays.items():
        rules.pairs.payout_hundredths[name.replace("_sp", " ")] = hundredths
    return rules


def baccarat(**side_bets: str) -> pb.BaccaratRules:
    rules = pb.BaccaratRules()
    for name, preset in side_bets.items():
        rules.side_bets[name].preset = preset
    return rules


def open_(table_id: str = "new", game: int = pb.GAME_HILO, **kwargs: Any) -> pb.OpenTableRequest:
    return pb.OpenTableRequest(table_id=table_id, game=game, **kwargs)  # type: ignore[arg-type]


def expose(
    card: str = "9D", seq: int = 6, role: int = pb.CARD_ROLE_BURN, table_id: str = "hilo"
) -> Any:
    return pb.ExposeCardRequest(table_id=table_id, seq=seq, card=card, role=role)  # type: ignore[arg-type]


def settle(**kwargs: Any) -> pb.SettleRequest:
    fields: dict[str, Any] = {
        "table_id": "hilo", "round_id": 1, "version": 6, "bet": "HIGH", "stake_cents": 100,
    }  # fmt: skip
    return pb.SettleRequest(**(fields | kwargs))


def position(*legs: pb.PositionLeg, **kwargs: Any) -> pb.SettlePositionRequest:
    """A position on table "hilo" of ``legs`` (by default one leg, the bet ``settle`` makes)."""
    fields: dict[str, Any] = {"table_id": "hilo", "stake_cents": 100}
    legs = legs or (pb.PositionLeg(round_id=1, version=6, bet="HIGH"),)
    return pb.SettlePositionRequest(legs=legs, **(fields | kwargs))


def quote(**kwargs: Any) -> pb.QuoteRequest:
    kwargs.setdefault("game", pb.GAME_HILO)
    return pb.QuoteRequest(**kwargs)


ROWS: list[tuple[str, str, str, Message | bytes, grpc.StatusCode]] = [
    # OpenTable: ids, games, decks, options
    ("empty id", D, "OpenTable", open_(""), BAD),
    ("id with a newline", D, "OpenTable", open_("a\nb"), BAD),
    ("id of 65 characters", D, "OpenTable", open_("t" * 65), BAD),
    ("id with an accent", D, "OpenTable", open_("tàble"), BAD),
    ("id of a long s", D, "OpenTable", open_("\u017f"), BAD),
    ("id with a NUL", D, "OpenTable", open_("t\x00"), BAD),
    ("id with a slash", D, "OpenTable", open_("a/b"), BAD),
    ("id of 10000 characters", D, "OpenTable", open_("x" * 10_000), BAD),
    ("id of 70 KB", D, "OpenTable", open_("x" * 70_000), BIG),
    ("no game", D, "OpenTable", open_(game=pb.GAME_UNSPECIFIED), BAD),
    ("unknown game", D, "OpenTable", open_(game=99), BAD),
    ("9 blackjack decks", D, "OpenTable", open_(game=pb.GAME_BLACKJACK, decks=9), BAD),
    ("2**32-1 decks", D, "OpenTable", open_(game=pb.GAME_BLACKJACK, decks=U32), BAD),
    ("a 2-deck Hi-Lo", D, "OpenTable", open_(decks=2), BAD),
    ("Hi-Lo rules on blackjack", D, "OpenTable",
     open_(game=pb.GAME_BLACKJACK, hilo=pb.HiLoRules()), BAD),
    ("Goa Gae rules on Hi-Lo", D, "OpenTable", open_(goa_gae=goagae(TRIPLE=9000)), BAD),
    ("blackjack rules on Goa Gae", D, "OpenTable",
     open_(game=pb.GAME_GOA_GAE, blackjack=pb.BlackjackRules()), BAD),
    ("another config of an open table", D, "OpenTable", open_("hilo", game=pb.GAME_GOA_GAE), DUP),
    ("colliding Goa Gae bets", D, "OpenTable",
     open_(game=pb.GAME_GOA_GAE, goa_gae=goagae(triple=9000, TRIPLE=5000)), BAD),
    ("unknown Goa Gae bet", D, "OpenTable",
     open_(game=pb.GAME_GOA_GAE, goa_gae=goagae(QUAD=9000)), BAD),
    ("Goa Gae bet with a long s", D, "OpenTable",
     open_(game=pb.GAME_GOA_GAE, goa_gae=goagae(**{"\u017fTRAIGHT": 9000})), BAD),
    ("colliding pair outcomes", D, "OpenTable",
     open_(game=pb.GAME_BLACKJACK, blackjack=pairs(perfect=2500, PERFECT_sp=100)), BAD),
    ("unknown pair outcome", D, "OpenTable",
     open_(game=pb.GAME_BLACKJACK, blackjack=pairs(QUADS=2500)), BAD),
    ("RTP of 0", D, "OpenTable",
     open_(hilo=pb.HiLoRules(low=pb.PayRule(rtp_bp=0, max_hundredths=264))), BAD),
    ("RTP over 100 %", D, "OpenTable",
     open_(hilo=pb.HiLoRules(low=pb.PayRule(rtp_bp=10_001, max_hundredths=264))), BAD),
    ("unknown dealer rule", D, "OpenTable",
     open_(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(dealer_rule=7)), BAD),  # type: ignore[arg-type]
    ("unknown shuffle mode", D, "OpenTable",
     open_(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(shuffle_mode=9)), BAD),  # type: ignore[arg-type]
    ("unknown pairs preset", D, "OpenTable", open_(
        game=pb.GAME_BLACKJACK,
        blackjack=pb.BlackjackRules(pairs=pb.PairsPaytable(preset=5))), BAD),  # type: ignore[arg-type]
    # baccarat and Dragon Tiger's rules
    ("9 baccarat decks", D, "OpenTable", open_(game=pb.GAME_BACCARAT, decks=9), BAD),
    ("baccarat tie at 7:1", D, "OpenTable",
     open_(game=pb.GAME_BACCARAT, baccarat=pb.BaccaratRules(tie_pays=7)), BAD),
    ("unknown commission", D, "OpenTable",
     open_(game=pb.GAME_BACCARAT, baccarat=pb.BaccaratRules(commission=9)), BAD),  # type: ignore[arg-type]
    ("unknown baccarat side bet", D, "OpenTable",
     open_(game=pb.GAME_BACCARAT, baccarat=baccarat(QUADS="")), BAD),
    ("a main bet as a side bet", D, "OpenTable",
     open_(game=pb.GAME_BACCARAT, baccarat=baccarat(BANKER="")), BAD),
    ("unknown Dragon 7 preset", D, "OpenTable",
     open_(game=pb.GAME_BACCARAT, baccarat=baccarat(DRAGON_7="lucky")), BAD),
    ("close_at_rtp_bp past its bound", D, "OpenTable", open_(
        game=pb.GAME_DRAGON_TIGER, dragon_tiger=pb.DragonTigerRules(close_at_rtp_bp=U32)), BAD),
    ("Dragon Tiger tie at 9:1", D, "OpenTable",
     open_(game=pb.GAME_DRAGON_TIGER, dragon_tiger=pb.DragonTigerRules(tie_pays=9)), BAD),
    ("baccarat rules on Dragon Tiger", D, "OpenTable",
     open_(game=pb.GAME_DRAGON_TIGER, baccarat=pb.BaccaratRules()), BAD),
    ("a baccarat card for the dealer", D, "ExposeCard",
     expose(table_id="bac", seq=3, role=pb.CARD_ROLE_DEALER), BAD),
    ("a third Banker card first", D, "ExposeCard",
     expose(table_id="bac", seq=3, role=pb.CARD_ROLE_BANKER), PRE),
    ("a baccarat EndRound", D, "EndRound", pb.EndRoundRequest(table_id="bac", seq=3), PRE),
    ("Quote a banker_hand of Dragon Tiger", P, "Quote",
     quote(game=pb.GAME_DRAGON_TIGER, banker_hand=["2S"]), BAD),
    ("Quote a Banker card twice", P, "Quote",
     quote(game=pb.GAME_BACCARAT, player_hand=["2S", "3S"], banker_hand=["KD", "KD", "KD"]), BAD),
    ("Quote a baccarat card of a long s", P, "Quote",
     quote(game=pb.GAME_BACCARAT, banker_hand=["A\u017f"]), BAD),
    # ExposeCard: cards, roles, seqs, tables
    ("empty card", D, "ExposeCard", expose(""), BAD),
    ("card with a unit separator", D, "ExposeCard", expose("AS\x1f"), BAD),
    ("card wrapped in control characters", D, "ExposeCard", expose("\x1cAS\x85"), BAD),
    ("card with a long s", D, "ExposeCard", expose("A\u017f"), BAD),
    ("card with a fullwidth A", D, "ExposeCard", expose("ＡS"), BAD),
    ("rank 1", D, "ExposeCard", expose("1H"), BAD),
    ("suit X", D, "ExposeCard", expose("AX"), BAD),
    ("card of 10000 characters", D, "ExposeCard", expose("A" * 10_000), BAD),
    # a request of exactly max-message-bytes is read (on a Feed stream too, in its wrapper)
    ("a card filling max-message-bytes", D, "ExposeCard", expose("A" * 65_522), BAD),
    ("a card one byte over max-message-bytes", D, "ExposeCard", expose("A" * 65_523), BIG),
    ("no role", D, "ExposeCard", expose(role=pb.CARD_ROLE_UNSPECIFIED), BAD),
    ("unknown role", D, "ExposeCard", expose(role=99), BAD),
    ("seq 0", D, "ExposeCard", expose(seq=0), BAD),
    ("seq 2**64-1", D, "ExposeCard", expose(seq=U64), PRE),
    ("a future seq", D, "ExposeCard", expose(seq=8), PRE),
    ("a stale seq, another card", D, "ExposeCard", expose("KD", seq=1), DUP),
    ("a card already exposed", D, "ExposeCard", expose("2S"), PRE),
    ("a PLAYER card at Hi-Lo", D, "ExposeCard", expose(role=pb.CARD_ROLE_PLAYER), BAD),
    ("a RESULT card at blackjack", D, "ExposeCard",
     expose(seq=1, role=pb.CARD_ROLE_RESULT, table_id="bj"), BAD),
    ("a card at a closed table", D, "ExposeCard", expose(seq=2, table_id="shut"), PRE),
    ("an unknown table", D, "ExposeCard", expose(table_id="ghost"), NOT),
    ("a bad table id", D, "ExposeCard", expose(table_id="a b"), BAD),
    # the other writes
    ("VoidRound seq 0", D, "VoidRound", pb.VoidRoundRequest(table_id="hilo", seq=0), BAD),
    ("VoidRound seq 2**64-1", D, "VoidRound", pb.VoidRoundRequest(table_id="hilo", seq=U64), PRE),
    ("VoidRound stale seq", D, "VoidRound", pb.VoidRoundRequest(table_id="hilo", seq=2), DUP),
    ("EndRound bad id", D, "EndRound", pb.EndRoundRequest(table_id="\u017f", seq=1), BAD),
    ("NewShoe unknown table", D, "NewShoe", pb.NewShoeRequest(table_id="ghost", seq=1), NOT),
    ("NewShoe at a closed table", D, "NewShoe", pb.NewShoeRequest(table_id="shut", seq=2), PRE),
    ("CloseTable future seq", D, "CloseTable", pb.CloseTableRequest(table_id="goa", seq=9), PRE),
    ("CloseTable empty id", D, "CloseTable", pb.CloseTableRequest(table_id="", seq=1), BAD),
    # reads
    ("GetTable empty id", P, "GetTable", pb.GetTableRequest(table_id=""), BAD),
    ("GetTable id of a long s", P, "GetTable", pb.GetTableRequest(table_id="hilo\u017f"), BAD),
    ("GetTable unknown table", P, "GetTable", pb.GetTableRequest(table_id="ghost"), NOT),
    ("WatchTable bad id", P, "WatchTable", pb.WatchTableRequest(table_id="a\nb"), BAD),
    ("WatchTable unknown table", P, "WatchTable", pb.WatchTableRequest(table_id="ghost"), NOT),
    ("Quote no game", P, "Quote", quote(game=pb.GAME_UNSPECIFIED), BAD),
    ("Quote unknown game", P, "Quote", quote(game=42), BAD),
    ("Quote card with a long s", P, "Quote", quote(exposed=["A\u017f"]), BAD),
    ("Quote a card twice in one deck", P, "Quote", quote(exposed=["AS", "as"]), BAD),
    ("Quote 53 cards of one deck", P, "Quote", quote(exposed=["AS"] * 53), BAD),
    ("Quote 9 blackjack decks", P, "Quote", quote(game=pb.GAME_BLACKJACK, decks=9), BAD),
    ("Quote Hi-Lo rules on Goa Gae", P, "Quote",
     quote(game=pb.GAME_GOA_GAE, hilo=pb.HiLoRules()), BAD),
    ("Quote bad up card", P, "Quote", quote(game=pb.GAME_BLACKJACK, dealer_up_card="ZZ"), BAD),
    ("Quote of 70 KB", P, "Quote", quote(exposed=["AS"] * 20_000), BIG),
    ("Settle stake 0", P, "Settle", settle(stake_cents=0), BAD),
    ("Settle stake 2**64-1", P, "Settle", settle(stake_cents=U64), BAD),
    ("Settle round 0", P, "Settle", settle(round_id=0), BAD),
    ("Settle version 0", P, "Settle", settle(version=0), BAD),
    ("Settle version 2**64-1", P, "Settle", settle(version=U64), PRE),
    ("Settle empty bet", P, "Settle", settle(bet=""), BAD),
    ("Settle bet with a dotless i", P, "Settle", settle(bet="h\u0131gh"), BAD),
    ("Settle unknown bet", P, "Settle", settle(bet="QUAD"), BAD),
    ("Settle a Goa Gae bet at Hi-Lo", P, "Settle", settle(bet="TRIPLE"), BAD),
    ("Settle a round not open then", P, "Settle", settle(round_id=2), PRE),
    ("Settle unknown table", P, "Settle", settle(table_id="ghost"), NOT),
    ("Settle bad table id", P, "Settle", settle(table_id="x" * 65), BAD),
    ("a PLAYER card for seat 99", D, "ExposeCard",
     pb.ExposeCardRequest(table_id="bj", seq=1, card="AS", role=pb.CARD_ROLE_PLAYER, seat=99), BAD),
    ("Settle a side bet on seat 99", P, "Settle",
     settle(table_id="bj", bet="ROYAL_MATCH", version=1, seat=99), BAD),
    ("SettlePosition stake 0", P, "SettlePosition", position(stake_cents=0), BAD),
    ("SettlePosition stake 2**64-1", P, "SettlePosition", position(stake_cents=U64), BAD),
    ("SettlePosition no legs", P, "SettlePosition", pb.SettlePositionRequest(
        table_id="hilo", stake_cents=1), BAD),
    ("SettlePosition leg bet with a dotless i", P, "SettlePosition",
     position(pb.PositionLeg(round_id=1, version=6, bet="h\u0131gh")), BAD),
    ("SettlePosition leg version 2**64-1", P, "SettlePosition",
     position(pb.PositionLeg(round_id=1, version=U64, bet="HIGH")), PRE),
    ("SettlePosition collect over the value", P, "SettlePosition",
     position(pb.PositionLeg(round_id=1, version=6, bet="HIGH", collect_cents=U64)), BAD),
    ("SettlePosition unknown table", P, "SettlePosition", position(table_id="ghost"), NOT),
    ("undecodable SettlePosition", P, "SettlePosition", b"\x1a\xff", BAD),
    ("ListTables unknown game", P, "ListTables", pb.ListTablesRequest(game=99), BAD),  # type: ignore[arg-type]
    ("Analyze no game", P, "Analyze", pb.AnalyzeRequest(), BAD),
    ("Analyze unknown game", P, "Analyze", pb.AnalyzeRequest(game=77), BAD),  # type: ignore[arg-type]
    ("Analyze 2**32-1 shoes", P, "Analyze",
     pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=U32), BAD),
    ("Analyze Hi-Lo rules on Goa Gae", P, "Analyze",
     pb.AnalyzeRequest(game=pb.GAME_GOA_GAE, hilo=pb.HiLoRules()), BAD),
    ("Analyze colliding Goa Gae bets", P, "Analyze",
     pb.AnalyzeRequest(game=pb.GAME_GOA_GAE, goa_gae=goagae(nine=9000, NINE=9100)), BAD),
    ("undecodable ListTables", P, "ListTables", b"\xff\xff", BAD),
    # bodies that are no message
    ("undecodable OpenTable", D, "OpenTable", b"\xff\xff\xff\xff", BAD),
    ("undecodable ExposeCard", D, "ExposeCard", b"\x0a\xff\x01", BAD),
    ("undecodable Settle", P, "Settle", b"\x08", BAD),
    ("a wrong wire type", P, "GetTable", b"\x0d\x00\x00", BAD),
    ("undecodable WatchTable", P, "WatchTable", b"\xff", BAD),
    # the Feed stream's own (each event of the rows above is also sent on a Feed stream, below)
    ("a FeedRequest with no event", D, "Feed", pb.FeedRequest(), BAD),
    ("undecodable FeedRequest", D, "Feed", b"\x0a\x05\x0a", BAD),
    ("a FeedRequest over max-message-bytes", D, "Feed",
     pb.FeedRequest(expose_card=expose("A" * 70_000)), BIG),
]  # fmt: skip

#: The seq'ed events, each of which a FeedRequest may carry instead of its own call.
FEED_FIELDS = {call: field for field, call in FEED_CALLS.items()}
FEED_ROWS = [
    (name, body, code)
    for name, _, method, body, code in ROWS
    if method in FEED_FIELDS and isinstance(body, Message)
]


@pytest.fixture(scope="module")
def tables() -> Iterator[ServerProcess]:
    server = start_server()
    hilo = Feed(server, "hilo")
    hilo.open()
    for card in ("2S", "3S", "4S", "5S", "6S"):
        hilo.expose(card)  # version 6: betting on round 1
    Feed(server, "bj").open(game=pb.GAME_BLACKJACK)
    watcher = Watcher(server.pricing(), "bj")
    while not watcher.next().HasField("player_edge"):  # its figures come after the opening
        pass
    watcher.cancel()
    Feed(server, "goa").open(game=pb.GAME_GOA_GAE)
    bac = Feed(server, "bac")
    bac.open(game=pb.GAME_BACCARAT)
    bac.expose("KS", pb.CARD_ROLE_BANKER)
    bac.expose("QS", pb.CARD_ROLE_BANKER)  # version 3: dealing; the Banker has two cards
    shut = Feed(server, "shut")
    shut.open()
    shut.close()
    yield server
    assert server.stop() == 0


def snapshot(server: ServerProcess) -> dict[str, bytes]:
    pricing = server.pricing()
    return {t: pricing.GetTable(pb.GetTableRequest(table_id=t)).SerializeToString() for t in TABLES}


def send(server: ServerProcess, service: str, method: str, body: Message | bytes) -> Any:
    payload = body if isinstance(body, bytes) else body.SerializeToString()
    channel = server.channel()
    path = f"/{service}/{method}"
    if method == "WatchTable":
        stream = channel.unary_stream(path, request_serializer=bytes, response_deserializer=bytes)
        return next(iter(stream(payload, timeout=30)))
    if method == "Feed":
        feed = channel.stream_stream(path, request_serializer=bytes, response_deserializer=bytes)
        return next(iter(feed(iter([payload]), timeout=30)))
    return channel.unary_unary(path, request_serializer=bytes, response_deserializer=bytes)(
        payload, timeout=30
    )


def test_the_rows_at_the_size_limit_are_at_it() -> None:
    sizes = {name: len(body.SerializeToString()) for name, _, _, body, _ in ROWS
             if "max-message-bytes" in name and isinstance(body, Message)}  # fmt: skip
    assert sizes["a card filling max-message-bytes"] == 64 * 1024
    assert sizes["a card one byte over max-message-bytes"] == 64 * 1024 + 1


def test_there_are_at_least_60_rows_and_every_rpc_has_some() -> None:
    assert len(ROWS) >= 60
    methods = {method for _, _, method, _, _ in ROWS}
    assert methods == {"OpenTable", "ExposeCard", "VoidRound", "EndRound", "NewShoe",
                       "CloseTable", "GetTable", "WatchTable", "Quote", "Settle",
                       "SettlePosition", "ListTables", "Analyze", "Feed"}  # fmt: skip
    assert len(FEED_ROWS) >= 25


@pytest.mark.parametrize(
    ("service", "method", "body", "code"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_a_bad_request_gets_its_code_and_changes_nothing(
    tables: ServerProcess, service: str, method: str, body: Message | bytes, code: grpc.StatusCode
) -> None:
    before = snapshot(tables)
    with pytest.raises(grpc.RpcError) as info:
        send(tables, service, method, body)
    assert info.value.code() == code, info.value.details()
    assert len(info.value.details() or "") <= MAX_DETAILS + 1  # a bad value: a short prefix
    assert snapshot(tables) == before
    health = health_pb2_grpc.HealthStub(tables.channel()).Check(health_pb2.HealthCheckRequest())
    assert health.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize(("body", "code"), [row[1:] for row in FEED_ROWS],
                         ids=[row[0] for row in FEED_ROWS])  # fmt: skip
def test_a_bad_event_on_a_feed_stream_gets_the_code_of_its_call(
    tables: ServerProcess, body: Message, code: grpc.StatusCode
) -> None:
    before = snapshot(tables)
    method = type(body).DESCRIPTOR.name.removesuffix("Request")
    event = pb.FeedRequest(**{FEED_FIELDS[method]: body})
    with pytest.raises(grpc.RpcError) as on_stream:
        send(tables, D, "Feed", event)
    with pytest.raises(grpc.RpcError) as by_call:
        send(tables, D, method, body)
    assert on_stream.value.code() == code, on_stream.value.details()
    assert on_stream.value.details() == by_call.value.details()  # the same words, too
    assert snapshot(tables) == before


#: The rows refused INVALID_ARGUMENT without naming the field: Settle's bet name is read where
#: the reads are served (pricing/server/reads.py), which does not name it yet.
UNNAMED = {"Settle empty bet", "Settle bet with a dotless i"}
NAMED_ROWS = [row for row in ROWS if row[4] == BAD and isinstance(row[3], Message)]


@pytest.mark.parametrize(
    ("name", "service", "method", "body"),
    [row[:4] for row in NAMED_ROWS],
    ids=[row[0] for row in NAMED_ROWS],
)
def test_a_malformed_request_names_the_field_at_fault(
    tables: ServerProcess, name: str, service: str, method: str, body: Message
) -> None:
    """Every INVALID_ARGUMENT of a readable request carries a BadRequest naming the field as
    a path in the request, the same as its ErrorInfo's ``field``: a program can point at it
    without reading the message."""
    with pytest.raises(grpc.RpcError) as info:
        send(tables, service, method, body)
    status = raw_status(info.value)
    field = detail(status, error_details_pb2.ErrorInfo).metadata.get("field")
    if name in UNNAMED:
        assert field is None, f"{name} names {field} now: take it out of UNNAMED"
        return
    violation = detail(status, error_details_pb2.BadRequest).field_violations[0]
    assert violation.field and violation.field == field, info.value.details()


def test_no_bad_request_left_a_traceback(tables: ServerProcess) -> None:
    assert "Traceback" not in tables.log() and "internal error" not in tables.log()
