"""A PAR sheet's figures for a bet whose price or odds move with the shoe: the distribution of
its RTP over the rounds a table deals, and the variance of a unit bet over the whole shoe.

The input is a sequence of ``(weight, state)`` pairs, one per state the round can be priced
in: the weight is the state's probability or any number proportional to it (an ``int`` or a
``Fraction``: the figures are then exact; a seeded simulation gives each sampled round weight
1 and the figures are exact over the sample), the state either the bet's ``SideBetOdds`` in
that state or just its RTP (a ``Fraction``). A state is *offered* unless the odds are closed
(no deal left), its weight is 0, or game protection closes it (``close_at_rtp_bp``, as
``pricing.games.fixed_odds.protection_closes``: RTP ≥ the bound). The figures are over the
offered rounds, each counted by its weight:

- ``minimum`` / ``maximum``: the extremes of the RTP over offered states;
- ``mean``: ``Σ w · RTP / Σ w`` (what a player staking a unit on every offered round gets back
  per unit staked);
- ``below_min``: the share of offered rounds whose RTP is under a floor ``min_rtp`` (strictly);
- ``offered``: the share of all the weight that is offered;
- given odds for every state, ``variance``: the variance of the net result of a unit staked on
  a random offered round, by the law of total variance ``E[Var | state] + Var[E | state]`` (the
  spread of the prices included), ``price_variance`` its second term (the variance of the RTP
  over offered rounds), and ``standard_deviation``, the variance's root; ``None`` otherwise.

>>> from pricing.games.fixed_odds import SideBetOdds
>>> cheap = SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": 80})   # RTP 0.9
>>> rich = SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": 120})   # RTP 1.1
>>> d = rtp_distribution([(3, cheap), (1, rich)], min_rtp=Fraction(1))
>>> d.minimum, d.maximum, d.mean, d.below_min, d.offered
(Fraction(9, 10), Fraction(11, 10), Fraction(19, 20), Fraction(3, 4), Fraction(1, 1))
>>> d.variance, d.price_variance  # 3/4 · 0.81 + 1/4 · 1.21 + (3/4 · 1/4 · 0.2²: the prices)
(Fraction(367, 400), Fraction(3, 400))
>>> rtp_distribution([(3, cheap), (1, rich)], close_at_rtp_bp=10_000).mean
Fraction(9, 10)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pricing.analysis.hilo import FULL_DECK_CLASSES, hilo_positions
from pricing.analysis.par import VolatilityLevel, pay_span, volatility
from pricing.analysis.report import PositionTally, exact_number
from pricing.games.fixed_odds import LOSE_HUNDREDTHS, SideBetOdds, protection_closes
from pricing.games.hilo import DEFAULT_PAYTABLE, OPENING_BURNS, RESULTS_PER_DECK, HiLoPaytable
from pricing.payout import BetPrice

__all__ = [
    "RtpAccumulator",
    "RtpDistribution",
    "hilo_states",
    "mixture_odds",
    "pay_text",
    "position_states",
    "rtp_distribution",
]


@dataclass(frozen=True, slots=True)
class RtpDistribution:
    """The RTP of a moving-price bet over the rounds a table deals (see the module's
    docstring). ``states``: the offered states counted; ``min_rtp`` the floor ``below_min``
    is measured against (``None``: not asked, ``below_min`` is ``None``)."""

    states: int
    offered: Fraction
    minimum: Fraction
    maximum: Fraction
    mean: Fraction
    min_rtp: Fraction | None
    below_min: Fraction | None
    variance: Fraction | None
    price_variance: Fraction | None
    standard_deviation: float | None

    def volatility(self) -> tuple[VolatilityLevel, ...] | None:
        """The volatility index and realised-RTP ranges of a unit staked on every offered
        round (around ``mean``, with the whole-shoe σ); ``None`` without the variance."""
        if self.standard_deviation is None:
            return None
        return volatility(self.mean, self.standard_deviation)

    def as_dict(self) -> dict[str, Any]:
        def exact(x: Fraction | None) -> dict[str, Any] | None:
            return None if x is None else exact_number(x)

        return {
            "states": self.states,
            "offered": exact_number(self.offered),
            "minimum": exact_number(self.minimum),
            "maximum": exact_number(self.maximum),
            "mean": exact_number(self.mean),
            "min_rtp": exact(self.min_rtp),
            "below_min": exact(self.below_min),
            "variance": exact(self.variance),
            "price_variance": exact(self.price_variance),
            "standard_deviation": self.standard_deviation,
        }


def _rtp_closes(rtp: Fraction, close_at_rtp_bp: int) -> bool:
    return bool(close_at_rtp_bp) and 10_000 * rtp >= close_at_rtp_bp


class _ExactSum:
    """A sum of many fractions kept as integer numerators per denominator, added up once at
    the end: a simulation's thousands of states share a few hundred denominators (one per
    number of cards left), and summing ``Fraction``s one by one would grow the common
    denominator at every step."""

    __slots__ = ("_by_denominator",)

    def __init__(self) -> None:
        self._by_denominator: dict[int, int] = {}

    def add(self, numerator: int, denominator: int) -> None:
        bucket = self._by_denominator
        bucket[denominator] = bucket.get(denominator, 0) + numerator

    def total(self) -> Fraction:
        return sum((Fraction(n, d) for d, n in self._by_denominator.items()), Fraction(0))


def _moments(odds: SideBetOdds) -> tuple[int, int, int]:
    """``(Σ ways · pay, Σ ways · pay², total)``: E[net] and E[net²] of a unit staked are the
    first two over ``100 · total`` and ``10⁴ · total``."""
    first = second = 0
    total = 0
    for o in odds.outcomes.values():
        first += o.ways * o.payout_hundredths
        second += o.ways * o.payout_hundredths * o.payout_hundredths
        total = o.total
    return first, second, total


class RtpAccumulator:
    """``rtp_distribution``'s figures built up state by state: ``add`` each ``(weight, odds or
    RTP)`` state, then ``result``. It keeps only exact integer sums, the extremes and the
    counts, never a state: a simulation of any length takes the same memory, and the figures
    are the same whatever order the states come in.

    >>> acc = RtpAccumulator(min_rtp=Fraction(1))
    >>> acc.add(3, SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": 80}))
    True
    >>> acc.add(1, Fraction(11, 10)), acc.add(0, Fraction(1))  # a weight 0 is never offered
    (True, False)
    >>> d = acc.result()
    >>> d.states, d.mean, d.below_min, d.offered, d.variance  # no variance without every odds
    (2, Fraction(19, 20), Fraction(3, 4), Fraction(1, 1), None)
    """

    __slots__ = (
        "_below",
        "_close_at_rtp_bp",
        "_count",
        "_high",
        "_low",
        "_min_rtp",
        "_sums",
        "_total",
        "_with_odds",
    )

    def __init__(self, *, min_rtp: Fraction | None = None, close_at_rtp_bp: int = 0) -> None:
        self._min_rtp = min_rtp
        self._close_at_rtp_bp = close_at_rtp_bp
        self._total = _ExactSum()  # Σ w over every state
        self._below = _ExactSum()  # Σ w over the offered states under the floor
        # By the offered states' (weight's denominator, RTP's denominator): the numerators of
        # Σ w, Σ w · RTP, Σ w · RTP² and Σ w · E[net² | state] over the weight's denominator
        # times the RTP's to the power 0, 1, 2 and 2 (a simulation's states share a few
        # hundred pairs: one dictionary look-up a state).
        self._sums: dict[tuple[int, int], list[int]] = {}
        self._with_odds = True  # every offered state came with its odds
        self._count = 0
        self._low: tuple[int, int] | None = None  # the extremes, as (numerator, denominator)
        self._high: tuple[int, int] | None = None

    def add(self, weight: int | Fraction, state: SideBetOdds | Fraction) -> bool:
        """Count one state; whether it is offered. ``ValueError`` for a negative weight."""
        if type(weight) is int:  # a simulated round's 1: no Fraction to build
            wn, wd = weight, 1
        else:
            w = Fraction(weight)
            wn, wd = w.numerator, w.denominator
        if wn < 0:
            raise ValueError(f"a state's weight cannot be negative: {weight}")
        self._total.add(wn, wd)
        if not wn:
            return False
        if isinstance(state, SideBetOdds):
            if not state.open or protection_closes(state, self._close_at_rtp_bp):
                return False
            first, sq, n = _moments(state)
            # RTP = 1 + first / (100 n) = (100 n + first) / (100 n), and E[net²] = sq / (10⁴ n),
            # which is sq · n over the RTP's denominator squared.
            rn, rd, second = 100 * n + first, 100 * n, sq * n
        else:
            rtp_in = Fraction(state)
            if _rtp_closes(rtp_in, self._close_at_rtp_bp):
                return False
            rn, rd, second = rtp_in.numerator, rtp_in.denominator, 0
            self._with_odds = False
        self._count += 1
        sums = self._sums.get((wd, rd))
        if sums is None:
            sums = self._sums[wd, rd] = [0, 0, 0, 0]
        sums[0] += wn
        sums[1] += wn * rn
        sums[2] += wn * rn * rn
        sums[3] += wn * second
        # Compared as integers (every denominator is positive): no Fraction per state.
        low, high = self._low, self._high
        if low is None or rn * low[1] < low[0] * rd:
            self._low = (rn, rd)
        if high is None or rn * high[1] > high[0] * rd:
            self._high = (rn, rd)
        floor = self._min_rtp
        if floor is not None and rn * floor.denominator < floor.numerator * rd:
            self._below.add(wn, wd)
        return True

    def _sum(self, slot: int, power: int) -> Fraction:
        """One of the sums over the offered states: ``slot``'s numerators over the weight's
        denominator times the RTP's to the ``power``."""
        total = _ExactSum()
        for (wd, rd), sums in self._sums.items():
            total.add(sums[slot], wd * rd**power)
        return total.total()

    def result(self) -> RtpDistribution:
        """The distribution of the states added so far; ``ValueError`` when none is offered."""
        low, high, min_rtp = self._low, self._high, self._min_rtp
        if not self._count or low is None or high is None:
            raise ValueError("no state is offered: nothing to describe")
        offered = self._sum(0, 0)
        mean = self._sum(1, 1) / offered
        variance = spread = None
        if self._with_odds:
            # The law of total variance: E[Var | state] + Var[E | state]. E[net | state] is the
            # state's RTP − 1, so the second term is the RTP's variance, and the whole is
            # E[net²] − E[net]² over the offered states.
            spread = self._sum(2, 2) / offered - mean * mean
            variance = self._sum(3, 2) / offered - (mean - 1) ** 2
        return RtpDistribution(
            states=self._count,
            offered=offered / self._total.total(),
            minimum=Fraction(*low),
            maximum=Fraction(*high),
            mean=mean,
            min_rtp=min_rtp,
            below_min=None if min_rtp is None else self._below.total() / offered,
            variance=variance,
            price_variance=spread,
            standard_deviation=None if variance is None else math.sqrt(variance),
        )


def rtp_distribution(
    states: Iterable[tuple[int | Fraction, SideBetOdds | Fraction]],
    *,
    min_rtp: Fraction | None = None,
    close_at_rtp_bp: int = 0,
) -> RtpDistribution:
    """The distribution of the RTP over ``(weight, odds or RTP)`` states (see the module's
    docstring; ``RtpAccumulator`` over them). ``ValueError`` for a negative weight or when no
    state is offered."""
    accumulator = RtpAccumulator(min_rtp=min_rtp, close_at_rtp_bp=close_at_rtp_bp)
    for weight, state in states:
        accumulator.add(weight, state)
    return accumulator.result()


#: The odds of a state in which the bet is not offered.
def _closed(bet: str) -> SideBetOdds:
    return SideBetOdds(bet, {}, 0, 0)


def position_states(
    bet: str,
    positions: Sequence[PositionTally],
    price: Callable[[int, int], BetPrice],
) -> Iterator[tuple[Fraction, SideBetOdds]]:
    """Every state a moving-price bet is priced in, exactly, from a report's deck states
    (``pricing.analysis.report.PositionTally``: Hi-Lo's result cards, Goa Gae's rounds,
    Higher/Lower's rounds): one pair per position and number of winning outcomes left, weighted
    by its probability (the positions alike), with the bet's odds there — ``WIN`` in ``wins``
    of ``outcomes`` at the price ``price(wins, outcomes)`` offers; closed odds where it offers
    none or nothing wins (as ``pricing.analysis.report.bet_report`` counts them)."""
    count = len(positions)
    for tally in positions:
        total = sum(tally.ways)
        for wins, n in enumerate(tally.ways):
            if not n:
                continue
            offer = price(wins, tally.outcomes) if wins else None
            if offer is None or not offer.open:
                odds = _closed(bet)
            else:
                odds = SideBetOdds.from_ways(
                    bet, {"WIN": wins}, tally.outcomes, {"WIN": offer.payout_hundredths}
                )
            yield Fraction(n, total * count), odds


def pay_text(pay: int) -> str:
    """A pay in hundredths as odds to 1: ``"0.88 : 1"``, ``"24 : 1"``.

    >>> pay_text(88), pay_text(2400), pay_text(150)
    ('0.88 : 1', '24 : 1', '1.5 : 1')
    """
    return pay_span(pay, pay)


def mixture_odds(
    bet: str,
    states: Iterable[tuple[int | Fraction, SideBetOdds]],
    *,
    close_at_rtp_bp: int = 0,
) -> SideBetOdds:
    """One unit staked on a random offered round, as one bet: the outcomes of every offered
    state (those ``rtp_distribution`` counts), weighted, each winning outcome at each pay its
    own outcome (``"WIN at 0.88 : 1"``), the losses one ``LOSE``. Its RTP is the distribution's
    ``mean`` and its variance the whole-shoe ``variance``: ``pricing.analysis.par.par_bet`` of
    it is the sheet's outcome table for a moving price. ``ValueError`` if none is offered.

    >>> cheap = SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": 80})
    >>> rich = SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": 120})
    >>> mix = mixture_odds("B", [(3, cheap), (1, rich)])
    >>> {k: (o.ways, o.total, o.payout_hundredths) for k, o in mix.outcomes.items()}
    {'WIN at 1.2 : 1': (1, 8, 120), 'WIN at 0.8 : 1': (3, 8, 80), 'LOSE': (4, 8, -100)}
    """
    chances: dict[tuple[str, int], Fraction] = {}
    weight = Fraction(0)
    for w_in, odds in states:
        w = Fraction(w_in)
        if not w or not odds.open or protection_closes(odds, close_at_rtp_bp):
            continue
        weight += w
        for name, o in odds.outcomes.items():
            if o.ways and o.payout_hundredths != LOSE_HUNDREDTHS:
                key = (name, o.payout_hundredths)
                chances[key] = chances.get(key, Fraction(0)) + w * o.fraction
    if not weight:
        raise ValueError(f"{bet} is never offered: nothing to describe")
    probabilities = {key: p / weight for key, p in chances.items()}
    total = math.lcm(1, *(p.denominator for p in probabilities.values()))
    ordered = sorted(probabilities.items(), key=lambda item: (-item[0][1], item[0][0]))
    named = {f"{name} at {pay_text(pay)}": (pay, p) for (name, pay), p in ordered}
    return SideBetOdds.from_ways(
        bet,
        {key: int(p * total) for key, (_, p) in named.items()},
        total,
        {key: pay for key, (pay, _) in named.items()},
    )


def hilo_states(
    bet: str,
    paytable: HiLoPaytable = DEFAULT_PAYTABLE,
    *,
    sizes: Sequence[int] = FULL_DECK_CLASSES,
    burns: int = OPENING_BURNS,
    results: int = RESULTS_PER_DECK,
) -> Iterator[tuple[Fraction, SideBetOdds]]:
    """Every state a Hi-Lo ``bet`` is priced in over a uniformly shuffled deck, exactly (the
    deck and deal of ``pricing.analysis.hilo.hilo_rtp``; see ``position_states``).

    >>> d = rtp_distribution(hilo_states("SEVEN"), min_rtp=Fraction(85, 100))
    >>> f"{float(d.minimum):.4f} {float(d.maximum):.4f} {float(d.mean):.5f} {d.below_min}"
    '0.8341 0.8350 0.83469 1'
    >>> f"{float(d.offered):.5f} {d.standard_deviation:.4f}"  # closed with no seven left
    '0.99889 3.0115'
    """
    rule = paytable.rules()[bet]
    positions = hilo_positions(sizes=sizes, burns=burns, results=results)[bet]
    return position_states(bet, positions, lambda wins, outcomes: rule.price(bet, wins, outcomes))
