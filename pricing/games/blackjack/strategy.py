"""A simple blackjack basic strategy (hit or stand only), for dealing demo rounds.

``pricing simulate --game blackjack`` plays every seat's hand with it, so the cards a demo
table sees come out in the order a real table deals them. It is the textbook hit/stand chart
for a multi-deck shoe without doubles or splits; the service itself never plays a hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from pricing.cards import Card, Rank, parse_card
from pricing.games.blackjack.hands import hand_total

__all__ = ["player_draws"]


def _up_value(card: Card) -> int:
    """The dealer's up card as the chart reads it: 2–10, an ace 11."""
    return 11 if card.rank is Rank.ACE else min(int(card.rank), 10)


def player_draws(hand: Sequence[Card | str], dealer_up: Card | str) -> bool:
    """Whether a player holding ``hand`` takes another card against ``dealer_up``.

    A hand stops on a blackjack, on 21 and on a bust. Otherwise: a soft hand draws to 17,
    and on soft 18 against a 9, a ten or an ace; a hard hand draws to 11, on 12 unless the
    dealer shows 4–6, and on 13–16 unless the dealer shows 2–6.

    >>> player_draws(["AS", "KH"], "10D"), player_draws(["KS", "6H"], "5D")
    (False, False)
    >>> player_draws(["KS", "6H"], "7D"), player_draws(["AS", "7H"], "9D")
    (True, True)
    """
    total, soft = hand_total(hand)
    if total >= 21:
        return False
    up = _up_value(parse_card(dealer_up))
    if soft:
        return total <= 17 or (total == 18 and up >= 9)
    if total <= 11:
        return True
    if total == 12:
        return not 4 <= up <= 6
    if total <= 16:
        return up >= 7
    return False
