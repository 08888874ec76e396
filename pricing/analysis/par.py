"""The math core of a PAR sheet (the report a test lab signs): per fixed-paytable bet, every
outcome and the figures labs read, exactly, from the bet's ``SideBetOdds``.

Every figure is a ``Fraction`` except those that take a square root (the standard deviation,
the volatility index and the realised-RTP ranges): those are floats, each with the exact
variance it comes from beside it. Per unit staked, an outcome paying ``pay`` hundredths (signed:
``-100`` loses the stake, ``0`` pushes, ``-50`` loses half) has the net result ``pay / 100``
and returns ``1 + pay / 100``; so

- the RTP is ``Σ p · (1 + net)`` (stake included: 1 is break-even), the house edge ``1 − RTP``;
- the hit frequency is ``P(net > 0)`` (a push or a half loss is not a hit);
- the variance per unit staked is ``E[net²] − E[net]²``, the standard deviation its root;
- an outcome's share of the RTP is ``(1 + net) · p / RTP``: a loss returns nothing, so it
  counts 0, a push its returned stake, and the shares sum to 1;
- the volatility index at a confidence level ``c`` is ``VI = z · σ`` with ``z`` the two-sided
  normal quantile, ``statistics.NormalDist().inv_cdf((1 + c) / 2)`` (1.645 at 90 %, 1.960 at
  95 %, 2.576 at 99 %), and after ``N`` independent rounds the realised RTP falls in
  ``RTP ± VI / √N`` with probability about ``c`` (the central limit theorem);
- the maximum win is the largest net pay of the paytable, with its probability and "1 in X";
  GLI-11 §4.8.2 asks an advertised top award to be hittable at least once in 100 million
  games: ``max_win_hittable`` is ``p ≥ 10⁻⁸``.

Odds that move with the shoe are summarised by ``rtp_distribution`` (see
``pricing.analysis.par_shoe``).

>>> from pricing.games.fixed_odds import SideBetOdds
>>> odds = SideBetOdds.from_ways("TIE", {"WIN": 1}, 10, {"WIN": 800})
>>> par = par_bet(odds)
>>> par.rtp, par.house_edge, par.hit_frequency, par.variance
(Fraction(9, 10), Fraction(1, 10), Fraction(1, 10), Fraction(729, 100))
>>> [(o.name, o.net, o.probability, o.one_in, o.rtp_share) for o in par.outcomes]
[('WIN', Fraction(8, 1), Fraction(1, 10), Fraction(10, 1), Fraction(1, 1)), \
('LOSE', Fraction(-1, 1), Fraction(9, 10), Fraction(10, 9), Fraction(0, 1))]
>>> round(par.standard_deviation, 4), round(par.volatility[0].index, 4)
(2.7, 4.4411)
>>> r = par.volatility[0].ranges[0]
>>> r.rounds, round(r.low, 4), round(r.high, 4)
(1000, 0.7596, 1.0404)
>>> par.max_win, par.max_win_one_in, par.max_win_hittable
(Fraction(8, 1), Fraction(10, 1), True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any, Final

from pricing.analysis.report import exact_number
from pricing.games.fixed_odds import SideBetOdds

__all__ = [
    "CONFIDENCE_LEVELS",
    "HITTABLE_ONE_IN",
    "MAX_WIN_ROWS",
    "ROUND_COUNTS",
    "ParBet",
    "ParOutcome",
    "RtpRange",
    "VolatilityLevel",
    "banded_outcomes",
    "one_in",
    "par_bet",
    "par_bets",
    "volatility",
    "z_score",
]

#: The confidence levels of the volatility index, in percent.
CONFIDENCE_LEVELS: Final = (90, 95, 99)
#: The numbers of rounds the realised-RTP range is given after: 10³ … 10⁸.
ROUND_COUNTS: Final = tuple(10**k for k in range(3, 9))
#: GLI-11 §4.8.2: a top award must be hittable at least once in this many games.
HITTABLE_ONE_IN: Final = 100_000_000
#: The most winning rows a printed or wired outcome table shows: a price that moves offers
#: hundreds of payouts (Higher/Lower's depleting shoe over a thousand), banded beyond this.
MAX_WIN_ROWS: Final = 24


def one_in(p: Fraction) -> Fraction | None:
    """The odds as "1 in X": ``X = 1 / p``, exact; ``None`` when ``p`` is 0 (never happens).

    >>> one_in(Fraction(3, 8)), one_in(Fraction(0))
    (Fraction(8, 3), None)
    """
    return 1 / p if p else None


def z_score(level: int) -> float:
    """The two-sided normal quantile of a confidence ``level`` in percent: a normal variable
    falls within ``± z`` standard deviations of its mean with probability ``level`` %.

    >>> [round(z_score(c), 3) for c in CONFIDENCE_LEVELS]
    [1.645, 1.96, 2.576]
    """
    if not 0 < level < 100:
        raise ValueError(f"a confidence level is in percent, strictly between 0 and 100: {level}")
    return NormalDist().inv_cdf(0.5 + level / 200)


@dataclass(frozen=True, slots=True)
class ParOutcome:
    """One outcome of a bet: its name, signed pay in hundredths, net result per unit staked
    (``pay / 100``: a push 0, a half loss −1/2, a loss −1), probability, "1 in X"
    (``None`` for probability 0) and share of the RTP (``(1 + net) · p / RTP``: a loss 0;
    0 for every outcome when the RTP is 0)."""

    name: str
    payout_hundredths: int
    net: Fraction
    probability: Fraction
    one_in: Fraction | None
    rtp_share: Fraction

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: each exact figure as ``{"value": float, "exact": "num/den"}``."""
        return {
            "name": self.name,
            "payout_hundredths": self.payout_hundredths,
            "net": exact_number(self.net),
            "probability": exact_number(self.probability),
            "one_in": None if self.one_in is None else exact_number(self.one_in),
            "rtp_share": exact_number(self.rtp_share),
        }


@dataclass(frozen=True, slots=True)
class RtpRange:
    """Where the realised RTP falls after ``rounds`` independent rounds, at a level:
    ``rtp ± VI / √rounds`` (floats: they take a root)."""

    rounds: int
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class VolatilityLevel:
    """The volatility index at ``level`` % (``index = z · σ``) and the realised-RTP ranges
    after each of ``ROUND_COUNTS`` rounds."""

    level: int
    z: float
    index: float
    ranges: tuple[RtpRange, ...]


def volatility(
    rtp: Fraction,
    standard_deviation: float,
    levels: tuple[int, ...] = CONFIDENCE_LEVELS,
    rounds: tuple[int, ...] = ROUND_COUNTS,
) -> tuple[VolatilityLevel, ...]:
    """The volatility index of a bet with this RTP and σ at each of ``levels``, with the
    realised-RTP range after each of ``rounds`` (also for a moving-price bet's RTP and
    whole-shoe σ: see ``pricing.analysis.par_shoe``).

    >>> [(v.level, round(v.index, 3)) for v in volatility(Fraction(1), 1.0)]
    [(90, 1.645), (95, 1.96), (99, 2.576)]
    """
    out = []
    centre = float(rtp)
    for level in levels:
        z = z_score(level)
        index = z * standard_deviation
        out.append(
            VolatilityLevel(
                level,
                z,
                index,
                tuple(
                    # A realised RTP is never negative: the normal approximation's low end is
                    # cut at 0 (it is rough anyway when a bet hits only a few times in n).
                    RtpRange(
                        n, max(0.0, centre - index / math.sqrt(n)), centre + index / math.sqrt(n)
                    )
                    for n in rounds
                ),
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ParBet:
    """The PAR sheet's figures of one fixed-paytable bet (see the module's docstring).

    ``outcomes`` keep the odds' order (``LOSE`` last); ``mean_net`` is ``E[net] = RTP − 1``;
    ``standard_deviation`` is ``√variance`` as a float; ``max_win`` the largest net pay of
    any outcome, ``max_win_probability`` the probability of the outcomes paying it."""

    bet: str
    outcomes: tuple[ParOutcome, ...]
    rtp: Fraction
    house_edge: Fraction
    hit_frequency: Fraction
    mean_net: Fraction
    variance: Fraction
    standard_deviation: float
    volatility: tuple[VolatilityLevel, ...]
    max_win: Fraction
    max_win_probability: Fraction
    max_win_one_in: Fraction | None
    max_win_hittable: bool

    def volatility_index(self, level: int) -> float:
        """The VI at ``level`` % (one of ``CONFIDENCE_LEVELS``)."""
        for v in self.volatility:
            if v.level == level:
                return v.index
        raise KeyError(level)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, with the keys the sheet's ``--json`` names: ``rtp_exact``,
        ``hit_frequency_exact``, ``variance_exact`` (``"num/den"``), ``standard_deviation``,
        ``volatility_index`` (``{"90": …, "95": …, "99": …}``), ``outcomes``, and the rest."""
        return {
            "bet": self.bet,
            "rtp": float(self.rtp),
            "rtp_exact": exact_number(self.rtp)["exact"],
            "house_edge": exact_number(self.house_edge),
            "hit_frequency": float(self.hit_frequency),
            "hit_frequency_exact": exact_number(self.hit_frequency)["exact"],
            "variance": float(self.variance),
            "variance_exact": exact_number(self.variance)["exact"],
            "standard_deviation": self.standard_deviation,
            "volatility_index": {str(v.level): v.index for v in self.volatility},
            "rtp_ranges": {
                str(v.level): {str(r.rounds): [r.low, r.high] for r in v.ranges}
                for v in self.volatility
            },
            "max_win": exact_number(self.max_win),
            "max_win_probability": exact_number(self.max_win_probability),
            "max_win_one_in": (
                None if self.max_win_one_in is None else exact_number(self.max_win_one_in)
            ),
            "max_win_hittable": self.max_win_hittable,
            "outcomes": [o.as_dict() for o in self.outcomes],
        }


def par_bet(odds: SideBetOdds) -> ParBet:
    """The PAR figures of a fixed-paytable bet from its exact odds; ``ValueError`` for a
    closed bet (no deal left: no distribution to describe)."""
    if not odds.open:
        raise ValueError(f"{odds.bet} is closed: too few cards left to deal it")
    dist = [
        (name, o.payout_hundredths, Fraction(o.payout_hundredths, 100), o.fraction)
        for name, o in odds.outcomes.items()
    ]
    rtp = sum((p * (1 + net) for _, _, net, p in dist), Fraction(0))
    mean = rtp - 1
    second = sum((p * net * net for _, _, net, p in dist), Fraction(0))
    variance = second - mean * mean
    outcomes = tuple(
        ParOutcome(name, pay, net, p, one_in(p), p * (1 + net) / rtp if rtp else Fraction(0))
        for name, pay, net, p in dist
    )
    top = max(net for _, _, net, _ in dist)
    top_p = sum((p for _, _, net, p in dist if net == top), Fraction(0))
    sd = math.sqrt(variance)
    return ParBet(
        bet=odds.bet,
        outcomes=outcomes,
        rtp=rtp,
        house_edge=1 - rtp,
        hit_frequency=sum((p for _, _, net, p in dist if net > 0), Fraction(0)),
        mean_net=mean,
        variance=variance,
        standard_deviation=sd,
        volatility=volatility(rtp, sd),
        max_win=top,
        max_win_probability=top_p,
        max_win_one_in=one_in(top_p),
        max_win_hittable=top_p * HITTABLE_ONE_IN >= 1,
    )


def par_bets(odds: Mapping[str, SideBetOdds]) -> dict[str, ParBet]:
    """Every open bet of a game's priced bets (``{bet: SideBetOdds}``, as the games' ``odds``
    functions return them), in their order; closed bets are left out."""
    return {bet: par_bet(o) for bet, o in odds.items() if o.open}


def banded_outcomes(
    outcomes: tuple[ParOutcome, ...], most: int = MAX_WIN_ROWS
) -> tuple[tuple[ParOutcome, ...], bool]:
    """The outcome table to show: ``outcomes`` themselves when at most ``most`` of them win,
    else their wins in ``most`` bands of equal width in pay, each exact — its probability and
    RTP share the sums of its outcomes', its net the exact mean net within it, its pay the
    band's lowest — and the other rows (push, half loss, loss) as they are; and whether it was
    banded. The figures of the bet are always the full table's.

    >>> from pricing.games.fixed_odds import SideBetOdds
    >>> odds = SideBetOdds.from_ways("B", {f"W{k}": 1 for k in range(1, 5)}, 8,
    ...                              {f"W{k}": 100 * k for k in range(1, 5)})
    >>> rows, banded = banded_outcomes(par_bet(odds).outcomes, most=2)
    >>> banded, [(o.name, o.net, o.probability) for o in rows]
    (True, [('WIN at 1 – 2 : 1', Fraction(3, 2), Fraction(1, 4)), \
('WIN at 3 – 4 : 1', Fraction(7, 2), Fraction(1, 4)), ('LOSE', Fraction(-1, 1), Fraction(1, 2))])
    """
    wins = [o for o in outcomes if o.net > 0]
    if len(wins) <= most:
        return outcomes, False
    low = min(o.payout_hundredths for o in wins)
    high = max(o.payout_hundredths for o in wins)
    width = (high - low) // most + 1
    bands: dict[int, list[ParOutcome]] = {}
    for o in wins:
        bands.setdefault((o.payout_hundredths - low) // width, []).append(o)
    rows = []
    for _, members in sorted(bands.items()):
        p = sum((o.probability for o in members), Fraction(0))
        lo = min(o.payout_hundredths for o in members)
        hi = max(o.payout_hundredths for o in members)
        span = pay_span(lo, hi)
        rows.append(
            ParOutcome(
                f"WIN at {span}",
                lo,
                sum((o.net * o.probability for o in members), Fraction(0)) / p,
                p,
                one_in(p),
                sum((o.rtp_share for o in members), Fraction(0)),
            )
        )
    return (*rows, *(o for o in outcomes if o.net <= 0)), True


def pay_span(low: int, high: int) -> str:
    """Pays in hundredths as odds to 1: one, or a range.

    >>> pay_span(88, 88), pay_span(150, 2400)
    ('0.88 : 1', '1.5 – 24 : 1')
    """

    def text(pay: int) -> str:
        whole, cents = divmod(pay, 100)
        return str(whole) if not cents else f"{whole}.{cents:02d}".rstrip("0")

    return f"{text(low)} : 1" if low == high else f"{text(low)} – {text(high)} : 1"
