"""Lucky Ladies (docs/rules.md §3.8.3): the seat's first two cards totalling 20 as a blackjack
hand (A-9 is 20) — two queens of hearts with a dealer blackjack, two queens of hearts, a
matched 20 (identical cards), a suited 20 or any 20. The dealer's blackjack is made by the
dealer's first two cards; a Q♥ pair in a round that ends before the dealer's second card is
refunded (its award was never decided).
"""

from __future__ import annotations

from typing import ClassVar

from pricing.games.blackjack.library.base import Deal, Paytable
from pricing.games.blackjack.library.kernel_bets import TwoCardBet

__all__ = ["LuckyLadies"]


class LuckyLadies(TwoCardBet):
    name: ClassVar[str] = "LUCKY_LADIES"
    outcomes: ClassVar[tuple[str, ...]] = (
        "QH_PAIR_DEALER_BLACKJACK",
        "QH_PAIR",
        "MATCHED_20",
        "SUITED_20",
        "ANY_20",
    )
    presets: ClassVar = {
        "a": {
            "QH_PAIR_DEALER_BLACKJACK": 100_000,
            "QH_PAIR": 12_500,
            "MATCHED_20": 1900,
            "SUITED_20": 900,
            "ANY_20": 400,
        },
        "b": {
            "QH_PAIR_DEALER_BLACKJACK": 100_000,
            "QH_PAIR": 20_000,
            "MATCHED_20": 2500,
            "SUITED_20": 1000,
            "ANY_20": 400,
        },
    }
    default_preset: ClassVar[str] = "a"
    dealer_cards: ClassVar[int | None] = 2  # the top award reads the dealer's first two

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        """As priced: the dealer's second card decides a Q♥ pair's award, so a Q♥ pair whose
        round ended before it was dealt is refunded (the price counted it as dealt)."""
        outcome = super().outcome(deal, paytable)
        if outcome == "QH_PAIR" and len(deal.dealer) < 2:
            return None
        return outcome
