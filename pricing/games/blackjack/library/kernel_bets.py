"""What the library's three-card and two-card bets share (docs/rules.md §3.8): the side-bet
kernel (``pricing._side_bets``) counts every three-card bet in one pass over a shoe and every
two-card bet in another; each pass runs once per shoe, whichever of its bets a table offers,
and a bet reads its own ways from it. A dealt hand is settled by the same kernel's reading of
the rule, so a price and a settlement cannot disagree.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from pricing import _side_bets
from pricing.games.blackjack.library.base import Deal, Paytable, SideBet
from pricing.games.blackjack.rules import DealerRule

__all__ = ["ThreeCardBet", "TwoCardBet", "three_card_ways", "two_card_ways"]

_Ways = Mapping[str, tuple[tuple[int, ...], int]]


@functools.lru_cache(maxsize=8)
def three_card_ways(counts: tuple[int, ...]) -> _Ways:
    """The kernel's ways of every three-card bet on one shoe (``{bet: (ways, total)}``),
    counted once for all of them."""
    return _side_bets.three_card_ways(counts)


@functools.lru_cache(maxsize=8)
def two_card_ways(counts: tuple[int, ...]) -> _Ways:
    """The kernel's ways of every two-card bet on one shoe, counted once for all of them."""
    return _side_bets.two_card_ways(counts)


class ThreeCardBet(SideBet):
    """A bet on the seat's first two cards and the dealer's up card: ``C(N, 2) × (N − 2)``
    deals of a shoe of ``N`` cards. Refunded when the seat has fewer than two cards or the
    dealer none."""

    dealer_cards: ClassVar[int | None] = 1

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        ways, total = three_card_ways(tuple(counts))[self.name]
        return dict(zip(self.outcomes, ways, strict=True)), total

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        if len(deal.player) < 2 or not deal.dealer:
            return None
        a, b = deal.player[:2]
        return _side_bets.three_card_outcome(self.name, a.index, b.index, deal.dealer[0].index)


class TwoCardBet(SideBet):
    """A bet on the seat's first two cards (Lucky Ladies: and the dealer's first two).
    Refunded when the seat has fewer than two cards."""

    dealer_cards: ClassVar[int | None] = 0

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        ways, total = two_card_ways(tuple(counts))[self.name]
        return dict(zip(self.outcomes, ways, strict=True)), total

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        if len(deal.player) < 2:
            return None
        a, b = deal.player[:2]
        dealer = [card.index for card in deal.dealer[:2]]
        return _side_bets.two_card_outcome(self.name, a.index, b.index, dealer)
