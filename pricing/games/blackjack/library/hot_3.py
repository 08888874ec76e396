"""Hot 3 (docs/rules.md §3.8.2): the seat's first two cards and the dealer's up card as one
blackjack total (an ace 1 or 11, the best total up to 21) — three sevens, a suited 21, 21, 20
or 19.
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.kernel_bets import ThreeCardBet

__all__ = ["Hot3"]


class Hot3(ThreeCardBet):
    name: ClassVar[str] = "HOT_3"
    outcomes: ClassVar[tuple[str, ...]] = (
        "SEVENS",
        "SUITED_21",
        "TWENTY_ONE",
        "TWENTY",
        "NINETEEN",
    )
    presets: ClassVar = {
        "evolution": {
            "SEVENS": 10_000,
            "SUITED_21": 2000,
            "TWENTY_ONE": 400,
            "TWENTY": 200,
            "NINETEEN": 100,
        },
    }
    default_preset: ClassVar[str] = "evolution"
