"""Royal Match 21 (docs/rules.md §2): the seat's first two cards suited (EASY) or a suited K-Q
(ROYAL), and Crown Treasure when the dealer's first two are a suited K-Q too (CROWN). A
paytable without a CROWN entry has Crown Treasure off: a Crown deal is a ROYAL.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar

from pricing import _blackjack
from pricing.games.blackjack.hands import classify_royal_match
from pricing.games.blackjack.library.base import Deal, Paytable, SideBet
from pricing.games.blackjack.paytables import RoyalMatchPaytable
from pricing.games.blackjack.rules import DealerRule

__all__ = ["RoyalMatch", "two_card_ways"]


@functools.lru_cache(maxsize=8)
def two_card_ways(
    counts: tuple[int, ...],
) -> tuple[tuple[int, int, int, int, int], tuple[int, int, int, int, int]]:
    """The kernel's Royal Match and pairs ways of one shoe, counted once for both bets."""
    rm, pp = _blackjack.side_bet_ways_counts(counts)
    return rm, pp


class RoyalMatch(SideBet):
    name: ClassVar[str] = "ROYAL_MATCH"
    outcomes: ClassVar[tuple[str, ...]] = ("CROWN", "ROYAL", "EASY")
    presets: ClassVar = {
        "crown-treasure": {"CROWN": 100_000, "ROYAL": 2500, "EASY": 250},
        "standard": {"ROYAL": 2500, "EASY": 250},
        "3-10": {"ROYAL": 1000, "EASY": 300},
    }
    default_preset: ClassVar[str] = "crown-treasure"

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        (crown, royal, easy, _lose, total), _ = two_card_ways(tuple(counts))
        if "CROWN" in paytable.pays:
            return {"CROWN": crown, "ROYAL": royal, "EASY": easy}, total
        return {"ROYAL": crown + royal, "EASY": easy}, total

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        if len(deal.player) < 2:
            return None
        outcome, _ = classify_royal_match(deal.player, deal.dealer[:2], royal_match(paytable))
        return outcome


def royal_match(paytable: Paytable) -> RoyalMatchPaytable:
    """The engine's Royal Match paytable of a library paytable."""
    pays = paytable.pays
    return RoyalMatchPaytable(pays["ROYAL"], pays["EASY"], pays.get("CROWN"))
