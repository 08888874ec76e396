"""A plain-Python encoder of fixed-paytable bets: the Python protobuf messages made field by
field, as the reference ``pricing._wire.encode_fixed_bets``'s bytes must decode to. It
shares nothing with the kernel but the messages' definitions."""

from __future__ import annotations

from fractions import Fraction

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from pricing.tables.views import SideBetView
from pricing.v1 import pricing_pb2 as pb

UINT64_MAX = 2**64 - 1


def _ratio(numerator: int, denominator: int) -> pb.Ratio:
    if not denominator:
        return pb.Ratio(value=0.0, exact="0/1")
    exact = Fraction(numerator, denominator)
    return pb.Ratio(value=float(exact), exact=f"{exact.numerator}/{exact.denominator}")


def add_fixed_bet(bets: RepeatedCompositeFieldContainer[pb.SideBetOdds], sb: SideBetView) -> None:
    odds = sb.odds
    rtp = _ratio(odds.rtp_numerator, odds.rtp_denominator)
    outcomes = []
    for name, o in odds.outcomes.items():
        if name == "LOSE":
            continue
        fits = o.total <= UINT64_MAX
        probability = _ratio(o.ways, o.total)
        outcomes.append(
            pb.SideBetOutcome(
                name=name,
                ways=o.ways if fits else 0,
                total=o.total if fits else 0,
                probability=probability.value,
                payout_hundredths=max(o.payout_hundredths, 0),
                probability_exact=probability,
                net_payout_hundredths=o.payout_hundredths,
            )
        )
    bets.append(
        pb.SideBetOdds(
            bet=sb.bet,
            outcomes=outcomes,
            rtp=rtp.value,
            player_favourable=odds.rtp_numerator > odds.rtp_denominator,
            open=sb.open,
            rtp_exact=rtp,
            closed_by_protection=sb.protected,
        )
    )
