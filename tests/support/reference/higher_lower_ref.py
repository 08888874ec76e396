"""Slow, obviously-correct Higher/Lower: the shoe as a list of card texts, each bet decided card by
card, the pay rule in ``Fraction``s, a dealer's feed played as a list of steps.

Independent of the engine on purpose: its own deck, its own bet table (docs/rules.md §6), its
own rule for the shoe; nothing shared beyond the standard library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"]  # ace high, no tens
SUITS = ["C", "D", "H", "S"]
RED = {"D", "H"}


def rank(card: str) -> str:
    return card[:-1]


def wins(bet: str, base: str | None, card: str) -> bool:
    """Whether ``bet`` wins when ``card`` follows ``base``: the table of docs/rules.md §6."""
    r, suit = rank(card), card[-1]
    if bet in ("HIGHER", "LOWER", "SNAP"):
        if base is None:
            return False
        here, there = ORDER.index(r), ORDER.index(rank(base))
        return {"HIGHER": here > there, "LOWER": here < there, "SNAP": here == there}[bet]
    return {
        "RANGE_2_5": r in ("2", "3", "4", "5"),
        "RANGE_6_9": r in ("6", "7", "8", "9"),
        "RANGE_J_A": r in ("J", "Q", "K", "A"),
        "RED": suit in RED,
        "BLACK": suit not in RED,
        "KING_OR_ACE": r in ("K", "A"),
        "ACE": r == "A",
    }[bet]


BETS = [
    "HIGHER",
    "LOWER",
    "SNAP",
    "RANGE_2_5",
    "RANGE_6_9",
    "RANGE_J_A",
    "RED",
    "BLACK",
    "KING_OR_ACE",
    "ACE",
]


def full_shoe(decks: int) -> list[str]:
    return [r + s for _ in range(decks) for r in ORDER for s in SUITS]


@dataclass(frozen=True)
class RefPrice:
    wins: int
    remaining: int
    payout_hundredths: int
    open: bool


def price(bet: str, left: list[str], base: str | None, rule: tuple[int, int, int]) -> RefPrice:
    """One bet on the next card of ``left``: ``RTP × N / n − 1`` floored to a hundredth,
    clamped; closed with no winning card, or when the clamped pay returns more than the
    stake on average."""
    n = sum(1 for card in left if wins(bet, base, card))
    total = len(left)
    if n == 0:
        return RefPrice(0, total, 0, False)
    rtp, low, high = rule
    pay = min(max(math.floor((Fraction(rtp, 10_000) * total / n - 1) * 100), low), high)
    if Fraction(100 + pay, 100) * Fraction(n, total) > 1:
        return RefPrice(n, total, 0, False)
    return RefPrice(n, total, pay, True)


@dataclass
class RefTable:
    """A Higher/Lower table fed step by step: ``left`` is the shoe the next card is drawn from
    (a continuous shuffler: the full shoe without the base card and this round's burns)."""

    decks: int = 6
    burns: int = 3
    continuous: bool = True
    rules: dict[str, tuple[int, int, int]] = field(
        default_factory=lambda: dict.fromkeys(BETS, (9670, 5, 10_000))
    )
    seen: list[str] = field(default_factory=list)  # out of the shoe (depleting: since NewShoe)
    base: str | None = None
    phase: str = "OPENING"
    burned: int = 0
    round_id: int = 0
    results: list[tuple[int, str, str]] = field(default_factory=list)  # (round, base, result)

    def left(self) -> list[str]:
        shoe = full_shoe(self.decks)
        for card in self.seen:
            shoe.remove(card)
        return shoe

    def prices(self) -> dict[str, RefPrice]:
        left = self.left()
        return {bet: price(bet, left, self.base, self.rules[bet]) for bet in BETS}

    def step(self, kind: str, card: str = "") -> bool:
        """Apply one step (``BURN``/``RESULT`` with a card, ``VOID``, ``NEW_SHOE``); False, and
        nothing changed, when the engine must refuse it."""
        if kind == "NEW_SHOE":
            self.seen, self.base, self.phase, self.burned = [], None, "OPENING", 0
            return True
        if kind == "VOID":
            burnt_out = self.phase == "COMPLETE" and self.burned > 0  # a void still taken
            if self.phase not in ("BETTING", "DEALING") and not burnt_out:
                return False
            if self.continuous:
                self.seen = [self.base] if self.base else []
            self.round_id += 1
            self.phase, self.burned = "BETTING", 0
            self._complete()
            return True
        if self.phase == "COMPLETE" or card not in self.left():
            return False
        if kind == "BURN":
            self.seen.append(card)
            if self.phase != "OPENING":
                self.phase, self.burned = "DEALING", self.burned + 1
            if not self.left():  # no card for a result: the shoe is complete
                self.phase = "COMPLETE"
            return True
        if self.phase != "OPENING" and self.burned < self.burns:
            return False
        if self.phase != "OPENING":
            assert self.base is not None
            self.results.append((self.round_id, self.base, card))
        self.seen = [card] if self.continuous else [*self.seen, card]
        self.base, self.phase, self.burned = card, "BETTING", 0
        self.round_id += 1
        self._complete()
        return True

    def _complete(self) -> None:
        if len(self.left()) < self.burns + 1:
            self.phase = "COMPLETE"
