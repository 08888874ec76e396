"""Blackjack side bets' return to player (docs/rules.md §2, §3): every bet of the side-bet
library under each of its presets, over a full shoe exactly, by penetration of a depleting
shoe, and by the effect of removing one card.

A side bet has a fixed paytable, so its RTP on a shoe is linear in the chances of its
outcomes. Averaged over every way the first ``d`` cards can have left the shoe, the chance
that the next round deals any given cards is the chance on the full shoe (the next cards of a
uniform shuffle are uniform, however many were dealt before): the mean RTP at every
penetration is exactly the full-shoe RTP. What penetration changes is the spread around it,
and so how often the bet is player-favourable (RTP above 1) and by how much — a function of
the whole shoe's composition, 52 card counts, far beyond exact enumeration. Those figures come
from simulated shoes (a seeded shuffle, every count priced exactly by ``library.odds``), each
with its standard error; the simulated mean sits beside the exact one as a check. The effect
of removal (``pricing.analysis.side_bets``) is exact.

>>> report = blackjack_rtp(shoes=2, decks=(6,), bet="ROYAL_MATCH", preset="standard")
>>> f"{float(report.full_shoe[6]['ROYAL_MATCH/standard']):.6f}"
'0.933342'
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from pricing.analysis.report import exact_number
from pricing.analysis.side_bets import (
    full_shoe,
    price,
    pricing_groups,
    removal_effects,
    side_bet_presets,
)
from pricing.cards import DECK, MAX_DECKS
from pricing.errors import InvalidOption
from pricing.games.blackjack.library import Paytable
from pricing.games.blackjack.rules import DealerRule

__all__ = [
    "BlackjackReport",
    "PenetrationPoint",
    "RemovalReport",
    "blackjack_rtp",
    "full_shoe_rtps",
    "removal_report",
    "side_bet_presets",
]

#: Fractions of the shoe dealt at which the report looks: 0 %, 10 %, … 90 %.
PENETRATIONS: Final = tuple(Fraction(k, 10) for k in range(10))
DEFAULT_DECKS: Final = (6, 8)
#: Simulated shoes of each size when none are asked for (the Analyze RPC's and the command's).
DEFAULT_SHOES: Final = 1_000
#: The bench's run; ``make test`` runs the same code on far fewer shoes.
FULL_RUN_SHOES: Final = 100_000


@dataclass(frozen=True, slots=True)
class PenetrationPoint:
    """One side bet at one penetration of a ``decks``-deck shoe, over the simulated shoes: the
    exact mean RTP, the simulated mean and spread of the RTP across shoes, the share of shoes
    in which the bet was player-favourable, and the mean edge (RTP − 1) over those shoes (0
    when none was), each with its standard error. ``closed``: the share of shoes with too few
    cards left to deal the bet (only a very short shoe, dealt deep); mean and spread are over
    the others. A standard error needs two shoes to estimate it: 0 with fewer."""

    decks: int
    cards_dealt: int
    penetration: Fraction
    exact_mean: Fraction
    simulated_mean: float
    simulated_se: float
    spread: float
    favourable: float
    favourable_se: float
    favourable_edge: float
    favourable_edge_se: float
    closed: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            "cards_dealt": self.cards_dealt,
            "penetration": float(self.penetration),
            "exact_mean": float(self.exact_mean),
            "simulated_mean": self.simulated_mean,
            "simulated_se": self.simulated_se,
            "spread": self.spread,
            "favourable": self.favourable,
            "favourable_se": self.favourable_se,
            "favourable_edge": self.favourable_edge,
            "favourable_edge_se": self.favourable_edge_se,
            "closed": self.closed,
        }


def _effects_dict(effects: dict[str, Fraction]) -> dict[str, dict[str, Any]]:
    return {rank: exact_number(change) for rank, change in effects.items()}


@dataclass(frozen=True, slots=True)
class BlackjackReport:
    """``full_shoe[decks][BET/preset]``: the exact RTP on a full shoe dealt by ``rule``;
    ``by_penetration[decks][BET/preset]``: one ``PenetrationPoint`` per entry of
    ``PENETRATIONS``; ``favourable_rounds[decks][BET/preset]``: the share of all the points
    looked at (every penetration alike) where the bet was player-favourable;
    ``effect_of_removal[decks][BET/preset][rank]``: the exact change in the full-shoe RTP when
    one card of the rank leaves the shoe."""

    shoes: int
    seed: int
    rule: DealerRule
    full_shoe: dict[int, dict[str, Fraction]]
    by_penetration: dict[int, dict[str, tuple[PenetrationPoint, ...]]]
    favourable_rounds: dict[int, dict[str, float]]
    effect_of_removal: dict[int, dict[str, dict[str, Fraction]]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": "blackjack",
            "shoes": self.shoes,
            "seed": self.seed,
            "rule": self.rule.value,
            "decks": {
                str(decks): {
                    key: {
                        "full_shoe_rtp": exact_number(rtp),
                        "favourable_rounds": self.favourable_rounds[decks][key],
                        "by_penetration": [p.as_dict() for p in self.by_penetration[decks][key]],
                        "effect_of_removal": _effects_dict(self.effect_of_removal[decks][key]),
                    }
                    for key, rtp in self.full_shoe[decks].items()
                }
                for decks in self.full_shoe
            },
        }


@dataclass(frozen=True, slots=True)
class RemovalReport:
    """The effect of removal alone (exact, no simulation): ``full_shoe[decks][BET/preset]``
    the full-shoe RTP by ``rule`` and ``effect_of_removal[decks][BET/preset][rank]`` the change
    when one card of the rank leaves it."""

    rule: DealerRule
    full_shoe: dict[int, dict[str, Fraction]]
    effect_of_removal: dict[int, dict[str, dict[str, Fraction]]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": "blackjack",
            "rule": self.rule.value,
            "decks": {
                str(decks): {
                    key: {
                        "full_shoe_rtp": exact_number(rtp),
                        "effect_of_removal": _effects_dict(self.effect_of_removal[decks][key]),
                    }
                    for key, rtp in by_key.items()
                }
                for decks, by_key in self.full_shoe.items()
            },
        }


class _Moments:
    """Count, mean and sum of squared deviations of a stream of floats (Welford's update: one
    pass, no list of every shoe's value, and exactly 0 spread for equal values)."""

    __slots__ = ("m2", "mean", "n")

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    @property
    def sd(self) -> float:
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else 0.0

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 1 else 0.0


@dataclass(slots=True)
class _Tally:
    """One bet at one penetration, over the shoes so far: its RTP on the shoes where it was
    open, how many shoes it was closed in, and its edge on the favourable ones (decided in
    integers)."""

    rtp: _Moments
    edge: _Moments
    closed: int = 0

    def add(self, numerator: int, denominator: int) -> None:
        if not denominator:
            self.closed += 1
            return
        self.rtp.add(numerator / denominator)
        if numerator > denominator:
            self.edge.add((numerator - denominator) / denominator)


def full_shoe_rtps(decks: int, rule: DealerRule | str = DealerRule.S17) -> dict[str, Fraction]:
    """Every bet of the library under each of its presets: its exact RTP on a full
    ``decks``-deck shoe dealt by ``rule``, keyed ``BET/preset``."""
    groups = pricing_groups(side_bet_presets())
    odds = price(full_shoe(decks), DealerRule.parse(rule), groups)
    return {key: bet.rtp_fraction for key, bet in odds.items()}


def _simulate(
    decks: int, shoes: int, rng: random.Random, rule: DealerRule, tables: dict[str, Paytable]
) -> dict[str, list[_Tally]]:
    """Per ``BET/preset``, one tally per penetration over ``shoes`` shuffles of the shoe."""
    cards = [card.index for card in DECK for _ in range(decks)]
    dealt_at = [int(p * len(cards)) for p in PENETRATIONS]
    groups = pricing_groups(tables)
    tallies = {key: [_Tally(_Moments(), _Moments()) for _ in dealt_at] for key in tables}
    untouched = price(full_shoe(decks), rule, groups)  # nothing dealt: the same every shoe
    for _ in range(shoes):
        rng.shuffle(cards)
        counts = list(full_shoe(decks))
        dealt = 0
        for k, target in enumerate(dealt_at):
            while dealt < target:
                counts[cards[dealt]] -= 1
                dealt += 1
            odds = price(counts, rule, groups) if dealt else untouched
            for key, bet in odds.items():
                tallies[key][k].add(bet.rtp_numerator, bet.rtp_denominator)
    return tallies


def _point(
    decks: int, penetration: Fraction, exact: Fraction, tally: _Tally, shoes: int
) -> PenetrationPoint:
    share = tally.edge.n / shoes
    return PenetrationPoint(
        decks=decks,
        cards_dealt=int(penetration * len(DECK) * decks),
        penetration=penetration,
        exact_mean=exact,
        simulated_mean=tally.rtp.mean,
        simulated_se=tally.rtp.se,
        spread=tally.rtp.sd,
        favourable=share,
        favourable_se=math.sqrt(share * (1 - share) / shoes),
        favourable_edge=tally.edge.mean,
        favourable_edge_se=tally.edge.se,
        closed=tally.closed / shoes,
    )


def _check_decks(decks: Iterable[int]) -> tuple[int, ...]:
    out = tuple(decks)
    for d in out:
        if not isinstance(d, int) or not 1 <= d <= MAX_DECKS:
            raise InvalidOption(f"decks must be whole numbers from 1 to {MAX_DECKS}, got {d!r}")
    return out


def blackjack_rtp(
    *,
    shoes: int = DEFAULT_SHOES,
    decks: Iterable[int] = DEFAULT_DECKS,
    seed: int = 2026,
    rule: DealerRule | str = DealerRule.S17,
    bet: str = "",
    preset: str = "",
) -> BlackjackReport:
    """The side bets' report for each shoe size in ``decks``, dealt by ``rule``, over ``shoes``
    simulated shoes (seeded by ``seed``: the same arguments give the same report): every bet
    of the library under each of its presets, or only ``bet`` (and its ``preset``)."""
    if not isinstance(shoes, int) or shoes < 2:
        raise InvalidOption(f"shoes must be a whole number >= 2, got {shoes!r}")
    sizes = _check_decks(decks)
    rule = DealerRule.parse(rule)
    tables = side_bet_presets(bet, preset)
    rng = random.Random(seed)
    full: dict[int, dict[str, Fraction]] = {}
    effects: dict[int, dict[str, dict[str, Fraction]]] = {}
    points: dict[int, dict[str, tuple[PenetrationPoint, ...]]] = {}
    favourable: dict[int, dict[str, float]] = {}
    for d in sizes:
        full[d], effects[d] = removal_effects(d, rule, tables)
        tallies = _simulate(d, shoes, rng, rule, tables)
        points[d] = {
            key: tuple(
                _point(d, p, full[d][key], tally, shoes)
                for p, tally in zip(PENETRATIONS, by_point, strict=True)
            )
            for key, by_point in tallies.items()
        }
        favourable[d] = {
            key: math.fsum(pt.favourable for pt in row) / len(row) for key, row in points[d].items()
        }
    return BlackjackReport(shoes, seed, rule, full, points, favourable, effects)


def removal_report(
    *,
    decks: Iterable[int] = DEFAULT_DECKS,
    rule: DealerRule | str = DealerRule.S17,
    bet: str = "",
    preset: str = "",
) -> RemovalReport:
    """The effect of removal of every bet and preset (or only ``bet``, and its ``preset``) on
    each shoe size in ``decks`` dealt by ``rule``: exact, in well under a second."""
    sizes = _check_decks(decks)
    rule = DealerRule.parse(rule)
    tables = side_bet_presets(bet, preset)
    full: dict[int, dict[str, Fraction]] = {}
    effects: dict[int, dict[str, dict[str, Fraction]]] = {}
    for d in sizes:
        full[d], effects[d] = removal_effects(d, rule, tables)
    return RemovalReport(rule, full, effects)
