"""A side bet for tests only, registered in ``library.BETS`` for a test's duration: the report,
the effect of removal and the command take it in with no change, as they must any bet the
library gains. It reads suits unevenly and the dealer's rule, and its odds have a closed form.

HEART_QUEEN wins when the next card is the Q♥, or under H17 the Q♥ or the K♥.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import ClassVar

import pytest

from pricing.cards import Card
from pricing.games.blackjack import library
from pricing.games.blackjack.library import Deal, Paytable, SideBet
from pricing.games.blackjack.rules import DealerRule

NAME = "HEART_QUEEN"


def winners(rule: DealerRule) -> tuple[Card, ...]:
    cards = ("QH",) if rule is DealerRule.S17 else ("QH", "KH")
    return tuple(Card.parse(c) for c in cards)


class HeartQueen(SideBet):
    name: ClassVar[str] = NAME
    outcomes: ClassVar[tuple[str, ...]] = ("QUEEN",)
    presets: ClassVar = {"fifty": {"QUEEN": 5000}, "forty": {"QUEEN": 4000}}
    default_preset: ClassVar[str] = "fifty"

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        won = sum(counts[card.index] for card in winners(DealerRule.parse(rule)))
        return {"QUEEN": won}, sum(counts)

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        if not deal.player:
            return None
        return "QUEEN" if deal.player[0] in winners(deal.rule) else "LOSE"


def register(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(library.BETS, NAME, HeartQueen())  # type: ignore[arg-type]


def full_shoe_rtp(decks: int, rule: DealerRule, pays: int) -> Fraction:
    return Fraction(pays + 100, 100) * Fraction(len(winners(rule)) * decks, 52 * decks)


def effect_of_removal(decks: int, rule: DealerRule, pays: int) -> dict[str, Fraction]:
    """By hand: a card of the rank leaves, a winner with chance 1/4 if the rank has one."""
    n, won = 52 * decks, len(winners(rule)) * decks
    out = {}
    for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
        hit = Fraction(sum(card.rank.symbol == rank for card in winners(rule)), 4)
        after = hit * Fraction(won - 1, n - 1) + (1 - hit) * Fraction(won, n - 1)
        out[rank] = Fraction(pays + 100, 100) * (after - Fraction(won, n))
    return out
