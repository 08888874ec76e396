"""A table's live return (``pricing.tables.live_return``): the float sums a table keeps as its
rounds end agree with the exact report over the same journal (``pricing.analysis.live``), for
every game; a table rebuilt from a journal image taken at any version, then folded on, holds
the same sums to the last bit as one folded straight through; its memory is a fixed 32 bytes a
bet; and a blackjack side bet on many seats counts one stake a round, so its z is no wider
for the seats sharing the dealer's cards."""

from __future__ import annotations

import statistics
from collections.abc import Callable

import pytest

from pricing.analysis.live import live_stats
from pricing.games.baccarat import SIDE_BETS as BACCARAT_SIDE_BETS
from pricing.games.blackjack.rounds import BlackjackOptions
from pricing.games.dragon_tiger.bets import SIDE_BETS as DRAGON_TIGER_SIDE_BETS
from pricing.journal import Record
from pricing.journal.codec import decode_image, encode_image, format_is_current
from pricing.journal.fold import fold_records
from pricing.tables import Game, Table, TableConfig, TablePhase
from pricing.tables.live_return import NO_RETURN, LiveReturn
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto
from tests.support.effort import effort
from tests.support.live_feeds import (
    Dealt,
    blackjack_feed,
    goagae_feed,
    higher_lower_feed,
    hilo_feed,
    journal_of,
    two_hands_feed,
)


def every_bet(game: str) -> TableConfig:
    """A one-deck ``baccarat`` or ``dragon_tiger`` table offering every bet of its game."""
    request = pb.OpenTableRequest(table_id="t", decks=1)
    rules = getattr(request, game)
    for bet in BACCARAT_SIDE_BETS if game == "baccarat" else DRAGON_TIGER_SIDE_BETS:
        rules.side_bets[bet].preset = ""  # the bet, at its default preset
    game_value = pb.GAME_BACCARAT if game == "baccarat" else pb.GAME_DRAGON_TIGER
    return config_from_proto(game_value, 1, request)


#: Every game the live return covers: a table's config and a small seeded feed of it.
GAMES: dict[str, Callable[[], tuple[TableConfig, Dealt]]] = {
    "hilo": lambda: (TableConfig(Game.HILO), hilo_feed(12, seed=21)),
    "higher_lower": lambda: (TableConfig(Game.HIGHER_LOWER), higher_lower_feed(60, seed=22)),
    "goagae": lambda: (TableConfig(Game.GOA_GAE), goagae_feed(5, seed=23)),
    "blackjack": lambda: (
        TableConfig(Game.BLACKJACK, 6, BlackjackOptions(seats=3)),
        blackjack_feed(1, seed=24, rounds=25),
    ),
    "baccarat": lambda: (every_bet("baccarat"), two_hands_feed("baccarat", 1, seed=25)),
    "dragon_tiger": lambda: (every_bet("dragon_tiger"), two_hands_feed("dragon_tiger", 1, 26)),
}


def folded(config: TableConfig, dealt: Dealt) -> tuple[Table, list[Record]]:
    records = journal_of("t", config, dealt.events)
    return fold_records("t", None, records), records


@pytest.mark.parametrize("game", list(GAMES))
def test_the_float_sums_agree_with_the_exact_report(game: str) -> None:
    table, records = folded(*GAMES[game]())
    exact = live_stats([records])
    totals = dict(table.live.totals())
    assert set(totals) == set(exact.bets) and len(totals) >= 2
    for bet, want in exact.bets.items():
        got = totals[bet]
        assert got.stakes == want.stakes > 0, bet
        if game == "blackjack":  # a round's stake on 3 seats returns their mean: cents / 3
            assert got.returned == pytest.approx(float(want.returned * want.stakes), rel=1e-12)
        else:
            assert got.returned == float(want.returned * want.stakes), bet  # whole cents: exact
        assert got.expected == pytest.approx(float(want.expected * want.stakes), rel=1e-12)
        assert got.variance == pytest.approx(float(want.variance), rel=1e-12)
        if want.z is None:  # no variance: a bet the shoe cannot pay (a suited tie of 1 deck)
            assert got.z is None and got.variance == 0, bet
        else:
            assert got.z == pytest.approx(want.z, rel=1e-9, abs=1e-12), bet


@pytest.mark.parametrize("game", ["hilo", "higher_lower", "baccarat"])
def test_a_table_rebuilt_from_any_image_has_the_same_sums(game: str) -> None:
    """An image (encoded and decoded as the journal stores it) taken between rounds, while
    betting is open and while a round is dealt, then the records after it folded: the same
    sums, bit for bit, as the table folded from its opening."""
    config, dealt = GAMES[game]()
    straight, records = folded(config, dealt)
    phases = set()
    for k in range(2, len(records), 7):
        at_k = fold_records("t", None, records[:k])
        phases.add(at_k.snapshot.view.phase)
        fmt, data = encode_image(at_k.image())
        assert format_is_current(fmt)
        rebuilt = fold_records("t", decode_image(data), records[k:])
        assert rebuilt.live == straight.live, k
    assert {TablePhase.BETTING} < phases or game == "hilo"  # mid-round images too


def test_a_live_return_is_32_bytes_a_bet() -> None:
    table, _ = folded(*GAMES["baccarat"]())
    live = table.live
    assert len(live.bets) == 25 and len(live.round_sums) == 32 * len(live.bets)
    assert live.dealing is None  # between rounds: no round's offers held
    assert LiveReturn() == NO_RETURN and list(NO_RETURN.totals()) == []


@pytest.mark.slow
def test_seven_seats_make_one_stake_a_round_and_an_honest_z() -> None:
    """Honest 7-seat tables offering Bust It (settled on the dealer's hand alone: every seat
    the same) and Perfect Pairs (on each seat's own cards): each bet counts one stake a round,
    not one a seat, and z spreads across the tables as a standard normal for Bust It (counted
    a stake a seat it spread √7 as wide: sd 2.9 over 30 such tables, 5 of them past 4) and
    less for Pairs (its seats nearly independent, their mean's variance under one seat's);
    the gauges' floats are the exact report's."""
    request = pb.OpenTableRequest(table_id="t", decks=6)
    request.blackjack.seats = 7
    for bet in ("BUST_IT", "PAIRS"):
        request.blackjack.side_bets[bet].preset = ""
    config = config_from_proto(pb.GAME_BLACKJACK, 6, request)
    zs: dict[str, list[float]] = {"BUST_IT": [], "PAIRS": []}
    for seed in range(effort(suite=20, exhaustive=100)):
        dealt = blackjack_feed(2, seed=seed, seats=7, rounds=14, dealer_plays=True)
        table = Table("t", config)
        for seq, event in enumerate(dealt.events, start=1):
            table.apply(seq, event)
        totals = dict(table.live.totals())
        assert set(totals) == set(zs)
        for bet, z in zs.items():
            assert totals[bet].stakes == len(dealt.rounds) == 28, bet  # rounds, not seats
            got = totals[bet].z
            assert got is not None
            z.append(got)
        if seed == 0:
            exact = live_stats([journal_of("t", config, dealt.events)])
            for bet in zs:
                assert exact.bets[bet].stakes == 28
                assert totals[bet].z == pytest.approx(exact.bets[bet].z, rel=1e-9), bet
    assert statistics.pstdev(zs["BUST_IT"]) < 1.5, zs
    assert statistics.pstdev(zs["PAIRS"]) < 1, zs
