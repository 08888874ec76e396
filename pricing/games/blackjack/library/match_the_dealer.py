"""Match the Dealer (docs/rules.md §3.8.6): each of the seat's first two cards of the dealer's
up card's rank wins — a suited match (same suit too) or an unsuited match — and when both
match, both are paid. The paytable prices one match (``SUITED_MATCH``, ``UNSUITED_MATCH``);
an outcome pays the sum of its matches.
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.base import Paytable
from pricing.games.blackjack.library.kernel_bets import ThreeCardBet

__all__ = ["MatchTheDealer"]


class MatchTheDealer(ThreeCardBet):
    name: ClassVar[str] = "MATCH_THE_DEALER"
    outcomes: ClassVar[tuple[str, ...]] = (
        "TWO_SUITED",
        "SUITED_AND_UNSUITED",
        "TWO_UNSUITED",
        "SUITED",
        "UNSUITED",
    )
    presets: ClassVar = {
        "six-deck": {"SUITED_MATCH": 1100, "UNSUITED_MATCH": 400},
        "eight-deck": {"SUITED_MATCH": 1400, "UNSUITED_MATCH": 300},
    }
    default_preset: ClassVar[str] = "six-deck"

    def outcome_pays(self, paytable: Paytable) -> dict[str, int]:
        """Each outcome pays the sum of its matches: two suited matches twice a suited one."""
        suited = paytable.pays["SUITED_MATCH"]
        unsuited = paytable.pays["UNSUITED_MATCH"]
        return {
            "TWO_SUITED": 2 * suited,
            "SUITED_AND_UNSUITED": suited + unsuited,
            "TWO_UNSUITED": 2 * unsuited,
            "SUITED": suited,
            "UNSUITED": unsuited,
        }
