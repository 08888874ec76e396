"""Slow, obviously-correct Hi-Lo pricing: enumerate the cards left, count with ``Fraction``.

Independent of the engine on purpose: its own card parsing, its own bet table (docs/rules.md §1),
no shared code beyond the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]
FULL_DECK = [rank + suit for rank in RANKS for suit in SUITS]

# The table of docs/rules.md §1, by rank value (A = 1 … K = 13).
WINS_ON = {
    "LOW": {1, 2, 3, 4, 5, 6},
    "HIGH": {8, 9, 10, 11, 12, 13},
    "ODD": {1, 3, 5, 9, 11, 13},
    "EVEN": {2, 4, 6, 8, 10, 12},
    "SEVEN": {7},
}

# (rtp in basis points, min in hundredths, max in hundredths) — the published table.
PUBLISHED = {
    "LOW": (9600, 52, 264),
    "HIGH": (9600, 52, 264),
    "ODD": (9600, 52, 264),
    "EVEN": (9600, 52, 264),
    "SEVEN": (8350, 693, 3824),
}


@dataclass(frozen=True)
class RefPrice:
    wins: int
    remaining: int
    probability: Fraction
    payout_hundredths: int
    open: bool
    clamped: bool


def rank_value(card: str) -> int:
    return RANKS.index(card[:-1]) + 1


def payout_hundredths(rtp_bp: int, wins: int, total: int) -> int:
    """``RTP × total / wins − 1`` to 1, rounded down to a hundredth, in exact arithmetic."""
    odds = Fraction(rtp_bp, 10_000) * total / wins - 1
    return math.floor(odds * 100)


def quote(
    exposed: Iterable[str], rules: Mapping[str, tuple[int, int, int]] = PUBLISHED
) -> dict[str, RefPrice]:
    seen = list(exposed)
    assert len(set(seen)) == len(seen), "a card cannot be seen twice in one deck"
    left = [card for card in FULL_DECK if card not in seen]
    prices = {}
    for bet, ranks in WINS_ON.items():
        wins = sum(1 for card in left if rank_value(card) in ranks)
        total = len(left)
        rtp, low, high = rules[bet]
        if wins == 0:
            prices[bet] = RefPrice(0, total, Fraction(0), 0, False, False)
            continue
        raw = payout_hundredths(rtp, wins, total)
        clamped = min(max(raw, low), high)
        prices[bet] = RefPrice(wins, total, Fraction(wins, total), clamped, True, clamped != raw)
    return prices
