"""Blackjack seats (docs/rules.md §3.7): each player box has its own first two cards and side bets.

Without gRPC (``Tables``): the seat discipline (``check_seat``), the table state's seats, and
settlement on each seat's own cards. Through the real server: a three-seat round whose seats
settle EASY, PERFECT and LOSE on their own cards, and the single-seat calls of before on a
``seats: 1`` table.
"""

from __future__ import annotations

import io
import re

import grpc
import pytest

from pricing import cli
from pricing.cards import parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games.blackjack.rounds import MAX_SEATS, BlackjackOptions
from pricing.games.events import CardRole, EndRound, ExposeCard
from pricing.tables import (
    FeedEvent,
    Game,
    SeatView,
    SettleStatus,
    Table,
    TableConfig,
    Tables,
    replay,
)
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto
from tests.support.server import ServerProcess, Watcher
from tests.support.wire import Feed, expect_error

PLAYER, DEALER, BURN = CardRole.PLAYER, CardRole.DEALER, CardRole.BURN

#: One round at a 3-seat table, dealt as a dealer does: a card to each seat, the dealer's up
#: card, a second card to each seat, then the dealer draws. Seat 1 is suited (Royal Match
#: EASY), seat 2 a pair of identical cards (PERFECT; suited too), seat 3 neither. The round's
#: first two PLAYER cards (5H, 8D) are seats 1 and 2's: settling on them would be wrong.
THREE_SEATS: tuple[tuple[str, CardRole, int], ...] = (
    ("5H", PLAYER, 1),
    ("8D", PLAYER, 2),
    ("2C", PLAYER, 3),
    ("QS", DEALER, 0),
    ("9H", PLAYER, 1),
    ("8D", PLAYER, 2),
    ("7S", PLAYER, 3),
    ("7C", DEALER, 0),  # the dealer stands on 17
)


def expose(text: str, role: CardRole = PLAYER, seat: int = 0) -> ExposeCard:
    return ExposeCard(parse_card(text), role, seat)


def feed(table: Table, *events: FeedEvent) -> None:
    for event in events:
        table.apply(table.snapshot.last_seq + 1, event)


def blackjack_table(seats: int = 3, decks: int = 2) -> Table:
    tables = Tables(keep_journal=True)
    tables.open("b", TableConfig(Game.BLACKJACK, decks, BlackjackOptions(seats=seats)))
    return tables.get("b")


def cards(*texts: str) -> tuple[object, ...]:
    return tuple(parse_card(t) for t in texts)


def test_each_seat_settles_on_its_own_first_two_cards() -> None:
    table = blackjack_table()
    assert table.snapshot.view.seats == tuple(SeatView(s, ()) for s in (1, 2, 3))
    v = table.snapshot.version
    feed(table, *(expose(c, role, seat) for c, role, seat in THREE_SEATS[:6]))
    # The state shows each seat's cards of the round so far.
    assert table.snapshot.view.seats == (
        SeatView(1, cards("5H", "9H")),
        SeatView(2, cards("8D", "8D")),
        SeatView(3, cards("2C")),
    )
    feed(table, *(expose(c, role, seat) for c, role, seat in THREE_SEATS[6:]))
    feed(table, expose("4H", PLAYER, 3))  # seat 3 hits: not one of its first two cards
    assert table.settle(1, v, "PAIRS", 100, seat=2).status is SettleStatus.PENDING
    feed(table, EndRound())
    ended = table.snapshot.view.ended
    assert ended is not None and not ended.void
    assert ended.seats == (
        SeatView(1, cards("5H", "9H")),
        SeatView(2, cards("8D", "8D")),
        SeatView(3, cards("2C", "7S")),
    )
    assert ended.result == cards("5H", "9H", "8D", "8D", "2C", "7S", "QS", "7C")
    assert table.snapshot.view.seats == tuple(SeatView(s, ()) for s in (1, 2, 3))

    def settle(bet: str, seat: int) -> tuple[object, ...]:
        s = table.settle(1, v, bet, 1000, seat=seat)
        return (s.status, s.outcome, s.returned_cents, s.seat, tuple(str(c) for c in s.result))

    assert settle("ROYAL_MATCH", 1) == (SettleStatus.WIN, "EASY", 3500, 1, ("5H", "9H", "QS", "7C"))
    assert settle("PAIRS", 1)[:3] == (SettleStatus.LOSE, "LOSE", 0)
    assert settle("PAIRS", 2) == (
        SettleStatus.WIN,
        "PERFECT",
        26_000,
        2,
        ("8D", "8D"),
    )  # the pair bet reads no dealer card
    assert settle("ROYAL_MATCH", 2)[:2] == (SettleStatus.WIN, "EASY")  # identical: suited
    assert settle("ROYAL_MATCH", 3) == (SettleStatus.LOSE, "LOSE", 0, 3, ("2C", "7S", "QS", "7C"))
    assert settle("PAIRS", 3)[:3] == (SettleStatus.LOSE, "LOSE", 0)
    assert replay(table.journal).snapshot == table.snapshot  # the seats replay with the events


def test_crown_treasure_needs_the_seats_royal_match_and_the_dealers() -> None:
    table = blackjack_table(seats=2, decks=1)
    deal = [
        expose("KH", PLAYER, 2),
        expose("QD", PLAYER, 1),
        expose("KS", DEALER),
        expose("QH", PLAYER, 2),
        expose("2C", PLAYER, 1),
        expose("QS", DEALER),
    ]
    feed(table, *deal, EndRound())
    crown = table.settle(1, 1, "ROYAL_MATCH", 100, seat=2)
    assert (crown.outcome, crown.returned_cents) == ("CROWN", 100 + 100 * 1000)
    assert table.settle(1, 1, "ROYAL_MATCH", 100, seat=1).outcome == "LOSE"


def test_a_seat_dealt_fewer_than_two_cards_is_refunded_while_the_others_settle() -> None:
    table = blackjack_table()
    feed(table, expose("KH", PLAYER, 1), expose("9C", PLAYER, 2), expose("KH", PLAYER, 1))
    feed(table, expose("5D", DEALER), EndRound())
    assert table.settle(1, 1, "PAIRS", 100, seat=1).outcome == "PERFECT"
    lone = table.settle(1, 1, "PAIRS", 100, seat=2)
    assert (lone.status, lone.returned_cents, lone.seat) == (SettleStatus.VOID, 100, 2)
    assert table.settle(1, 1, "ROYAL_MATCH", 100, seat=3).status is SettleStatus.VOID


def test_seats_are_checked_and_a_refused_card_changes_nothing() -> None:
    table = blackjack_table()
    before = (table.snapshot, len(table.journal))
    for event, fragment in [
        (expose("2S", PLAYER, 0), "seat is required for a CARD_ROLE_PLAYER card at table 'b': "
         "the table has 3 seats (send 1 to 3)"),
        (expose("2S", PLAYER, 4), "seat 4 is out of range"),
        (expose("2S", DEALER, 1), "seat 1 was sent with a CARD_ROLE_DEALER card"),
        (expose("2S", BURN, 2), "seat 2 was sent with a CARD_ROLE_BURN card"),
    ]:  # fmt: skip
        with pytest.raises(InvalidInput, match=re.escape(fragment)):
            table.apply(table.snapshot.last_seq + 1, event)
        assert (table.snapshot, len(table.journal)) == before
    for seat, fragment in [(0, "seat is required for a bet"), (9, "seat 9 is out of range")]:
        with pytest.raises(InvalidInput, match=fragment):
            table.settle(1, 1, "PAIRS", 100, seat=seat)


def test_a_one_seat_table_takes_cards_and_bets_without_a_seat() -> None:
    table = blackjack_table(seats=1)
    feed(table, expose("KH"), expose("5D", DEALER), expose("KH", PLAYER, 1), EndRound())
    assert table.snapshot.view.ended is not None
    assert table.snapshot.view.ended.seats == (SeatView(1, cards("KH", "KH")),)
    for seat in (0, 1):
        pair = table.settle(1, 1, "PAIRS", 100, seat=seat)
        assert (pair.outcome, pair.seat) == ("PERFECT", 1)
    with pytest.raises(InvalidInput, match=r"seat 2 is out of range .* has 1 seat "):
        table.settle(1, 1, "PAIRS", 100, seat=2)


@pytest.mark.parametrize("game", [Game.HILO, Game.GOA_GAE])
def test_games_without_seats_refuse_one(game: Game) -> None:
    tables = Tables(keep_journal=True)
    tables.open("t", TableConfig(game))
    table = tables.get("t")
    assert table.snapshot.view.seats == ()
    with pytest.raises(InvalidInput, match=r"seat 1 was sent for a CARD_ROLE_PLAYER card .* no"):
        table.apply(1, expose("2S", PLAYER, 1))
    with pytest.raises(InvalidInput, match=r"seat 2 was sent for a bet .* no seats"):
        table.settle(1, 1, "LOW" if game is Game.HILO else "NINE", 100, seat=2)


def test_seats_option_from_the_wire_defaults_to_seven_and_is_checked() -> None:
    def options(seats: int) -> object:
        request = pb.OpenTableRequest(
            table_id="x", game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=seats)
        )
        return config_from_proto(request.game, request.decks, request).rules

    assert options(0) == BlackjackOptions() and BlackjackOptions().seats == MAX_SEATS == 7
    assert options(3) == BlackjackOptions(seats=3)
    tables = Tables(keep_journal=True)
    for bad in (8, -1):
        with pytest.raises(InvalidOption, match=rf"seats {bad} is not allowed .* 1 to 7"):
            tables.open("b", TableConfig(Game.BLACKJACK, 0, BlackjackOptions(seats=bad)))
    assert Table("b", TableConfig(Game.BLACKJACK)).seats == 7


# ---------------------------------------------------------------------------------------------
# Through the real server


def settle(server: ServerProcess, table_id: str, bet: str, seat: int) -> pb.SettleResponse:
    request = pb.SettleRequest(
        table_id=table_id, round_id=1, version=1, bet=bet, stake_cents=1000, seat=seat
    )
    return server.pricing().Settle(request)


def test_a_three_seat_round_through_the_server_settles_each_seat_on_its_own_cards(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    opened = feed.open(game=pb.GAME_BLACKJACK, decks=2, blackjack=pb.BlackjackRules(seats=3))
    assert [(s.seat, list(s.cards)) for s in opened.seats] == [(1, []), (2, []), (3, [])]
    watcher = Watcher(server.pricing(), table_id)
    assert watcher.next_version() == opened
    roles = {PLAYER: pb.CARD_ROLE_PLAYER, DEALER: pb.CARD_ROLE_DEALER}
    for card, role, seat in THREE_SEATS:
        state = feed.expose(card, roles[role], seat)
        assert watcher.next_version() == state
    assert [(s.seat, list(s.cards)) for s in state.seats] == [
        (1, ["5H", "9H"]),
        (2, ["8D", "8D"]),
        (3, ["2C", "7S"]),
    ]
    assert len(state.side_bets) == 2  # the next round's odds: one list for every seat
    ended = feed.end_round()
    assert [(s.seat, list(s.cards)) for s in ended.ended_round.seats] == [
        (1, ["5H", "9H"]),
        (2, ["8D", "8D"]),
        (3, ["2C", "7S"]),
    ]
    assert list(ended.ended_round.result_cards) == [
        *("5H", "9H", "8D", "8D", "2C", "7S"),
        *("QS", "7C"),
    ]
    assert all(not s.cards for s in ended.seats)

    easy = settle(server, table_id, "ROYAL_MATCH", 1)
    assert (easy.status, easy.outcome, easy.returned_cents, easy.seat) == (
        pb.SettleResponse.STATUS_WIN,
        "EASY",
        3500,
        1,
    )
    assert list(easy.result_cards) == ["5H", "9H", "QS", "7C"]
    perfect = settle(server, table_id, "pairs", 2)
    assert (perfect.status, perfect.outcome, perfect.returned_cents) == (
        pb.SettleResponse.STATUS_WIN,
        "PERFECT",
        26_000,
    )
    assert list(perfect.result_cards) == ["8D", "8D"]  # the cards the pair bet read
    for bet in ("ROYAL_MATCH", "PAIRS"):
        lose = settle(server, table_id, bet, 3)
        assert (lose.status, lose.outcome, lose.returned_cents) == (
            pb.SettleResponse.STATUS_LOSE,
            "LOSE",
            0,
        )
    assert settle(server, table_id, "PAIRS", 1).status == pb.SettleResponse.STATUS_LOSE
    out = io.StringIO()
    argv = ["settle", table_id, "--round", "1", "--version", "1", "--bet", "PAIRS"]
    argv += ["--stake-cents", "1000", "--seat", "2", "--server", server.target]
    assert cli.main(argv, out=out) == 0
    assert out.getvalue().startswith("WIN: PAIRS") and "(PERFECT)" in out.getvalue()

    code = grpc.StatusCode.INVALID_ARGUMENT
    expect_error(lambda: settle(server, table_id, "PAIRS", 0), code, "seat is required")
    expect_error(lambda: settle(server, table_id, "PAIRS", 4), code, "seat 4 is out of range")
    before = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    for card, role, seat, fragment in [
        ("2S", pb.CARD_ROLE_PLAYER, 0, "seat is required"),
        ("2S", pb.CARD_ROLE_PLAYER, 8, "seat 8 is out of range"),
        ("2S", pb.CARD_ROLE_DEALER, 2, "seat 2 was sent with a CARD_ROLE_DEALER card"),
    ]:
        expect_error(lambda: feed.expose(card, role, seat), code, fragment)  # noqa: B023
        feed.seq -= 1
    assert server.pricing().GetTable(pb.GetTableRequest(table_id=table_id)) == before
    watcher.cancel()


def test_single_seat_calls_work_on_a_one_seat_table(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, decks=1, blackjack=pb.BlackjackRules(seats=1))
    for card, role in [
        ("KD", pb.CARD_ROLE_PLAYER),
        ("KS", pb.CARD_ROLE_DEALER),
        ("QD", pb.CARD_ROLE_PLAYER),
    ]:
        feed.expose(card, role)
    ended = feed.end_round()
    assert list(ended.ended_round.result_cards) == ["KD", "QD", "KS"]
    royal = server.pricing().Settle(
        pb.SettleRequest(table_id=table_id, round_id=1, version=1, bet="ROYAL_MATCH", stake_cents=1)
    )
    assert (royal.status, royal.outcome, royal.seat) == (pb.SettleResponse.STATUS_WIN, "ROYAL", 1)


def test_open_table_refuses_a_seat_count_outside_one_to_seven(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    expect_error(
        lambda: feed.open(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=8)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "seats 8",
    )
    hilo = Feed(server, f"{table_id}-hilo")
    hilo.open(game=pb.GAME_HILO)
    expect_error(
        lambda: hilo.expose("2S", pb.CARD_ROLE_BURN, 1), grpc.StatusCode.INVALID_ARGUMENT, "seat 1"
    )
