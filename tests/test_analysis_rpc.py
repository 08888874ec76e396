"""The Analyze RPC on the real server: the same numbers as ``pricing.analysis``."""

from __future__ import annotations

import grpc

from pricing.analysis import goagae_rtp, hilo_rtp
from pricing.analysis.blackjack import blackjack_rtp
from pricing.games.hilo import HiLoPaytable
from pricing.payout import PayRule
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as rpc
from tests.conftest import ServerProcess
from tests.wire import expect_error


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
    assert len(bj.side_bets) == 8 and bj.shoes == 40
    first = bj.side_bets[0]
    point = want.by_penetration[first.decks][first.bet][-1]
    assert first.by_penetration[-1].simulated_mean == point.simulated_mean


def test_bad_requests_are_invalid_argument(server: ServerProcess) -> None:
    s = stub(server)
    expect_error(lambda: s.Analyze(pb.AnalyzeRequest()), grpc.StatusCode.INVALID_ARGUMENT, "game")
    expect_error(
        lambda: s.Analyze(pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=100_001)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "shoes must be at most 100000",
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
