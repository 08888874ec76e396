"""The Analyze RPC for baccarat and Dragon Tiger on the real server: the numbers of
``pricing.analysis.two_hands``, a table's rules choosing what the shoes price, and the
options refused by name."""

from __future__ import annotations

import grpc
import pytest

from pricing.analysis.two_hands import two_hand_report
from pricing.client import error_details
from pricing.games.baccarat import bets as baccarat
from pricing.games.baccarat.table import BaccaratRules
from pricing.server.analyze import MAX_TWO_HAND_SHOES
from pricing.text import fraction_text
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as rpc
from tests.support.server import ServerProcess
from tests.support.wire import expect_error


def stub(server: ServerProcess) -> rpc.PricingServiceStub:
    return rpc.PricingServiceStub(server.channel())


def test_baccarat_report_over_the_wire(server: ServerProcess) -> None:
    got = stub(server).Analyze(
        pb.AnalyzeRequest(game=pb.GAME_BACCARAT, decks=1, shoes=3, seed=9, cut_card=20)
    )
    want = two_hand_report("baccarat", decks=(1,), shoe_decks=(1,), shoes=3, seed=9, cut_card=20)
    assert got.game == pb.GAME_BACCARAT and (got.shoes, got.seed) == (3, 9)
    assert [(r.decks, r.bet) for r in got.side_bets] == [(1, key) for key in want.full_shoe[1]]
    for report in got.side_bets:
        assert report.full_shoe_rtp.exact == fraction_text(want.full_shoe[1][report.bet])
        effects = want.effect_of_removal[1][report.bet]
        assert [(e.rank, e.rtp_change.exact) for e in report.effect_of_removal] == [
            (rank, fraction_text(x)) for rank, x in effects.items()
        ]
    sim = want.simulations[1]
    dragon = next(r for r in got.side_bets if r.bet == "DRAGON_7/standard")
    assert [p.favourable for p in dragon.by_penetration] == [
        row.favourable for row in sim.by_penetration["DRAGON_7/standard"]
    ]
    assert dragon.favourable_rounds == sim.overall["DRAGON_7/standard"].favourable
    # a preset the shoes do not price has its exact figures only
    evolution = next(r for r in got.side_bets if r.bet == "PERFECT_PAIR/evolution")
    assert not evolution.by_penetration and len(evolution.effect_of_removal) == 13
    (shoes,) = got.simulations
    assert (shoes.decks, shoes.cut_card, shoes.burn, shoes.close_at_rtp_bp) == (1, 20, True, 10_000)
    assert shoes.rounds_per_shoe == sim.rounds_per_shoe
    assert [(s.rule, list(s.bets), s.units_per_shoe) for s in shoes.strategies] == [
        (s.rule, list(s.bets), s.units_per_shoe) for s in sim.strategies
    ]


def test_a_tables_rules_choose_the_bets_and_the_protection(server: ServerProcess) -> None:
    rules = pb.BaccaratRules(
        commission=pb.COMMISSION_EZ,
        side_bets={"DRAGON_7": pb.SideBetPaytable(), "PANDA_8": pb.SideBetPaytable()},
        close_at_rtp_bp=10_500,
    )
    got = stub(server).Analyze(
        pb.AnalyzeRequest(game=pb.GAME_BACCARAT, decks=2, shoes=2, baccarat=rules)
    )
    table = BaccaratRules(
        commission=baccarat.Commission.EZ,
        side_bets=(baccarat.paytable("DRAGON_7"), baccarat.paytable("PANDA_8")),
        close_at_rtp_bp=10_500,
    )
    want = two_hand_report(
        "baccarat", decks=(2,), shoe_decks=(2,), shoes=2, seed=0, close_at_rtp_bp=10_500,
        paytables=table.paytables,
    )  # fmt: skip
    (shoes,) = got.simulations
    assert shoes.close_at_rtp_bp == 10_500
    priced = {r.bet for r in got.side_bets if r.by_penetration}
    assert priced == set(want.simulations[2].overall) == {
        "PLAYER/ez", "BANKER/ez", "TIE/8", "DRAGON_7/standard", "PANDA_8/standard",
    }  # fmt: skip
    assert [r.full_shoe_rtp.exact for r in got.side_bets if r.bet == "PLAYER/ez"] == [
        fraction_text(want.full_shoe[2]["PLAYER/standard"])
    ]
    rules_of = {s.rule for s in shoes.strategies}
    assert {"exact", "jacobson-dragon-7", "jacobson-panda-8", "counts"} == rules_of


def test_dragon_tiger_over_the_wire(server: ServerProcess) -> None:
    got = stub(server).Analyze(pb.AnalyzeRequest(game=pb.GAME_DRAGON_TIGER, shoes=2))
    assert got.game == pb.GAME_DRAGON_TIGER
    sizes = sorted({r.decks for r in got.side_bets})
    assert sizes == [1, 2, 4, 6, 8]
    assert [s.decks for s in got.simulations] == [8]
    tie = next(r for r in got.side_bets if r.decks == 8 and r.bet == "TIE/11")
    assert len(tie.effect_of_removal) == 13 and not tie.by_penetration


@pytest.mark.parametrize(
    ("request_", "field", "words"),
    [
        (
            pb.AnalyzeRequest(game=pb.GAME_BACCARAT, shoes=MAX_TWO_HAND_SHOES + 1),
            "shoes",
            f"shoes must be at most {MAX_TWO_HAND_SHOES}, got {MAX_TWO_HAND_SHOES + 1} (0: 200 "
            "for GAME_BACCARAT)",
        ),
        (pb.AnalyzeRequest(game=pb.GAME_DRAGON_TIGER, decks=9), "decks", "decks 9 is not allowed"),
        (pb.AnalyzeRequest(game=pb.GAME_HILO, cut_card=20), "cut_card", "cut_card is for a"),
        (
            pb.AnalyzeRequest(game=pb.GAME_BACCARAT, shoes=2, side_bet="PAIRS"),
            "side_bet",
            "are for a GAME_BLACKJACK analysis, not GAME_BACCARAT",
        ),
        (
            pb.AnalyzeRequest(game=pb.GAME_BACCARAT, dragon_tiger=pb.DragonTigerRules()),
            "dragon_tiger",
            "rules 'dragon_tiger' were sent for a GAME_BACCARAT analysis",
        ),
    ],
)
def test_bad_options_name_their_field(
    server: ServerProcess, request_: pb.AnalyzeRequest, field: str, words: str
) -> None:
    error = expect_error(
        lambda: stub(server).Analyze(request_), grpc.StatusCode.INVALID_ARGUMENT, words
    )
    assert [v.field for v in error_details(error).field_violations] == [field]
