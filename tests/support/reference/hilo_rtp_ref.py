"""Slow, obviously-correct Hi-Lo return to player: a forward DP over class counts in
``Fraction`` probabilities, and a brute force over every order of a small deck.

Independent of the engine: its own classes (from ``hilo_ref.WINS_ON``), its own pay rule
(``hilo_ref.payout_hundredths``), probabilities as the chance of each next card.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from tests.support.reference.hilo_ref import PUBLISHED, WINS_ON, payout_hundredths

# Ranks of each class, in the engine's class order (LOW_ODD, LOW_EVEN, SEVEN, HIGH_ODD,
# HIGH_EVEN); a bet wins on a class when it wins on its ranks.
CLASS_RANKS = [{1, 3, 5}, {2, 4, 6}, {7}, {9, 11, 13}, {8, 10, 12}]
BETS = ["LOW", "HIGH", "ODD", "EVEN", "SEVEN"]


def bet_wins_class(bet: str, cls: int) -> bool:
    return CLASS_RANKS[cls] <= WINS_ON[bet]


@dataclass
class RefBet:
    by_position: list[Fraction] = field(default_factory=list)
    closed_by_position: list[Fraction] = field(default_factory=list)
    distribution_by_position: list[dict[int, Fraction]] = field(default_factory=list)
    clamped_min: Fraction = Fraction(0)
    clamped_max: Fraction = Fraction(0)


def price(rule: tuple[int, int, int], wins: int, total: int) -> tuple[int, int] | None:
    """``(payout, raw)`` of a bet with ``wins`` of ``total``; ``None`` when closed."""
    if wins == 0:
        return None
    rtp, low, high = rule
    raw = payout_hundredths(rtp, wins, total)
    return min(max(raw, low), high), raw


def _score(
    states: Mapping[tuple[int, ...], Fraction],
    sizes: Sequence[int],
    rules: Mapping[str, tuple[int, int, int]],
    positions: int,
    out: dict[str, RefBet],
) -> None:
    """Add one position: ``states`` maps the cards exposed per class to its probability."""
    left = sum(sizes) - sum(next(iter(states)))
    for bet in BETS:
        ref = out[bet]
        expected = Fraction(0)
        offered = Fraction(0)
        dist: dict[int, Fraction] = {}
        for exposed, p in states.items():
            wins = sum(sizes[c] - exposed[c] for c in range(5) if bet_wins_class(bet, c))
            priced = price(rules[bet], wins, left)
            if priced is None:
                continue
            pay, raw = priced
            offered += p
            expected += p * Fraction(wins, left) * (1 + Fraction(pay, 100))
            dist[pay] = dist.get(pay, Fraction(0)) + p
            if raw < pay:
                ref.clamped_min += p / positions
            elif raw > pay:
                ref.clamped_max += p / positions
        ref.by_position.append(expected / offered if offered else Fraction(0))
        ref.closed_by_position.append(1 - offered)
        ref.distribution_by_position.append(dict(sorted(dist.items())))


def dp_report(
    sizes: Sequence[int] = (12, 12, 4, 12, 12),
    burns: int = 5,
    results: int = 10,
    rules: Mapping[str, tuple[int, int, int]] = PUBLISHED,
) -> dict[str, RefBet]:
    """Each bet's figures by position: draw one card at a time, each remaining card alike."""
    out = {bet: RefBet() for bet in BETS}
    states: dict[tuple[int, ...], Fraction] = {(0, 0, 0, 0, 0): Fraction(1)}
    for m in range(burns + results):
        if m >= burns:
            _score(states, sizes, rules, results, out)
        left = sum(sizes) - m
        grown: dict[tuple[int, ...], Fraction] = {}
        for exposed, p in states.items():
            for c in range(5):
                if exposed[c] < sizes[c]:
                    nxt = (*exposed[:c], exposed[c] + 1, *exposed[c + 1 :])
                    grown[nxt] = grown.get(nxt, Fraction(0)) + p * Fraction(
                        sizes[c] - exposed[c], left
                    )
        states = grown
    return out


def offered_rounds(
    sizes: Sequence[int],
    burns: int,
    results: int,
    rules: Mapping[str, tuple[int, int, int]] = PUBLISHED,
) -> Iterator[tuple[int, str, int, bool]]:
    """Every offered round of every order of a deck of distinct cards (``sizes[c]`` cards of
    class ``c``), each order equally likely: ``(result position, bet, payout, won)``. Only the
    ``burns + results`` cards dealt matter, and each order of them is the start of the same
    number of whole-deck orders, so those partial orders are enumerated."""
    deck = [c for c, n in enumerate(sizes) for _ in range(n)]
    pay: dict[tuple[str | int, ...], int | None] = {}  # (bet, exposed per class) → payout
    for order in itertools.permutations(range(len(deck)), burns + results):
        exposed = [0] * 5
        for card in order[:burns]:
            exposed[deck[card]] += 1
        for k in range(results):
            left = len(deck) - burns - k
            result = deck[order[burns + k]]
            for bet in BETS:
                key = (bet, *exposed)
                if key not in pay:
                    wins = sum(sizes[c] - exposed[c] for c in range(5) if bet_wins_class(bet, c))
                    priced = price(rules[bet], wins, left)
                    pay[key] = None if priced is None else priced[0]
                payout = pay[key]
                if payout is not None:
                    yield k, bet, payout, bet_wins_class(bet, result)
            exposed[result] += 1


def brute_force_report(
    sizes: Sequence[int],
    burns: int,
    results: int,
    rules: Mapping[str, tuple[int, int, int]] = PUBLISHED,
) -> dict[str, list[Fraction]]:
    """Each bet's expected return by position given it is offered, over every order of a deck
    of distinct cards (``offered_rounds``)."""
    returned = {bet: [0] * results for bet in BETS}  # hundredths of a unit
    offered = {bet: [0] * results for bet in BETS}
    for k, bet, payout, won in offered_rounds(sizes, burns, results, rules):
        offered[bet][k] += 1
        if won:
            returned[bet][k] += 100 + payout
    return {
        bet: [
            Fraction(returned[bet][k], 100 * offered[bet][k]) if offered[bet][k] else Fraction(0)
            for k in range(results)
        ]
        for bet in BETS
    }
