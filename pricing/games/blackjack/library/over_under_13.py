"""Over 13 and Under 13 (docs/rules.md §3.8.7), two bets on the seat's first two cards counted
with an ace as 1 (J, Q, K as 10): Over 13 wins on a total over 13, Under 13 on a total under
13, and a total of exactly 13 loses both.
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.kernel_bets import TwoCardBet

__all__ = ["Over13", "Under13"]


class Over13(TwoCardBet):
    name: ClassVar[str] = "OVER_13"
    outcomes: ClassVar[tuple[str, ...]] = ("OVER",)
    presets: ClassVar = {"even-money": {"OVER": 100}}
    default_preset: ClassVar[str] = "even-money"


class Under13(TwoCardBet):
    name: ClassVar[str] = "UNDER_13"
    outcomes: ClassVar[tuple[str, ...]] = ("UNDER",)
    presets: ClassVar = {"even-money": {"UNDER": 100}}
    default_preset: ClassVar[str] = "even-money"
