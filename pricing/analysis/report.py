"""The exact report of one dynamic bet, built from integer tallies of deck states.

A dynamic bet (Hi-Lo's five, Goa Gae's category bets) is priced from two numbers: ``outcomes``,
the equally likely results left (cards for Hi-Lo, three-card hands for Goa Gae), fixed at a
position, and ``wins``, the winning ones. At each position the kernels count the deck states by
``wins``; this module applies the one payout rule (``pricing.payout.PayRule``) to each count and
sums exactly: a state of weight ``w`` with payout ``p`` hundredths returns, per unit staked,
``(100 + p) / 100 × wins / outcomes``. Every figure is a ``Fraction``; floats appear only in
``as_dict``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pricing.payout import BetPrice, PayRule, raw_payout_hundredths
from pricing.text import fraction_text

__all__ = ["BetReport", "PositionTally", "bet_report", "exact_number", "fraction_dict"]


@dataclass(frozen=True, slots=True)
class PositionTally:
    """The deck states at one position: ``ways[n]`` states leave ``n`` winning outcomes of
    ``outcomes`` (a uniformly random state: each with probability ``ways[n] / sum(ways)``)."""

    outcomes: int
    ways: Sequence[int]


@dataclass(frozen=True, slots=True)
class BetReport:
    """What one bet returns, exactly, over every way the deck can fall.

    Per position (Hi-Lo: result 1-10; Goa Gae: round 1-N of a deck):

    - ``by_position``: the expected return per unit staked, given the bet is offered there
      (0 where it never is);
    - ``closed_by_position``: the probability that the bet is not offered (no winning outcome);
    - ``distribution_by_position``: offered payout (hundredths of odds to 1) → probability; the
      values sum to 1 − the closed probability.

    Over the positions, each weighted 1/``positions``: ``rtp`` (the mean of ``by_position``
    over the positions where the bet can be offered), ``per_offered_round`` (what a player
    staking one unit on every round where it is offered gets back per unit), ``closed``,
    ``clamped_min``/``clamped_max`` (the probability that the clamp raised/lowered the payout),
    ``distribution``, and the extremes ``min_payout``/``max_payout`` of every payout offered
    with positive probability (``None`` if the bet is never offered).
    """

    bet: str
    rule: PayRule
    by_position: tuple[Fraction, ...]
    closed_by_position: tuple[Fraction, ...]
    distribution_by_position: tuple[dict[int, Fraction], ...]
    rtp: Fraction
    per_offered_round: Fraction
    closed: Fraction
    clamped_min: Fraction
    clamped_max: Fraction
    distribution: dict[int, Fraction]
    min_payout: int | None
    max_payout: int | None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values: each ``Fraction`` as a float and as ``"num/den"`` text."""
        return {
            "bet": self.bet,
            "rule": {
                "rtp_bp": self.rule.rtp_bp,
                "min_hundredths": self.rule.min_hundredths,
                "max_hundredths": self.rule.max_hundredths,
            },
            "rtp": exact_number(self.rtp),
            "per_offered_round": exact_number(self.per_offered_round),
            "by_position": [exact_number(x) for x in self.by_position],
            "closed": exact_number(self.closed),
            "closed_by_position": [exact_number(x) for x in self.closed_by_position],
            "clamped_min": exact_number(self.clamped_min),
            "clamped_max": exact_number(self.clamped_max),
            "min_payout_hundredths": self.min_payout,
            "max_payout_hundredths": self.max_payout,
            "distribution": fraction_dict(self.distribution),
        }


def exact_number(x: Fraction) -> dict[str, Any]:
    """``x`` for JSON: a float to read and ``"num/den"`` text to check."""
    return {"value": float(x), "exact": fraction_text(x)}


def fraction_dict(values: Mapping[int, Fraction]) -> dict[str, float]:
    """``{payout: probability}`` as JSON keys (text) and floats, lowest payout first."""
    return {str(k): float(v) for k, v in sorted(values.items())}


def bet_report(
    bet: str,
    rule: PayRule,
    positions: Sequence[PositionTally],
    price: Callable[[int, int], BetPrice] | None = None,
) -> BetReport:
    """The exact report of ``bet`` paid by ``rule`` over ``positions``.

    ``price(wins, outcomes)`` is the game's own pricing when it does more than the rule (a
    game that closes a bet whose clamped payout would return over par); a state it prices
    closed counts as not offered. Default: ``rule.price``.
    """
    if not positions:
        raise ValueError("a report needs at least one position")
    if price is None:

        def price(wins: int, outcomes: int) -> BetPrice:
            return rule.price(bet, wins, outcomes)

    by_position: list[Fraction] = []
    closed: list[Fraction] = []
    dists: list[dict[int, Fraction]] = []
    offered: list[Fraction] = []
    clamp_min = clamp_max = Fraction(0)
    payouts: set[int] = set()
    for tally in positions:
        total = sum(tally.ways)
        returned = 0  # Σ ways × wins × (100 + payout), over 100 × outcomes × open ways
        open_ways = 0
        dist: dict[int, int] = {}
        raised = cut = 0  # ways the clamp raised / cut the payout
        for wins, ways in enumerate(tally.ways):
            if wins == 0 or ways == 0:
                continue
            offer = price(wins, tally.outcomes)
            if not offer.open:
                continue
            pay = offer.payout_hundredths
            returned += ways * wins * (100 + pay)
            open_ways += ways
            dist[pay] = dist.get(pay, 0) + ways
            if offer.clamped:
                if raw_payout_hundredths(rule.rtp_bp, wins, tally.outcomes) < pay:
                    raised += ways
                else:
                    cut += ways
        clamp_min += Fraction(raised, total)
        clamp_max += Fraction(cut, total)
        payouts.update(dist)
        offered.append(Fraction(open_ways, total))
        closed.append(1 - offered[-1])
        by_position.append(
            Fraction(returned, 100 * tally.outcomes * open_ways) if open_ways else Fraction(0)
        )
        dists.append({pay: Fraction(ways, total) for pay, ways in sorted(dist.items())})
    count = len(positions)
    live = [r for r, o in zip(by_position, offered, strict=True) if o]
    staked = sum(offered, Fraction(0))
    distribution: dict[int, Fraction] = {}
    for dist_k in dists:
        for pay, p in dist_k.items():
            distribution[pay] = distribution.get(pay, Fraction(0)) + p / count
    return BetReport(
        bet=bet,
        rule=rule,
        by_position=tuple(by_position),
        closed_by_position=tuple(closed),
        distribution_by_position=tuple(dists),
        rtp=sum(live, Fraction(0)) / len(live) if live else Fraction(0),
        per_offered_round=(
            sum((r * o for r, o in zip(by_position, offered, strict=True)), Fraction(0)) / staked
            if staked
            else Fraction(0)
        ),
        closed=sum(closed, Fraction(0)) / count,
        clamped_min=clamp_min / count,
        clamped_max=clamp_max / count,
        distribution=dict(sorted(distribution.items())),
        min_payout=min(payouts) if payouts else None,
        max_payout=max(payouts) if payouts else None,
    )
