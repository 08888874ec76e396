"""21+3 (docs/rules.md §3.8.1): the seat's first two cards and the dealer's up card as a
three-card poker hand — suited trips (three identical cards), a straight flush, trips, a
straight (A-2-3 and Q-K-A are straights, K-A-2 is not) or a flush. The five-tier paytable pays
each its own; the original pays 9 : 1 for any of them.
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.kernel_bets import ThreeCardBet

__all__ = ["TwentyOnePlusThree"]


class TwentyOnePlusThree(ThreeCardBet):
    name: ClassVar[str] = "TWENTY_ONE_PLUS_THREE"
    outcomes: ClassVar[tuple[str, ...]] = (
        "SUITED_TRIPS",
        "STRAIGHT_FLUSH",
        "TRIPS",
        "STRAIGHT",
        "FLUSH",
    )
    presets: ClassVar = {
        "five-tier": {
            "SUITED_TRIPS": 10_000,
            "STRAIGHT_FLUSH": 4000,
            "TRIPS": 3000,
            "STRAIGHT": 1000,
            "FLUSH": 500,
        },
        "flat-9": dict.fromkeys(outcomes, 900),
    }
    default_preset: ClassVar[str] = "five-tier"
