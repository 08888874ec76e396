"""The main game's figures a live blackjack table calls for (docs/rules.md §3.9): which seats'
hands are in play against which up card, on which shoe, and the shoe the next round's player
edge is for. Pure: what a state calls for is a function of its cards alone, so every server
holding the table (a replica, a restarted one) asks for the same figures and gets the same.

The feed has no player-action events, so a seat's hand is all its PLAYER cards of the round
(split hands are not tracked: a Quote still prices SPLIT). A hand is in play from its second
card while the round's up card (its first DEALER card) is the dealer's only card, until it
reaches 21 or busts. The next round's edge is for the shoe as the last round left it (the
round's own cards back in it while it is dealt), so it holds through the round it is for.

>>> from pricing.games.events import CardRole, ExposeCard
>>> shoe = BlackjackShoe(decks=6)
>>> for text, role, seat in [("9S", CardRole.PLAYER, 1), ("6D", CardRole.DEALER, 0),
...                          ("7H", CardRole.PLAYER, 1), ("KC", CardRole.PLAYER, 2)]:
...     shoe = shoe.apply(ExposeCard(Card.parse(text), role, seat))
>>> hands = ((Card.parse("9S"), Card.parse("7H")), (Card.parse("KC"),))
>>> work = live_work(shoe, hands, MainGameRules())
>>> work.up, [(h.seat, [str(c) for c in h.cards]) for h in work.hands]
(Card.parse('6D'), [(1, ['9S', '7H'])])
>>> sum(work.counts), sum(work.edge_shoe)  # the shoe now; the one the round was dealt from
(308, 312)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pricing import _blackjack
from pricing.cards import CARD_INDEX, Card, card_index
from pricing.errors import IllegalMove
from pricing.games.blackjack.decisions import HandDecisions, MainGameRules, decisions, player_edge
from pricing.games.blackjack.hands import hand_total
from pricing.games.blackjack.shoe import BlackjackShoe

__all__ = ["HandInPlay", "LiveWork", "edge", "hand_decisions", "live_work"]


@dataclass(frozen=True, slots=True)
class HandInPlay:
    """One seat's hand while its player still decides: every PLAYER card of the round."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class LiveWork:
    """What figures one state of a table calls for: the decisions of each hand in play against
    ``up`` on the shoe ``counts`` (every card seen out of it), and the next round's edge on the
    shoe ``edge_shoe`` (52 counts by ``Card.index``), under ``rules``."""

    rules: MainGameRules
    up: Card | None
    hands: tuple[HandInPlay, ...]
    counts: tuple[int, ...]
    edge_shoe: tuple[int, ...]

    def decisions(self, hand: HandInPlay) -> HandDecisions | None:
        """``hand``'s decisions; None when the shoe could run out during it."""
        assert self.up is not None  # a hand is in play only against an up card
        return hand_decisions(hand.cards, self.up, self.counts, self.rules)

    def edge(self) -> float | None:
        """The next round's player edge; None when the shoe could run out during a round."""
        return edge(self.edge_shoe, self.rules)


def hand_decisions(
    cards: Sequence[Card], up: Card, counts: Sequence[int], rules: MainGameRules
) -> HandDecisions | None:
    """``decisions``, or None where the shoe could run out (no figures, not an error)."""
    try:
        return decisions(cards, up, counts, rules)
    except IllegalMove:
        return None


@lru_cache(maxsize=256)
def edge(counts: tuple[int, ...], rules: MainGameRules) -> float | None:
    """``player_edge`` with the composition-dependent strategy, or None where the shoe could
    run out. Remembered: every fresh shoe of a size and rules has the same edge (a new table,
    a new shoe, each round of a continuous shuffle), and the kernel takes about 0.1 s on a
    full 6–8 deck shoe."""
    try:
        return player_edge(counts, rules)
    except IllegalMove:
        return None


def live_work(
    shoe: BlackjackShoe, hands: Sequence[tuple[Card, ...]], rules: MainGameRules
) -> LiveWork:
    """The figures a table's ``shoe`` calls for, its seats' PLAYER cards of the round being
    ``hands`` (seat ``n``'s at index ``n - 1``), under the table's main-game ``rules``."""
    dealer = shoe.dealer_cards
    up = dealer[0] if dealer else None
    in_play: tuple[HandInPlay, ...] = ()
    if len(dealer) == 1:  # a second dealer card: the players' turn is over
        in_play = tuple(
            HandInPlay(seat, cards)
            for seat, cards in enumerate(hands, start=1)
            if len(cards) >= 2 and hand_total(cards)[0] < 21
        )
    # The shoe the round was dealt from: the cards seen before it (every card of the round is
    # the last ones of ``exposed``); after EndRound, the shoe the next round is dealt from.
    before = shoe.exposed[: len(shoe.exposed) - len(shoe.round_exposed)]
    if len(before) == len(shoe.exposed):
        edge_shoe = shoe.counts
    else:
        edge_shoe = _blackjack.shoe_counts(before, CARD_INDEX, card_index, shoe.decks)
    return LiveWork(rules, up, in_play, shoe.counts, edge_shoe)
