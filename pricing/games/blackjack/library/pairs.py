"""The pair bets on the seat's first two cards (docs/rules.md §3.6): Perfect Pairs (PERFECT:
identical cards, COLOURED: same rank and colour, MIXED: same rank, other colour) in three
paytables, or any pair (PAIR).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pricing.games.blackjack.hands import classify_pair
from pricing.games.blackjack.library.base import Deal, Paytable, SideBet
from pricing.games.blackjack.library.royal_match import two_card_ways
from pricing.games.blackjack.paytables import PairsPaytable
from pricing.games.blackjack.rules import DealerRule

__all__ = ["Pairs", "pairs"]


class Pairs(SideBet):
    name: ClassVar[str] = "PAIRS"
    outcomes: ClassVar[tuple[str, ...]] = ("PERFECT", "COLOURED", "MIXED", "PAIR")
    presets: ClassVar = {
        "perfect-pairs": {"PERFECT": 2500, "COLOURED": 1200, "MIXED": 600},
        "any-pair": {"PAIR": 1100},
        "perfect-pairs-30-10-5": {"PERFECT": 3000, "COLOURED": 1000, "MIXED": 500},
        "perfect-pairs-25-12-5": {"PERFECT": 2500, "COLOURED": 1200, "MIXED": 500},
    }
    default_preset: ClassVar[str] = "perfect-pairs"
    dealer_cards: ClassVar[int | None] = 0

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        _, (perfect, coloured, mixed, _no_pair, total) = two_card_ways(tuple(counts))
        if "PAIR" in paytable.pays:
            return {"PAIR": perfect + coloured + mixed}, total
        return {"PERFECT": perfect, "COLOURED": coloured, "MIXED": mixed}, total

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        if len(deal.player) < 2:
            return None
        outcome, _ = classify_pair(deal.player, pairs(paytable))
        return outcome


def pairs(paytable: Paytable) -> PairsPaytable:
    """The engine's pairs paytable of a library paytable."""
    pays = paytable.pays
    if "PAIR" in pays:
        return PairsPaytable(pair_hundredths=pays["PAIR"])
    return PairsPaytable(
        perfect_hundredths=pays["PERFECT"],
        coloured_hundredths=pays["COLOURED"],
        mixed_hundredths=pays["MIXED"],
    )
