"""Top 3 (docs/rules.md §3.8.5): the seat's first two cards and the dealer's up card as a
three-card poker hand, paid only for the top three of 21+3's hands — suited trips, a straight
flush (A-2-3 and Q-K-A count, K-A-2 does not) or trips.
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.kernel_bets import ThreeCardBet

__all__ = ["Top3"]


class Top3(ThreeCardBet):
    name: ClassVar[str] = "TOP_3"
    outcomes: ClassVar[tuple[str, ...]] = ("SUITED_TRIPS", "STRAIGHT_FLUSH", "TRIPS")
    presets: ClassVar = {
        "galaxy": {"SUITED_TRIPS": 27_000, "STRAIGHT_FLUSH": 18_000, "TRIPS": 9000},
    }
    default_preset: ClassVar[str] = "galaxy"
