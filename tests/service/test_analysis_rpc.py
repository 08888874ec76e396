"""The Analyze RPC on the real server: the same numbers as ``pricing.analysis``."""

from __future__ import annotations

from fractions import Fraction

import grpc
import pytest

from pricing.analysis import goagae_rtp, hilo_rtp
from pricing.analysis.blackjack import BlackjackReport, blackjack_rtp
from pricing.analysis.higher_lower import higher_lower_report
from pricing.analysis.side_bets import RANKS
from pricing.client import error_details
from pricing.games import higher_lower
from pricing.games.blackjack import library
from pricing.games.higher_lower import HigherLowerPaytable, ShuffleMode
from pricing.games.hilo import HiLoPaytable
from pricing.payout import PayRule
from pricing.server.analyze import MAX_SHOES
from pricing.text import fraction_text
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as rpc
from tests.support.server import ServerProcess
from tests.support.wire import expect_error


def stub(server: ServerProcess) -> rpc.PricingServiceStub:
    return rpc.PricingServiceStub(server.channel())


def test_hilo_report_over_the_wire(server: ServerProcess) -> None:
    got = stub(server).Analyze(pb.AnalyzeRequest(game=pb.GAME_HILO))
    want = hilo_rtp()
    assert got.game == pb.GAME_HILO and got.positions == 10
    assert [b.bet for b in got.bets] == list(want.bets)
    for wire, report in zip(got.bets, want.bets.values(), strict=True):
        assert wire.rtp.exact == f"{report.rtp.numerator}/{report.rtp.denominator}"
        assert [r.value for r in wire.by_position] == [float(x) for x in report.by_position]
        assert (wire.min_payout_hundredths, wire.max_payout_hundredths) == (
            report.min_payout,
            report.max_payout,
        )
        assert [(d.payout_hundredths, d.probability) for d in wire.distribution] == [
            (k, float(v)) for k, v in report.distribution.items()
        ]


def test_a_paytable_in_the_request(server: ServerProcess) -> None:
    request = pb.AnalyzeRequest(
        game=pb.GAME_HILO, hilo=pb.HiLoRules(seven=pb.PayRule(rtp_bp=9000, max_hundredths=5000))
    )
    got = stub(server).Analyze(request)
    want = hilo_rtp(HiLoPaytable(seven=PayRule(9000, 0, 5000))).bets["SEVEN"]
    assert got.bets[4].rtp.value == float(want.rtp)


def test_goagae_and_blackjack(server: ServerProcess) -> None:
    got = stub(server).Analyze(pb.AnalyzeRequest(game=pb.GAME_GOA_GAE, rounds=8))
    assert list(got.left_out) == ["STRAIGHT", "NINE"] and got.positions == 8
    assert got.bets[0].rtp.value == float(goagae_rtp(rounds=8).bets["TRIPLE"].rtp)
    bj = stub(server).Analyze(pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=40, seed=5))
    want = blackjack_rtp(shoes=40, seed=5)
    assert bj.shoes == 40 and bj.seed == 5 and bj.dealer_rule == pb.DEALER_RULE_S17
    keys = [f"{bet}/{p}" for bet, engine in library.BETS.items() for p in engine.presets]
    assert [(r.decks, r.bet) for r in bj.side_bets] == [(d, k) for d in (6, 8) for k in keys]
    for report in bj.side_bets:
        assert_side_bet(report, want)


def assert_side_bet(wire: pb.SideBetReport, want: BlackjackReport) -> None:
    """One ``SideBetReport`` carries the local report's figures, exact ones exactly."""
    full = want.full_shoe[wire.decks][wire.bet]
    assert wire.full_shoe_rtp.exact == f"{full.numerator}/{full.denominator}"
    assert wire.favourable_rounds == want.favourable_rounds[wire.decks][wire.bet]
    points = want.by_penetration[wire.decks][wire.bet]
    assert [
        (
            p.cards_dealt,
            p.simulated_mean,
            p.spread,
            p.favourable,
            p.favourable_edge,
            p.favourable_edge_se,
        )
        for p in wire.by_penetration
    ] == [
        (
            p.cards_dealt,
            p.simulated_mean,
            p.spread,
            p.favourable,
            p.favourable_edge,
            p.favourable_edge_se,
        )
        for p in points
    ]
    effects = want.effect_of_removal[wire.decks][wire.bet]
    assert [(e.rank, Fraction(e.rtp_change.exact)) for e in wire.effect_of_removal] == list(
        effects.items()
    )
    assert [e.rank for e in wire.effect_of_removal] == list(RANKS)


def test_one_side_bet_under_h17(server: ServerProcess) -> None:
    request = pb.AnalyzeRequest(
        game=pb.GAME_BLACKJACK,
        shoes=30,
        seed=9,
        side_bet="royal_match",
        preset="Standard",
        dealer_rule=pb.DEALER_RULE_H17,
    )
    got = stub(server).Analyze(request)
    want = blackjack_rtp(shoes=30, seed=9, bet="ROYAL_MATCH", preset="standard", rule="H17")
    assert got.dealer_rule == pb.DEALER_RULE_H17
    assert [(r.decks, r.bet) for r in got.side_bets] == [
        (6, "ROYAL_MATCH/standard"),
        (8, "ROYAL_MATCH/standard"),
    ]
    for report in got.side_bets:
        assert_side_bet(report, want)
    # a suit-reading bet's effect of removal: a K or a Q out hurts the player
    king = {e.rank: e.rtp_change for e in got.side_bets[0].effect_of_removal}["K"]
    assert king.exact == "-297/125333" and king.value < 0
    all_presets = stub(server).Analyze(
        pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=2, side_bet="PAIRS")
    )
    assert {r.bet for r in all_presets.side_bets} == {
        f"PAIRS/{p}" for p in library.BETS["PAIRS"].presets
    }


def test_bad_requests_are_invalid_argument(server: ServerProcess) -> None:
    s = stub(server)
    expect_error(lambda: s.Analyze(pb.AnalyzeRequest()), grpc.StatusCode.INVALID_ARGUMENT, "game")
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=MAX_SHOES + 1)),
        grpc.StatusCode.INVALID_ARGUMENT,
        f"shoes must be at most {MAX_SHOES}",
    )
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_GOA_GAE, hilo=pb.HiLoRules())),
        grpc.StatusCode.INVALID_ARGUMENT,
        "rules 'hilo' were sent for a GAME_GOA_GAE analysis",
    )
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_GOA_GAE, rounds=10)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "need at least 57 cards",
    )


@pytest.mark.parametrize(
    ("request_", "field", "words"),
    [
        (
            pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=2, side_bet="POKER"),
            "side_bet",
            f"unknown side bet 'POKER': expected one of {', '.join(library.BETS)}",
        ),
        (
            pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=2, side_bet="PAIRS", preset="two"),
            "preset",
            "unknown PAIRS preset 'two'",
        ),
        (
            pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=2, preset="any-pair"),
            "preset",
            "needs the side bet",
        ),
        (
            pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=2, dealer_rule=7),  # type: ignore[arg-type]
            "dealer_rule",
            "unknown dealer_rule 7",
        ),
    ],
)
def test_bad_blackjack_options_name_their_field(
    server: ServerProcess, request_: pb.AnalyzeRequest, field: str, words: str
) -> None:
    error = expect_error(
        lambda: stub(server).Analyze(request_), grpc.StatusCode.INVALID_ARGUMENT, words
    )
    assert [v.field for v in error_details(error).field_violations] == [field]


def test_blackjack_options_are_for_blackjack(server: ServerProcess) -> None:
    expect_error(
        lambda: stub(server).Analyze(
            pb.AnalyzeRequest(game=pb.GAME_HILO, side_bet="PAIRS", dealer_rule=pb.DEALER_RULE_H17)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "side_bet, dealer_rule are for a GAME_BLACKJACK analysis, not GAME_HILO",
    )


def test_higher_lower_report_over_the_wire(server: ServerProcess) -> None:
    """One shuffle mode per request, as the rules name it: continuous (the default), one
    position; depleting, its rounds."""
    s = stub(server)
    got = s.Analyze(pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER))
    assert got.game == pb.GAME_HIGHER_LOWER and got.positions == 1
    assert [b.bet for b in got.bets] == list(higher_lower.BETS)
    assert got.bets[0].rtp.exact == "6924/7175" and len(got.bets[0].by_position) == 1
    rules = pb.HigherLowerRules(
        shuffle_mode=pb.SHUFFLE_MODE_DEPLETING,
        burns=5,
        bets={"SNAP": pb.PayRule(rtp_bp=9000, min_hundredths=5, max_hundredths=10_000)},
    )
    got = s.Analyze(pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, higher_lower=rules))
    want = higher_lower_report(
        HigherLowerPaytable(snap=PayRule(9000, 5, 10_000)), burns=5, modes=(ShuffleMode.DEPLETING,)
    )
    assert want.depleting is not None and got.positions == want.rounds == 47
    for wire, report in zip(got.bets, want.depleting.values(), strict=True):
        r = report.overall
        assert wire.rtp.exact == f"{r.rtp.numerator}/{r.rtp.denominator}"
        assert [x.value for x in wire.closed_by_position] == [
            float(x) for x in r.closed_by_position
        ]


def test_higher_lower_report_of_another_shoe_size_and_the_options_of_other_games(
    server: ServerProcess,
) -> None:
    s = stub(server)
    got = s.Analyze(pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, decks=1))
    want = higher_lower_report(decks=1, modes=(ShuffleMode.CONTINUOUS,))
    assert want.continuous is not None
    higher = want.continuous["HIGHER"].overall.rtp  # the clamp lifts it over 96.70 %
    assert got.bets[0].rtp.exact == f"{higher.numerator}/{higher.denominator}"
    assert got.bets[0].rtp.exact != "6924/7175"
    for request, fragment in [
        (pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, decks=9), "decks 9 is not allowed"),
        (pb.AnalyzeRequest(game=pb.GAME_HILO, decks=2), "decks is for a GAME_HIGHER_LOWER"),
        (
            pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, rounds=3),
            "rounds and cards_per_round are for a GAME_GOA_GAE analysis",
        ),
    ]:
        expect_error(lambda r=request: s.Analyze(r), grpc.StatusCode.INVALID_ARGUMENT, fragment)


@pytest.mark.slow
def test_an_exact_figure_of_thousands_of_digits_is_written_whole(server: ServerProcess) -> None:
    """A depleting shoe's mean over its rounds: 4 decks and no burns give 191 rounds, whose
    mean's denominator passes the 4,300 digits Python writes an int in at once."""
    rules = pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING, burns=0)
    got = stub(server).Analyze(
        pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, decks=4, higher_lower=rules)
    )
    # The figure itself is the report's, checked against references elsewhere; computing it
    # again here would double the test's time. Whole: it parses, it is the double's value.
    assert got.positions == 191
    exact = got.bets[0].rtp.exact
    numerator, denominator = exact.split("/")
    assert len(denominator) > 4300, len(denominator)
    rtp = Fraction(_whole(numerator), _whole(denominator))
    assert fraction_text(rtp) == exact and float(rtp) == got.bets[0].rtp.value


def _whole(digits: str) -> int:
    """The integer ``digits`` write, in pieces under Python's 4,300-digit limit."""
    n = 0
    for start in range(0, len(digits), 1000):
        piece = digits[start : start + 1000]
        n = n * 10 ** len(piece) + int(piece)
    return n
