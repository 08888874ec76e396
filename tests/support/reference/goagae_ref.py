"""Slow, obviously-correct Goa Gae (docs/rules.md §4): evaluate hands from the rule text, enumerate
every hand left in the deck with itertools, count, price with ``Fraction``.

Independent of the engine on purpose: its own card notation (canonical text such as ``10H``),
its own evaluator written as tuples straight from the rules, no shared code beyond the
standard library.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]  # also the suit order, lowest first
FULL_DECK = [rank + suit for rank in RANKS for suit in SUITS]

CATEGORIES = ["POINTS", "FLUSH", "STRAIGHT", "JQK", "STRAIGHT_FLUSH", "TRIPLE"]  # lowest first
POINT_VALUE = {"A": 1, "10": 0, "J": 0, "Q": 0, "K": 0} | {str(n): n for n in range(2, 10)}
HIGH_CARD = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]  # lowest first
TRIPLE_ORDER = ["2", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "3"]
# Every straight, lowest first; the last rank of each is its top card.
SEQUENCES = [tuple(RANKS[i : i + 3]) for i in range(11)] + [("Q", "K", "A")]

BETS = ["TRIPLE", "STRAIGHT_FLUSH", "JQK", "STRAIGHT", "FLUSH", "NINE"]


def rank(card: str) -> str:
    return card[:-1]


def suit(card: str) -> str:
    return card[-1]


def points(hand: Sequence[str]) -> int:
    return sum(POINT_VALUE[rank(card)] for card in hand) % 10


def top_card(hand: Sequence[str]) -> str:
    """The highest card: highest rank (A high), then the higher suit of that rank."""
    return max(hand, key=lambda card: (HIGH_CARD.index(rank(card)), SUITS.index(suit(card))))


def sequence(hand: Sequence[str]) -> int | None:
    ranks = {rank(card) for card in hand}
    for position, seq in enumerate(SEQUENCES):
        if ranks == set(seq):
            return position
    return None


def category(hand: Sequence[str]) -> str:
    ranks = [rank(card) for card in hand]
    suits = {suit(card) for card in hand}
    straight = sequence(hand) is not None
    if len(set(ranks)) == 1:
        return "TRIPLE"
    if straight and len(suits) == 1:
        return "STRAIGHT_FLUSH"
    if all(r in ("J", "Q", "K") for r in ranks):
        return "JQK"
    if straight:
        return "STRAIGHT"
    if len(suits) == 1:
        return "FLUSH"
    return "POINTS"


def key(hand: Sequence[str]) -> tuple[int, ...]:
    """A tuple that sorts hands in the game's order (docs/rules.md §4)."""
    assert len(hand) == 3 and len(set(hand)) == 3
    cat = category(hand)
    level = CATEGORIES.index(cat)
    top = top_card(hand)
    high = HIGH_CARD.index(rank(top))
    top_suit = SUITS.index(suit(top))
    if cat == "TRIPLE":
        return (level, TRIPLE_ORDER.index(rank(hand[0])))
    if cat == "STRAIGHT_FLUSH":
        seq = sequence(hand)
        assert seq is not None
        return (level, SUITS.index(suit(hand[0])), seq)
    if cat == "JQK":
        return (level, high, top_suit)
    if cat == "STRAIGHT":
        seq = sequence(hand)
        assert seq is not None
        seq_top = next(card for card in hand if rank(card) == SEQUENCES[seq][-1])
        return (level, seq, SUITS.index(suit(seq_top)))
    if cat == "FLUSH":
        return (level, SUITS.index(suit(hand[0])), high)
    return (level, points(hand), high, top_suit)


def remaining(exposed: Iterable[str]) -> list[str]:
    seen = list(exposed)
    assert len(set(seen)) == len(seen), "a card cannot be seen twice in one deck"
    assert all(card in FULL_DECK for card in seen), seen
    return [card for card in FULL_DECK if card not in seen]


def category_odds(exposed: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Every category, ``NINE`` (a POINTS hand of 9) and ``TOTAL_0`` … ``TOTAL_9`` (points of
    any hand): (ways, total) over the three-card hands of the deck."""
    hands = list(itertools.combinations(remaining(exposed), 3))
    categories = Counter(category(hand) for hand in hands)
    totals = Counter(points(hand) for hand in hands)
    nine = sum(1 for hand in hands if category(hand) == "POINTS" and points(hand) == 9)
    total = len(hands)
    out = {cat: (categories[cat], total) for cat in CATEGORIES}
    out["NINE"] = (nine, total)
    out |= {f"TOTAL_{p}": (totals[p], total) for p in range(10)}
    return out


@dataclass(frozen=True)
class Showdown:
    wins: int
    ties: int
    losses: int
    total: int


def showdown(hand: Sequence[str], exposed: Iterable[str]) -> Showdown:
    """Pair every completion of ``hand`` with every opponent hand from the rest; compare."""
    known = list(hand)
    assert 1 <= len(known) <= 3
    left = remaining([*known, *exposed])
    # Every opponent hand is a 3-subset of ``left`` in ``left``'s order: evaluate each once.
    keys = {opponent: key(opponent) for opponent in itertools.combinations(left, 3)}
    wins = ties = losses = 0
    for extra in itertools.combinations(left, 3 - len(known)):
        mine = key([*known, *extra])
        rest = [card for card in left if card not in extra]
        for opponent in itertools.combinations(rest, 3):
            theirs = keys[opponent]
            if mine > theirs:
                wins += 1
            elif mine == theirs:
                ties += 1
            else:
                losses += 1
    return Showdown(wins, ties, losses, wins + ties + losses)


def win_probability(hand: Sequence[str], exposed: Iterable[str]) -> tuple[int, int]:
    result = showdown(hand, exposed)
    return (result.wins, result.total)


@dataclass(frozen=True)
class RefPrice:
    wins: int
    remaining: int
    payout_hundredths: int
    open: bool
    clamped: bool


def payout_hundredths(rtp_bp: int, wins: int, total: int) -> int:
    """``RTP × total / wins − 1`` to 1, rounded down to a hundredth, in exact arithmetic."""
    return math.floor((Fraction(rtp_bp, 10_000) * total / wins - 1) * 100)


def quote(exposed: Iterable[str], rules: Mapping[str, tuple[int, int, int]]) -> dict[str, RefPrice]:
    """``rules``: (rtp in basis points, min, max in hundredths) per bet."""
    odds = category_odds(exposed)
    prices = {}
    for bet in BETS:
        wins, total = odds[bet]
        if wins == 0:
            prices[bet] = RefPrice(0, total, 0, False, False)
            continue
        rtp, low, high = rules[bet]
        raw = payout_hundredths(rtp, wins, total)
        paid = min(max(raw, low), high)
        prices[bet] = RefPrice(wins, total, paid, True, paid != raw)
    return prices
