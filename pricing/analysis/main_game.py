"""The main blackjack game's report (docs/rules.md §3.9, "The main-game report"): the exact
full-shoe player edge of each rule set, the EV of the round given each dealer up card, and the
next round's edge by penetration over simulated shoes (the operator's shuffle-point table).

Every edge is ``player_edge`` (the analyzer kernel: exact sums in C doubles), per unit of the
original wager, positive when the player is favoured. The up-card table sums, for each up
card, the best decision's EV (``decisions``) over every two-card deal of the player weighted by
its chance; over the up cards it adds up to ``player_edge`` of the same shoe. The penetration
table deals seeded shuffles of the shoe and prices the next round on what is left at each
point: unlike a side bet's RTP, the mean edge there is not exactly the full-shoe figure
(composition-dependent play adapts to the shoe, which only helps the player), so the
simulated mean carries its standard error beside the exact full-shoe edge.

>>> report = main_game_report(shoes=2, decks=(1,), points=(0, 50), seed=1, full_shoe_decks=(1,))
>>> f"{report.up_cards[1].edge:.8f}", f"{report.penetration[1][0].mean:.8f}"
('0.00367356', '0.00367356')
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pricing.cards import DECK, MAX_DECKS, Card
from pricing.errors import IllegalMove, InvalidOption
from pricing.games.blackjack.decisions import (
    MainGameRules,
    Strategy,
    card_value,
    decisions,
    player_edge,
    value_counts,
)
from pricing.games.blackjack.rules import DealerRule

__all__ = [
    "DEFAULT_POINTS",
    "DEFAULT_SHOES",
    "FULL_SHOE_DECKS",
    "MainGameReport",
    "PenetrationEdge",
    "RuleEdge",
    "UpCardEdge",
    "UpCards",
    "full_shoe_edges",
    "main_game_report",
    "parse_points",
    "penetration_edges",
    "up_card_edges",
]

#: The shoe sizes of the full-shoe table.
FULL_SHOE_DECKS: Final = (1, 2, 6, 8)
#: The shoe size of the up-card and penetration tables when none is asked for.
DEFAULT_DECKS: Final = (6,)
#: Simulated shoes per size when none are asked for: each point of each shoe is one
#: ``player_edge`` (about 0.1 s on a full 6–8 deck shoe, less as it thins).
DEFAULT_SHOES: Final = 100
#: Percent of the shoe dealt at which the next round is priced: 0 %, 10 %, … 90 %.
DEFAULT_POINTS: Final = tuple(range(0, 100, 10))
#: The high quantile of the edge reported at each point.
QUANTILE: Final = 0.95
#: The rules of the up-card and penetration tables when none are asked for.
DEFAULT_RULES: Final = MainGameRules()
#: Up cards by value, 1 (Ace) to 10 (any ten).
_UP_NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")


def _rules_dict(rules: MainGameRules) -> dict[str, Any]:
    return {
        "dealer_rule": rules.dealer_rule.value,
        "double_after_split": rules.double_after_split,
        "max_splits": rules.max_splits,
        "surrender": rules.surrender,
    }


@dataclass(frozen=True, slots=True)
class RuleEdge:
    """The exact next-round edge on a full ``decks``-deck shoe under ``rules``, played by
    composition-dependent strategy (CDZ-) and by basic strategy."""

    decks: int
    rules: MainGameRules
    composition: float
    basic: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            **_rules_dict(self.rules),
            "composition": self.composition,
            "basic": self.basic,
        }


@dataclass(frozen=True, slots=True)
class UpCardEdge:
    """One dealer up card (by value, 1 = Ace, 10 = any ten): its chance, the round's EV given
    it (best play on every deal), and its share of the edge (``probability * ev``)."""

    up: int
    probability: float
    ev: float

    @property
    def name(self) -> str:
        return _UP_NAMES[self.up - 1]

    @property
    def contribution(self) -> float:
        return self.probability * self.ev

    def as_dict(self) -> dict[str, Any]:
        return {
            "up": self.name,
            "probability": self.probability,
            "ev": self.ev,
            "contribution": self.contribution,
        }


@dataclass(frozen=True, slots=True)
class UpCards:
    """The up-card table of a shoe of ``cards`` cards; ``edge``: ``player_edge`` of the same
    shoe, which the contributions add up to (``total``)."""

    cards: int
    rules: MainGameRules
    rows: tuple[UpCardEdge, ...]
    edge: float

    @property
    def total(self) -> float:
        return math.fsum(r.contribution for r in self.rows)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "rules": _rules_dict(self.rules),
            "edge": self.edge,
            "total": self.total,
            "up_cards": [r.as_dict() for r in self.rows],
        }


@dataclass(frozen=True, slots=True)
class PenetrationEdge:
    """The next round's edge (composition-dependent play) after ``cards_dealt`` cards
    (``percent`` of the shoe), over the ``priced`` simulated shoes (``skipped``: those whose
    remaining cards could run out in a round, which must be reshuffled): the mean and its
    standard error, the spread (standard deviation), the share of shoes where the player is
    favoured (edge > 0) and its standard error, the mean edge over those shoes (0 if none)
    and its standard error, and the ``QUANTILE`` quantile. A standard error needs two shoes:
    0 with fewer."""

    percent: int
    cards_dealt: int
    priced: int
    skipped: int
    mean: float
    mean_se: float
    spread: float
    favourable: float
    favourable_se: float
    favourable_edge: float
    favourable_edge_se: float
    quantile: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "penetration": self.percent / 100,
            "cards_dealt": self.cards_dealt,
            "priced": self.priced,
            "skipped": self.skipped,
            "mean": self.mean,
            "mean_se": self.mean_se,
            "spread": self.spread,
            "favourable": self.favourable,
            "favourable_se": self.favourable_se,
            "favourable_edge": self.favourable_edge,
            "favourable_edge_se": self.favourable_edge_se,
            "quantile": QUANTILE,
            "edge_quantile": self.quantile,
        }


@dataclass(frozen=True, slots=True)
class MainGameReport:
    """``full_shoe``: the rule sets' exact edges (``all_rules``: every combination, else each
    size's default rules by dealer rule); ``up_cards[decks]`` and ``penetration[decks]`` (one
    ``PenetrationEdge`` per point) for each shoe size simulated under ``rules``."""

    shoes: int
    seed: int
    rules: MainGameRules
    all_rules: bool
    full_shoe: tuple[RuleEdge, ...]
    up_cards: dict[int, UpCards]
    penetration: dict[int, tuple[PenetrationEdge, ...]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": "blackjack",
            "report": "main_game",
            "shoes": self.shoes,
            "seed": self.seed,
            "rules": _rules_dict(self.rules),
            "all_rules": self.all_rules,
            "full_shoe": [r.as_dict() for r in self.full_shoe],
            "decks": {
                str(d): {
                    "up_cards": self.up_cards[d].as_dict(),
                    "by_penetration": [p.as_dict() for p in self.penetration[d]],
                }
                for d in self.penetration
            },
        }


def _full(decks: int) -> list[int]:
    return [decks] * len(DECK)


def _rule_sets(all_rules: bool) -> list[MainGameRules]:
    if not all_rules:
        return [MainGameRules(rule) for rule in DealerRule]
    return [
        MainGameRules(rule, das, splits, surrender)
        for rule in DealerRule
        for das in (True, False)
        for splits in (3, 1)
        for surrender in (True, False)
    ]


def full_shoe_edges(
    decks: Iterable[int] = FULL_SHOE_DECKS, *, all_rules: bool = False
) -> tuple[RuleEdge, ...]:
    """The exact full-shoe edge for each size in ``decks``, by composition-dependent and basic
    strategy: the default rules by dealer rule, or with ``all_rules`` every combination of
    dealer rule, double after split, 1 or 3 splits and surrender (16 per size)."""
    sizes = _check_decks(decks)
    return tuple(
        RuleEdge(
            d,
            rules,
            player_edge(_full(d), rules, Strategy.COMPOSITION),
            player_edge(_full(d), rules, Strategy.BASIC),
        )
        for d in sizes
        for rules in _rule_sets(all_rules)
    )


def _take(counts: list[int], value: int) -> Card:
    """A card of ``value`` (1–10) out of ``counts``: the first index left (the analyzer reads
    only values, so which ten or which suit does not change any EV)."""
    for index, count in enumerate(counts):
        if count and card_value(DECK[index]) == value:
            counts[index] -= 1
            return DECK[index]
    raise AssertionError(f"no card of value {value} left")  # the caller checks the chance


def up_card_edges(counts: Sequence[int], rules: MainGameRules = DEFAULT_RULES) -> UpCards:
    """The up-card table of the shoe ``counts`` (52 counts by ``Card.index``): for each up card,
    its chance and the round's EV given it, the sum over the player's two-card deals of the
    deal's chance given the up card times the best decision's EV (``decisions``). The deal's
    order does not change its chance; the analyzer reads card values only. Exact like the
    kernel (C doubles); ``IllegalMove`` if the shoe could run out in a round."""
    counts = list(counts)
    edge = player_edge(counts, rules)  # checks the counts and the shoe's length first
    values = [0, *value_counts(counts)]  # by value 1 … 10
    n = sum(values)
    rows = []
    for up in range(1, 11):
        if not values[up]:
            rows.append(UpCardEdge(up, 0.0, 0.0))
            continue
        given = 0.0
        for a in range(1, 11):
            for b in range(a, 11):
                left_a = values[a] - (a == up)
                left_b = values[b] - (b == up) - (b == a)
                chance = left_a / (n - 1) * left_b / (n - 2) * (1 if a == b else 2)
                if chance <= 0:
                    continue
                shoe = list(counts)
                up_card, first, second = _take(shoe, up), _take(shoe, a), _take(shoe, b)
                d = decisions([first, second], up_card, shoe, rules)
                given += chance * d.evs[d.best]
        rows.append(UpCardEdge(up, values[up] / n, given))
    return UpCards(n, rules, tuple(rows), edge)


def _mean_se(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean, standard deviation and the mean's standard error (0, 0 with fewer than two)."""
    if not xs:
        return 0.0, 0.0, 0.0
    mean = math.fsum(xs) / len(xs)
    if len(xs) < 2:
        return mean, 0.0, 0.0
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
    return mean, sd, sd / math.sqrt(len(xs))


def _quantile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``xs``, linear between order statistics (0 if empty)."""
    if not xs:
        return 0.0
    ordered = sorted(xs)
    at = q * (len(ordered) - 1)
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def _point(percent: int, dealt: int, edges: list[float], skipped: int) -> PenetrationEdge:
    mean, spread, se = _mean_se(edges)
    favoured = [e for e in edges if e > 0]
    share = len(favoured) / len(edges) if edges else 0.0
    fav_mean, _, fav_se = _mean_se(favoured)
    return PenetrationEdge(
        percent=percent,
        cards_dealt=dealt,
        priced=len(edges),
        skipped=skipped,
        mean=mean,
        mean_se=se,
        spread=spread,
        favourable=share,
        favourable_se=math.sqrt(share * (1 - share) / len(edges)) if len(edges) > 1 else 0.0,
        favourable_edge=fav_mean,
        favourable_edge_se=fav_se,
        quantile=_quantile(edges, QUANTILE),
    )


def penetration_edges(
    decks: int,
    shoes: int,
    rng: random.Random,
    *,
    rules: MainGameRules = DEFAULT_RULES,
    points: Sequence[int] = DEFAULT_POINTS,
    strategy: Strategy = Strategy.COMPOSITION,
) -> tuple[PenetrationEdge, ...]:
    """The next round's edge at each of ``points`` (percent of the shoe dealt) over ``shoes``
    shuffles of a ``decks``-deck shoe drawn from ``rng``: each shoe's cards dealt in order and
    the edge by ``strategy`` priced on the counts left at each point (0 % is the full shoe,
    priced once). Under basic strategy the mean edge at every point is the full-shoe edge
    (removing unseen cards at random does not change the next round's chances); by
    composition-dependent play it rises as the shoe thins."""
    cards = [card.index for card in DECK for _ in range(decks)]
    dealt_at = [percent * len(cards) // 100 for percent in points]
    edges: list[list[float]] = [[] for _ in points]
    skipped = [0] * len(points)
    untouched = player_edge(_full(decks), rules, strategy)
    for _ in range(shoes):
        rng.shuffle(cards)
        counts = _full(decks)
        dealt = 0
        for k, target in enumerate(dealt_at):
            while dealt < target:
                counts[cards[dealt]] -= 1
                dealt += 1
            if not dealt:
                edges[k].append(untouched)
                continue
            try:
                edges[k].append(player_edge(counts, rules, strategy))
            except IllegalMove:
                skipped[k] += 1
    return tuple(
        _point(percent, at, xs, skip)
        for percent, at, xs, skip in zip(points, dealt_at, edges, skipped, strict=True)
    )


def _check_decks(decks: Iterable[int]) -> tuple[int, ...]:
    out = tuple(decks)
    if not out:
        raise InvalidOption("decks: name at least one shoe size")
    for d in out:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= MAX_DECKS:
            raise InvalidOption(f"decks must be whole numbers from 1 to {MAX_DECKS}, got {d!r}")
    return out


def _rng(seed: int, decks: int) -> random.Random:
    """The shuffles of the ``decks``-deck shoes: seeded by ``seed`` and the size, so that a
    size's figures do not depend on the other sizes asked for."""
    return random.Random(f"{seed}/{decks}")


def parse_points(text: str) -> tuple[int, ...]:
    """``--points``: comma-separated whole percentages of the shoe dealt, 0–99, increasing.

    >>> parse_points("0, 25,50,75")
    (0, 25, 50, 75)
    >>> parse_points("50,120")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: --points: '120' is not a whole percentage from 0 to 99
    """
    out: list[int] = []
    for part in text.split(","):
        item = part.strip()
        if not item.isdigit() or not 0 <= int(item) <= 99:
            raise InvalidOption(f"--points: {item!r} is not a whole percentage from 0 to 99")
        if out and int(item) <= out[-1]:
            raise InvalidOption(f"--points must increase: {item} after {out[-1]}")
        out.append(int(item))
    return tuple(out)


def main_game_report(
    *,
    shoes: int = DEFAULT_SHOES,
    decks: Iterable[int] = DEFAULT_DECKS,
    seed: int = 2026,
    rules: MainGameRules = DEFAULT_RULES,
    points: Sequence[int] = DEFAULT_POINTS,
    all_rules: bool = False,
    full_shoe_decks: Iterable[int] = FULL_SHOE_DECKS,
) -> MainGameReport:
    """The main-game report: the full-shoe table (``full_shoe_edges`` of ``full_shoe_decks``
    and ``all_rules``), and for each size in ``decks`` under ``rules`` the up-card table and
    the penetration table over ``shoes`` simulated shoes seeded by ``seed`` and the size (the
    same seed and size give the same figures, whatever other sizes are asked for)."""
    if isinstance(shoes, bool) or not isinstance(shoes, int) or shoes < 2:
        raise InvalidOption(f"shoes must be a whole number >= 2, got {shoes!r}")
    sizes = _check_decks(decks)
    points = tuple(points)
    if not points or any(not 0 <= p <= 99 for p in points) or list(points) != sorted(set(points)):
        raise InvalidOption(f"points must be increasing percentages 0-99, got {points!r}")
    up_cards = {d: up_card_edges(_full(d), rules) for d in sizes}
    penetration = {
        d: penetration_edges(d, shoes, _rng(seed, d), rules=rules, points=points) for d in sizes
    }
    return MainGameReport(
        shoes=shoes,
        seed=seed,
        rules=rules,
        all_rules=all_rules,
        full_shoe=full_shoe_edges(full_shoe_decks, all_rules=all_rules),
        up_cards=up_cards,
        penetration=penetration,
    )
