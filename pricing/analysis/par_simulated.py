"""The RTP of a side bet over simulated shoes, for a PAR sheet: the distribution over every
round's exact odds (``pricing.analysis.par_shoe.rtp_distribution``, exact over the sample) and
the standard errors of its mean and of its share below a floor, each shoe a cluster (its
rounds are not independent).

A sheet adds its shoes one at a time (``SimulatedRtpAccumulator.add_shoe``) and drops each:
what is kept is the exact sums per denominator and the per-shoe cluster sums, so its memory
does not grow with the shoes."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Final

from pricing.analysis.par_sheet import DistributionError
from pricing.analysis.par_shoe import RtpAccumulator, RtpDistribution
from pricing.analysis.two_hands_sim import Cluster
from pricing.errors import InvalidOption
from pricing.games.fixed_odds import SideBetOdds

__all__ = ["MIN_SHOES", "SimulatedRtpAccumulator", "check_shoes", "simulated_distribution"]

#: The fewest shoes a simulated distribution is given for: a standard error taking each shoe
#: as a cluster needs two (with one it would read 0, as if the figure were certain).
MIN_SHOES: Final = 2


def check_shoes(shoes: int) -> int:
    """A simulated sheet's ``shoes``, checked: a whole number, at least ``MIN_SHOES``
    (``InvalidOption`` naming ``shoes`` otherwise).

    >>> check_shoes(2)
    2
    >>> check_shoes(1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: shoes must be a whole number, at least 2 for a PAR sheet ... got 1
    """
    if isinstance(shoes, bool) or not isinstance(shoes, int) or shoes < MIN_SHOES:
        raise InvalidOption(
            f"shoes must be a whole number, at least {MIN_SHOES} for a PAR sheet (its standard "
            f"errors need two shoes), got {shoes!r}",
            field="shoes",
        )
    return shoes


class SimulatedRtpAccumulator:
    """``simulated_distribution``'s figures built up shoe by shoe: ``add_shoe`` each shoe's
    ``(weight, odds)`` states, then ``result``."""

    __slots__ = ("_distribution", "_mean", "_min_rtp", "_share", "shoes")

    def __init__(self, *, min_rtp: Fraction | None = None, close_at_rtp_bp: int = 0) -> None:
        self._min_rtp = min_rtp
        self._distribution = RtpAccumulator(min_rtp=min_rtp, close_at_rtp_bp=close_at_rtp_bp)
        self._mean, self._share = Cluster(), Cluster()
        #: The shoes added so far.
        self.shoes = 0

    def add_shoe(self, states: Iterable[tuple[int | Fraction, SideBetOdds]]) -> None:
        """Count one shoe's states (read once: a generator will do)."""
        min_rtp = self._min_rtp
        x = y = b = 0.0
        for weight, odds in states:
            if not self._distribution.add(weight, odds):  # not offered
                continue
            w = float(weight)
            x += w
            y += w * odds.rtp_numerator / odds.rtp_denominator
            if min_rtp is not None and (
                odds.rtp_numerator * min_rtp.denominator < min_rtp.numerator * odds.rtp_denominator
            ):
                b += w
        self._mean.add(x, y)
        self._share.add(x, b)
        self.shoes += 1

    def result(self) -> tuple[RtpDistribution, DistributionError]:
        """The distribution over the shoes added so far and its standard errors; ``ValueError``
        with fewer than ``MIN_SHOES`` shoes or when no state is offered."""
        if self.shoes < MIN_SHOES:
            raise ValueError(
                f"a simulated distribution's standard errors need {MIN_SHOES} shoes or more, "
                f"got {self.shoes}"
            )
        share = None if self._min_rtp is None else self._share.se
        return self._distribution.result(), DistributionError(self.shoes, self._mean.se, share)


def simulated_distribution(
    shoes: Iterable[Iterable[tuple[int | Fraction, SideBetOdds]]],
    *,
    min_rtp: Fraction | None = None,
    close_at_rtp_bp: int = 0,
) -> tuple[RtpDistribution, DistributionError]:
    """The RTP's distribution over every ``(weight, odds)`` state of simulated ``shoes``
    (``pricing.analysis.par_shoe.rtp_distribution``, exact over the sample), and the standard
    errors of its mean and of its share below ``min_rtp``, each shoe a cluster
    (``SimulatedRtpAccumulator`` over them); ``ValueError`` with fewer than ``MIN_SHOES``."""
    accumulator = SimulatedRtpAccumulator(min_rtp=min_rtp, close_at_rtp_bp=close_at_rtp_bp)
    for shoe in shoes:
        accumulator.add_shoe(shoe)
    return accumulator.result()
