"""Lucky Lucky (docs/rules.md §3.8.4): the seat's first two cards and the dealer's up card —
a 7-7-7 or a 6-7-8, suited or not, else their blackjack total (an ace 1 or 11, the best total
up to 21): a suited 21, 21, 20 or 19. Only the highest award pays.
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.kernel_bets import ThreeCardBet

__all__ = ["LuckyLucky"]


class LuckyLucky(ThreeCardBet):
    name: ClassVar[str] = "LUCKY_LUCKY"
    outcomes: ClassVar[tuple[str, ...]] = (
        "SUITED_777",
        "SUITED_678",
        "SEVENS",
        "SIX_SEVEN_EIGHT",
        "SUITED_21",
        "TWENTY_ONE",
        "TWENTY",
        "NINETEEN",
    )
    presets: ClassVar = {
        "table-1": {
            "SUITED_777": 20_000,
            "SUITED_678": 10_000,
            "SEVENS": 5000,
            "SIX_SEVEN_EIGHT": 3000,
            "SUITED_21": 1500,
            "TWENTY_ONE": 300,
            "TWENTY": 200,
            "NINETEEN": 200,
        },
    }
    default_preset: ClassVar[str] = "table-1"
