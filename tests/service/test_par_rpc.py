"""The Analyze RPC's PAR sheet (``AnalyzeRequest.par``) on the real server: the sheet the
command line builds, on the wire, exact; a table's rules choosing the bets and protection;
the options refused by name."""

from __future__ import annotations

from fractions import Fraction

import grpc
import pytest

from pricing.analysis.par import MAX_WIN_ROWS
from pricing.analysis.par_games import hilo_par_sheet, two_hand_par_sheet
from pricing.client import error_details
from pricing.games.baccarat import bets as baccarat
from pricing.server.par_proto import sheet_to_proto
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as rpc
from tests.support.server import ServerProcess
from tests.support.wire import expect_error


def stub(server: ServerProcess) -> rpc.PricingServiceStub:
    return rpc.PricingServiceStub(server.channel())


def test_hilo_sheet_over_the_wire(server: ServerProcess) -> None:
    got = stub(server).Analyze(pb.AnalyzeRequest(game=pb.GAME_HILO, par=True, min_rtp_bp=8500))
    want = sheet_to_proto(hilo_par_sheet(min_rtp=Fraction(85, 100)), pb.GAME_HILO)
    assert got.game == pb.GAME_HILO and got.par == want
    seven = next(b for b in got.par.bets if b.bet == "SEVEN")
    assert seven.basis == pb.PAR_BASIS_OFFERED_ROUNDS
    assert seven.precision == pb.FIGURE_PRECISION_EXACT
    assert seven.distribution.below_min.exact == "1/1" and got.par.min_rtp.exact == "17/20"
    assert [v.level_percent for v in seven.volatility] == [90, 95, 99]
    assert not got.bets  # the sheet instead of the report


def test_a_tables_rules_choose_the_sheets_bets_and_protection(server: ServerProcess) -> None:
    rules = pb.BaccaratRules(side_bets={"DRAGON_7": pb.SideBetPaytable()}, close_at_rtp_bp=10_000)
    got = stub(server).Analyze(
        pb.AnalyzeRequest(
            game=pb.GAME_BACCARAT, par=True, decks=1, shoes=3, seed=4, cut_card=10, baccarat=rules
        )
    )
    want = two_hand_par_sheet(
        "baccarat", decks=1, shoes=3, seed=4, cut_card=10, close_at_rtp_bp=10_000,
        paytables=(*baccarat.main_paytables(baccarat.Commission.STANDARD, 8),
                   baccarat.paytable("DRAGON_7")),
    )  # fmt: skip
    assert got.par == sheet_to_proto(want, pb.GAME_BACCARAT)
    assert [b.bet for b in got.par.bets] == [
        "PLAYER/standard", "BANKER/standard", "TIE/8", "DRAGON_7/standard",
    ]  # fmt: skip
    dragon = got.par.bets[-1].distribution
    assert dragon.precision == pb.FIGURE_PRECISION_SIMULATED and dragon.shoes == 3
    assert Fraction(dragon.maximum.exact) < 1  # protection closed every favourable round


def test_the_sheets_options_are_checked(server: ServerProcess) -> None:
    s = stub(server)
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_HILO, min_rtp_bp=8500)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "min_rtp_bp is for a PAR sheet",
    )
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_HILO, par=True, min_rtp_bp=10_001)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "min_rtp_bp must be at most 10000",
    )
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_DRAGON_TIGER, par=True, shoes=5000)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "shoes must be at most 2000",
    )
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_HILO, par=True, decks=2)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "decks is for",
    )


def test_a_moving_price_with_many_payouts_comes_banded(server: ServerProcess) -> None:
    rules = pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING)
    got = stub(server).Analyze(
        pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, par=True, decks=1, higher_lower=rules)
    )
    assert got.ByteSize() < 1 << 18  # one deck: 181 payouts of HIGHER in a few rows
    higher = next(b for b in got.par.bets if b.bet == "HIGHER/depleting")
    assert higher.outcomes_banded and len(higher.outcomes) <= MAX_WIN_ROWS + 1
    assert sum(Fraction(o.probability.exact) for o in higher.outcomes) == 1
    assert sum(Fraction(o.rtp_share.exact) for o in higher.outcomes) == 1
    mean = sum(Fraction(o.probability.exact) * (1 + Fraction(o.net.exact)) for o in higher.outcomes)
    assert mean == Fraction(higher.rtp.exact)  # the bands keep the RTP exactly


def test_blackjacks_sheet_with_game_protection(server: ServerProcess) -> None:
    s = stub(server)
    got = s.Analyze(
        pb.AnalyzeRequest(
            game=pb.GAME_BLACKJACK, par=True, shoes=3, seed=2, side_bet="PAIRS",
            preset="any-pair", close_at_rtp_bp=10_000,
        )
    )  # fmt: skip
    (pairs,) = [b for b in got.par.bets if b.bet == "PAIRS/any-pair"]
    assert pairs.distribution.precision == pb.FIGURE_PRECISION_SIMULATED
    assert Fraction(pairs.distribution.maximum.exact) < 1  # favourable rounds closed
    assert any(r.name == "Game protection" and "100 %" in r.value for r in got.par.rules)
    for request, fragment in (
        (pb.AnalyzeRequest(game=pb.GAME_HILO, par=True, close_at_rtp_bp=10_000), "GAME_BLACKJACK"),
        (pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, close_at_rtp_bp=10_000), "send par too"),
    ):
        error = expect_error(
            lambda r=request: s.Analyze(r), grpc.StatusCode.INVALID_ARGUMENT, fragment
        )
        assert "close_at_rtp_bp" in (error.details() or "")


@pytest.mark.parametrize("game", [pb.GAME_BACCARAT, pb.GAME_DRAGON_TIGER, pb.GAME_BLACKJACK])
def test_a_simulated_sheet_needs_two_shoes(server: ServerProcess, game: int) -> None:
    error = expect_error(
        lambda: stub(server).Analyze(pb.AnalyzeRequest(game=game, par=True, shoes=1)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "shoes must be at least 2 for a PAR sheet (its standard errors need two shoes), got 1",
    )
    assert [v.field for v in error_details(error).field_violations] == ["shoes"]
