"""The Analyze RPC's answer: the reports of ``pricing.analysis`` as ``AnalyzeResponse``
messages (the numbers ``pricing analyze --json`` prints)."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from pricing.analysis.blackjack import BlackjackReport, blackjack_rtp
from pricing.analysis.goagae import GoaGaeReport, goagae_rtp
from pricing.analysis.hilo import HiLoReport, hilo_rtp
from pricing.analysis.report import BetReport
from pricing.errors import InvalidOption
from pricing.goagae import GoaGaePaytable
from pricing.hilo import HiLoPaytable
from pricing.messages import RULES_FROM_PROTO, game_from_proto
from pricing.tables import Game
from pricing.v1 import pricing_pb2 as pb

__all__ = ["MAX_SHOES", "answer_analyze"]

#: The most simulated shoes one Analyze may ask for (about two minutes of one core).
MAX_SHOES: Final = 100_000
DEFAULT_SHOES: Final = 2_000


def _ratio(x: Fraction) -> pb.Ratio:
    return pb.Ratio(value=float(x), exact=f"{x.numerator}/{x.denominator}")


def _bet(r: BetReport) -> pb.DynamicBetReport:
    return pb.DynamicBetReport(
        bet=r.bet,
        rule=pb.PayRule(
            rtp_bp=r.rule.rtp_bp,
            min_hundredths=r.rule.min_hundredths,
            max_hundredths=r.rule.max_hundredths,
        ),
        rtp=_ratio(r.rtp),
        per_offered_round=_ratio(r.per_offered_round),
        by_position=[_ratio(x) for x in r.by_position],
        closed=_ratio(r.closed),
        closed_by_position=[_ratio(x) for x in r.closed_by_position],
        clamped_min=_ratio(r.clamped_min),
        clamped_max=_ratio(r.clamped_max),
        min_payout_hundredths=r.min_payout or 0,
        max_payout_hundredths=r.max_payout or 0,
        distribution=[
            pb.PayoutProbability(payout_hundredths=k, probability=float(v))
            for k, v in r.distribution.items()
        ],
    )


def report_to_proto(report: HiLoReport | GoaGaeReport | BlackjackReport) -> pb.AnalyzeResponse:
    if isinstance(report, HiLoReport):
        return pb.AnalyzeResponse(
            game=pb.HILO,
            positions=report.positions,
            bets=[_bet(r) for r in report.bets.values()],
        )
    if isinstance(report, GoaGaeReport):
        return pb.AnalyzeResponse(
            game=pb.GOA_GAE,
            positions=report.rounds,
            bets=[_bet(r) for r in report.bets.values()],
            left_out=report.left_out,
        )
    side_bets = []
    for decks, by_key in report.by_penetration.items():
        for key, points in by_key.items():
            side_bets.append(
                pb.SideBetReport(
                    decks=decks,
                    bet=key,
                    full_shoe_rtp=_ratio(report.full_shoe[decks][key]),
                    favourable_rounds=report.favourable_rounds[decks][key],
                    by_penetration=[
                        pb.PenetrationPoint(
                            cards_dealt=p.cards_dealt,
                            penetration=float(p.penetration),
                            simulated_mean=p.simulated_mean,
                            simulated_se=p.simulated_se,
                            spread=p.spread,
                            favourable=p.favourable,
                            favourable_se=p.favourable_se,
                        )
                        for p in points
                    ],
                )
            )
    return pb.AnalyzeResponse(
        game=pb.BLACKJACK, side_bets=side_bets, shoes=report.shoes, seed=report.seed
    )


def answer_analyze(request: pb.AnalyzeRequest) -> pb.AnalyzeResponse:
    """The report an Analyze request asks for; a bad option is ``InvalidOption``."""
    game = game_from_proto(request.game)
    chosen = request.WhichOneof("rules")
    rules: object = None
    if chosen is not None:
        field, convert = RULES_FROM_PROTO[game]
        if chosen != field:
            raise InvalidOption(f"rules {chosen!r} were sent for a {game.name} analysis")
        rules = convert(getattr(request, field))
    if game is Game.HILO:
        assert rules is None or isinstance(rules, HiLoPaytable)
        return report_to_proto(hilo_rtp(rules or HiLoPaytable()))
    if game is Game.GOA_GAE:
        assert rules is None or isinstance(rules, GoaGaePaytable)
        return report_to_proto(
            goagae_rtp(
                rules or GoaGaePaytable(),
                rounds=max(request.rounds, 1),
                cards_per_round=request.cards_per_round or 6,
            )
        )
    if rules is not None:
        raise InvalidOption("blackjack's Analyze reports every preset: send no rules")
    shoes = request.shoes or DEFAULT_SHOES
    if shoes > MAX_SHOES:
        raise InvalidOption(f"shoes must be at most {MAX_SHOES}, got {shoes}")
    return report_to_proto(blackjack_rtp(shoes=shoes, seed=request.seed))
