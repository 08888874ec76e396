"""Live statistics (``pricing.analysis.live``) over journals folded in-process, checked exactly
against a reference that knows only the feed's rounds and the engines
(``tests.support.live_feeds``)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pricing.analysis import hilo_rtp
from pricing.analysis.blackjack import full_shoe_rtps
from pricing.analysis.live import FLAG_SE, LiveBet, live_stats
from pricing.cards import Rank
from pricing.cli.analyze_options import parse_time
from pricing.errors import InvalidInput
from pricing.games.blackjack.rounds import BlackjackOptions
from pricing.games.events import EndRound
from pricing.games.hilo import HiLoPaytable
from pricing.payout import PayRule
from pricing.tables import Game, TableConfig
from tests.support.live_feeds import (
    assert_matches,
    blackjack_feed,
    goagae_feed,
    hilo_feed,
    journal_of,
)

HILO = TableConfig(Game.HILO)


def test_hilo_statistics_are_exactly_the_reference() -> None:
    dealt = hilo_feed(40, seed=3)
    report = live_stats([journal_of("h", HILO, dealt.events)])
    assert (report.rounds, report.void_rounds) == (400, dealt.voids) and dealt.voids > 5
    assert_matches(report, "hilo", dealt)
    assert not report.flagged
    assert report.table_ids == ("h",) and report.game is Game.HILO


def test_goagae_statistics_are_exactly_the_reference() -> None:
    dealt = goagae_feed(12, seed=4)
    report = live_stats([journal_of("g", TableConfig(Game.GOA_GAE), dealt.events)])
    # Each deck's ninth round opens for betting and is refunded by the next NewShoe.
    assert report.rounds == len(dealt.rounds)
    assert report.void_rounds == dealt.voids + 11
    assert_matches(report, "goagae", dealt)
    assert report.bets["TRIPLE"].certified is None  # no fixed deal to certify against


def test_blackjack_side_bets_on_three_seats_are_exactly_the_reference() -> None:
    dealt = blackjack_feed(2, seed=5)
    options = BlackjackOptions(seats=3)
    report = live_stats([journal_of("b", TableConfig(Game.BLACKJACK, 6, options), dealt.events)])
    assert report.rounds == 60  # one stake a round: the mean of the three seats' returns
    assert report.bets["PAIRS"].stakes == report.bets["ROYAL_MATCH"].stakes == 60
    assert_matches(report, "blackjack", dealt)
    full = full_shoe_rtps(6)
    assert report.bets["ROYAL_MATCH"].certified == full["ROYAL_MATCH/crown-treasure"]
    assert report.bets["PAIRS"].certified == full["PAIRS/perfect-pairs"]


def test_a_seat_dealt_one_card_is_left_out_of_the_rounds_stake() -> None:
    dealt = blackjack_feed(1, seed=6, seats=2, rounds=3)
    config = TableConfig(Game.BLACKJACK, 6, BlackjackOptions(seats=2))
    whole = live_stats([journal_of("b1", config, dealt.events)]).bets["PAIRS"]
    assert whole.stakes == 3
    # The last round as dealt: P1 P2 D P1 P2 D End; cut to P1 P2 D P1 End (seat 2: one card):
    # the round's stake is seat 1's alone.
    cut = [*dealt.events[:-7], *dealt.events[-7:-3], EndRound()]
    report = live_stats([journal_of("b2", config, cut)])
    pairs = report.bets["PAIRS"]
    assert report.rounds == 3 and pairs.stakes == 3 and pairs.variance == whole.variance


def test_the_payouts_offered_are_what_is_settled_and_expected() -> None:
    """A paytable other than the default: the table's own prices are used throughout."""
    paytable = HiLoPaytable(seven=PayRule(9000, 100, 5000))
    dealt = hilo_feed(10, seed=8)
    report = live_stats([journal_of("p", TableConfig(Game.HILO, 1, paytable), dealt.events)])
    default = live_stats([journal_of("d", HILO, dealt.events)])
    assert report.bets["SEVEN"].expected > default.bets["SEVEN"].expected
    assert report.bets["LOW"] == default.bets["LOW"]
    assert report.bets["SEVEN"].certified == hilo_rtp(paytable).bets["SEVEN"].per_offered_round
    assert default.bets["SEVEN"].certified == hilo_rtp().bets["SEVEN"].per_offered_round


def test_the_time_range_splits_the_rounds() -> None:
    dealt = hilo_feed(6, seed=9)
    journal = journal_of("t", HILO, dealt.events, start=1000.0)
    middle = journal[len(journal) // 2].accepted_at
    whole = live_stats([journal])
    early = live_stats([journal], until=middle)
    late = live_stats([journal], since=middle)
    assert early.rounds + late.rounds == whole.rounds == 60
    assert early.void_rounds + late.void_rounds == whole.void_rounds
    assert 0 < early.rounds < 60 and early.last_at is not None and early.last_at < middle
    assert late.first_at is not None and late.first_at >= middle
    for bet, stats in whole.bets.items():
        a, b = early.bets[bet], late.bets[bet]
        assert a.stakes + b.stakes == stats.stakes
        assert a.returned * a.stakes + b.returned * b.stakes == stats.returned * stats.stakes
        assert a.variance + b.variance == stats.variance
    assert live_stats([journal], since=journal[-1].accepted_at + 1).rounds == 0


def test_several_tables_add_up() -> None:
    a, b = hilo_feed(5, seed=10), hilo_feed(7, seed=11)
    one = live_stats([journal_of("a", HILO, a.events)])
    two = live_stats([journal_of("b", HILO, b.events)])
    both = live_stats([journal_of("a", HILO, a.events), journal_of("b", HILO, b.events)])
    assert both.table_ids == ("a", "b") and both.rounds == 120
    for bet, stats in both.bets.items():
        x, y = one.bets[bet], two.bets[bet]
        assert stats.stakes == x.stakes + y.stakes
        assert stats.expected * stats.stakes == x.expected * x.stakes + y.expected * y.stakes


def test_tables_of_different_games_or_none_are_refused() -> None:
    hilo = journal_of("h", HILO, hilo_feed(1, seed=1).events)
    goa = journal_of("g", TableConfig(Game.GOA_GAE), goagae_feed(1, seed=1).events)
    with pytest.raises(InvalidInput, match="'g' is GOA_GAE, not HILO"):
        live_stats([hilo, goa])
    with pytest.raises(InvalidInput, match="no tables"):
        live_stats([])


def test_a_deck_without_sevens_is_flagged_on_seven() -> None:
    dealt = hilo_feed(40, seed=12, without=[Rank.SEVEN])
    report = live_stats([journal_of("biased", HILO, dealt.events)])
    seven = report.bets["SEVEN"]
    assert seven.wins == 0 and seven.returned == 0
    assert seven.flagged and seven.z is not None and seven.z < -FLAG_SE
    assert "SEVEN" in report.flagged


def test_the_flag_is_at_four_standard_errors() -> None:
    # 100 stakes, variance 1 each: standard error 1/10; the flag is beyond 0.4 either way.
    def bet(returned: Fraction) -> LiveBet:
        return LiveBet("X", 100, 50, returned, Fraction(1), Fraction(100))

    assert bet(Fraction(1)).standard_error == 0.1
    assert not bet(Fraction(14, 10)).flagged and not bet(Fraction(6, 10)).flagged
    assert bet(Fraction(141, 100)).flagged and bet(Fraction(59, 100)).flagged
    assert bet(Fraction(141, 100)).interval == pytest.approx((0.6, 1.4))
    certain = LiveBet("Y", 10, 10, Fraction(2), Fraction(2), Fraction(0))
    assert certain.z is None and not certain.flagged
    assert LiveBet("Y", 10, 10, Fraction(3), Fraction(2), Fraction(0)).flagged
    assert not LiveBet("Z", 0, 0, Fraction(0), Fraction(0), Fraction(0)).flagged


def test_json_has_exact_figures() -> None:
    report = live_stats([journal_of("j", HILO, hilo_feed(2, seed=13).events)])
    data = report.as_dict()
    low = data["bets"]["LOW"]
    assert Fraction(low["expected"]["exact"]) == report.bets["LOW"].expected
    assert low["stakes"] == 20 and data["rounds"] == 20 and data["flagged"] == []


def test_times_on_the_command_line() -> None:
    assert parse_time("1700000000.5") == 1700000000.5
    assert parse_time("2026-03-01T12:00:00Z") == parse_time("2026-03-01T12:00:00") == 1772366400
    assert parse_time("2026-03-01T13:00:00+01:00") == 1772366400
    with pytest.raises(InvalidInput, match="not a time: 'yesterday'"):
        parse_time("yesterday")
