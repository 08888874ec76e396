"""The RTP of a side bet over simulated shoes, for a PAR sheet: the distribution over every
round's exact odds (``pricing.analysis.par_shoe.rtp_distribution``, exact over the sample) and
the standard errors of its mean and of its share below a floor, each shoe a cluster (its
rounds are not independent)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pricing.analysis.par_sheet import DistributionError
from pricing.analysis.par_shoe import RtpDistribution, rtp_distribution
from pricing.analysis.two_hands_sim import Cluster
from pricing.games.fixed_odds import SideBetOdds, protection_closes

__all__ = ["simulated_distribution"]


def simulated_distribution(
    shoes: Sequence[Sequence[tuple[int | Fraction, SideBetOdds]]],
    *,
    min_rtp: Fraction | None = None,
    close_at_rtp_bp: int = 0,
) -> tuple[RtpDistribution, DistributionError]:
    """The RTP's distribution over every ``(weight, odds)`` state of simulated ``shoes``
    (``pricing.analysis.par_shoe.rtp_distribution``, exact over the sample), and the standard
    errors of its mean and of its share below ``min_rtp``, each shoe a cluster."""
    mean, share = Cluster(), Cluster()
    for shoe in shoes:
        x = y = b = 0.0
        for weight, odds in shoe:
            if not weight or not odds.open or protection_closes(odds, close_at_rtp_bp):
                continue
            w = float(weight)
            x += w
            y += w * odds.rtp_numerator / odds.rtp_denominator
            if min_rtp is not None and (
                odds.rtp_numerator * min_rtp.denominator < min_rtp.numerator * odds.rtp_denominator
            ):
                b += w
        mean.add(x, y)
        share.add(x, b)
    distribution = rtp_distribution(
        [state for shoe in shoes for state in shoe],
        min_rtp=min_rtp,
        close_at_rtp_bp=close_at_rtp_bp,
    )
    error = DistributionError(len(shoes), mean.se, None if min_rtp is None else share.se)
    return distribution, error
