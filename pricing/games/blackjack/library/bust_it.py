"""Bust It (docs/rules.md §3.8): the dealer busts with exactly three cards, paid by the third
card's rank, and more on a dealer 8-8-8 of one colour (SAME_COLOUR_888) or one suit
(SUITED_888), which pays only its own award.

The bet is placed before the deal and settled on the dealer's finished hand, by the table's
dealer rule; the dealer completes the hand even when every player has busted. Its odds are
counted with Buster's in one pass of the kernel (``pricing._dealer_bust``) per shoe.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar

from pricing import _dealer_bust
from pricing.cards import Card, Rank
from pricing.games.blackjack.hands import dealer_hand_result, played_dealer_hand
from pricing.games.blackjack.library.base import Deal, Paytable, SideBet
from pricing.games.blackjack.rules import DealerRule

__all__ = ["BustIt", "dealer_bust_ways", "finished_dealer_hand"]


@functools.lru_cache(maxsize=8)
def dealer_bust_ways(
    counts: tuple[int, ...], rule: DealerRule
) -> tuple[dict[str, int], dict[str, int], int]:
    """Bust It's and Buster's ways for the next round dealt from ``counts`` by ``rule``, over
    one common total (0: the shoe cannot complete every dealer hand), counted once for both
    bets."""
    bust_it, buster, total = _dealer_bust.dealer_bust_ways(counts, rule is DealerRule.H17)
    return (
        dict(zip(_dealer_bust.BUST_IT_OUTCOMES, bust_it, strict=True)),
        dict(zip(_dealer_bust.BUSTER_OUTCOMES, buster, strict=True)),
        total,
    )


def finished_dealer_hand(deal: Deal) -> tuple[tuple[Card, ...], str] | None:
    """The dealer's hand of ``deal`` (up to the card that ended it) and its result (``BJ``,
    ``BUST``, ``17`` … ``21``), or ``None`` when the hand is not finished: a round ended
    before the dealer's hand was over voids a dealer-drawing bet."""
    hand = played_dealer_hand(deal.dealer, deal.rule)
    result = dealer_hand_result(hand, deal.rule)
    return None if result is None else (hand, result)


_THIRD_CARD: dict[Rank, str] = {
    Rank.SIX: "BUST_6",
    Rank.SEVEN: "BUST_7",
    Rank.EIGHT: "BUST_8",
    Rank.NINE: "BUST_9",
    Rank.TEN: "BUST_TEN",
    Rank.JACK: "BUST_TEN",
    Rank.QUEEN: "BUST_TEN",
    Rank.KING: "BUST_TEN",
}


class BustIt(SideBet):
    name: ClassVar[str] = "BUST_IT"
    outcomes: ClassVar[tuple[str, ...]] = (
        "SUITED_888",
        "SAME_COLOUR_888",
        "BUST_6",
        "BUST_7",
        "BUST_8",
        "BUST_9",
        "BUST_TEN",
    )
    presets: ClassVar = {
        "galaxy": {
            "SUITED_888": 20_000,
            "SAME_COLOUR_888": 5000,
            "BUST_6": 1500,
            "BUST_7": 900,
            "BUST_8": 700,
            "BUST_9": 500,
            "BUST_TEN": 300,
        },
    }
    default_preset: ClassVar[str] = "galaxy"
    dealer_drawing: ClassVar[bool] = True
    dealer_cards: ClassVar[int | None] = None

    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        bust_it, _, total = dealer_bust_ways(tuple(counts), DealerRule.parse(rule))
        return dict(bust_it), total

    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        finished = finished_dealer_hand(deal)
        if finished is None:
            return None
        hand, result = finished
        if result != "BUST" or len(hand) != 3:
            return "LOSE"
        if all(card.rank is Rank.EIGHT for card in hand):
            if len({card.suit for card in hand}) == 1:
                return "SUITED_888"
            if len({card.suit.is_red for card in hand}) == 1:
                return "SAME_COLOUR_888"
        # A two-card hard 12-16 busts on a 6 or more: the third card is one of these.
        return _THIRD_CARD[hand[2].rank]
