"""Buster (docs/rules.md §3.8): the dealer busts, paid by the number of cards in the busted
hand (3 or 4, 5, 6, 7, 8 or more); a dealer blackjack is no bust.

The bet is placed before the deal and settled on the dealer's finished hand, by the table's
dealer rule (soft 17 matters: a hand that hits it may bust); the dealer completes the hand
even when every player has busted. Its odds are counted with Bust It's in one pass of the
kernel per shoe (``bust_it.dealer_bust_ways``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pricing.games.blackjack.library.base import Deal, Paytable, SideBet
from pricing.games.blackjack.library.bust_it import dealer_bust_ways, finished_dealer_hand
from pricing.games.blackjack.rules import DealerRule

__all__ = ["Buster"]

_BY_CARDS: dict[int, str] = {
    3: "BUST_3_OR_4",
    4: "BUST_3_OR_4",
    5: "BUST_5",
    6: "BUST_6",
    7: "BUST_7",
}


class Buster(SideBet):
    name: ClassVar[str] = "BUSTER"
    outcomes: ClassVar[tuple[str, ...]] = (
        "BUST_8_PLUS",
        "BUST_7",
        "BUST_6",
        "BUST_5",
        "BUST_3_OR_4",
    )
    presets: ClassVar = {
        # 6 cards pays 12: the published house edge (6.2143 %, six decks, H17) is computed
        # with 12, though the same page's paytable prints 15 (docs/rules.md §3.8).
        "ags": {
            "BUST_8_PLUS": 25_000,
            "BUST_7": 5000,
            "BUST_6": 1200,
            "BUST_5": 400,
            "BUST_3_OR_4": 200,
        },
    }
    default_preset: ClassVar[str] = "ags"
    dealer_drawing: ClassVar[bool] = True
    dealer_cards: ClassVar[int | None] = None

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        _, buster, total = dealer_bust_ways(tuple(counts), DealerRule.parse(rule))
        return dict(buster), total

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        finished = finished_dealer_hand(deal)
        if finished is None:
            return None
        hand, result = finished
        if result != "BUST":  # a blackjack, or the hand stood
            return "LOSE"
        return _BY_CARDS.get(len(hand), "BUST_8_PLUS")
