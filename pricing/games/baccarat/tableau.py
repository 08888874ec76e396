"""Baccarat's drawing rules, the tableau (docs/rules.md §7): card values, totals, naturals,
which hand the next card of a round goes to, and why a card a dealer reports for a hand is
not the one the rules call for.

The round: two cards to each hand (the first four cards, in any order: a card reader may
report them as they are revealed, and which hand a card is for is what counts), then the
third cards. A natural (8 or 9 on a hand's first two cards) stands both hands. Otherwise the
Player draws on 0–5 and stands on 6–7; a Player who stood leaves the Banker to draw on 0–5;
after a Player's third card the Banker draws by its two-card total and that card's value.
The same rules are written once more, in C, in the odds kernel (``ext/pricing/_baccarat.pyx``).

>>> from pricing.cards import parse_cards
>>> player, banker = parse_cards(["4H", "KS"]), parse_cards(["3D", "2C"])
>>> total(player), total(banker), [str(h) for h in next_hands(player, banker)]
(4, 5, ['PLAYER'])
>>> refusal(player, banker, Hand.BANKER)
'the player draws first, on 4'
>>> player.append(parse_cards(["7C"])[0])  # the Player's third card is a 7: 5 draws
>>> [str(h) for h in next_hands(player, banker)], is_complete(player, banker)
(['BANKER'], False)
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from pricing.cards import Card, Rank

__all__ = [
    "Hand",
    "banker_draws",
    "is_complete",
    "is_natural",
    "next_hand_dealt",
    "next_hands",
    "refusal",
    "total",
    "value",
]

#: The two-card totals a hand stands on without drawing (when neither hand has a natural).
STANDS_FROM: Final = 6
#: The lowest natural.
NATURAL: Final = 8


class Hand(StrEnum):
    """The two hands of a round."""

    PLAYER = "PLAYER"
    BANKER = "BANKER"

    @property
    def text(self) -> str:
        """How a dealer says it: ``the player``."""
        return f"the {self.value.lower()}"


def value(card: Card) -> int:
    """A card's points: ace 1, 2–9 their face, 10 J Q K nothing.

    >>> from pricing.cards import parse_card
    >>> value(parse_card("AS")), value(parse_card("9D")), value(parse_card("QH"))
    (1, 9, 0)
    """
    return int(card.rank) if card.rank < Rank.TEN else 0


def total(cards: Sequence[Card]) -> int:
    """A hand's total: the sum of its cards' values, modulo 10.

    >>> from pricing.cards import parse_cards
    >>> total(parse_cards(["7S", "8S"])), total(parse_cards(["KS", "10D", "JH"]))
    (5, 0)
    """
    return sum(value(card) for card in cards) % 10


def is_natural(cards: Sequence[Card]) -> bool:
    """Exactly two cards totalling 8 or 9.

    >>> from pricing.cards import parse_cards
    >>> is_natural(parse_cards(["4S", "4D"])), is_natural(parse_cards(["4S", "4D", "KH"]))
    (True, False)
    """
    return len(cards) == 2 and total(cards) >= NATURAL


#: After a Player's third card, the values of that card a Banker draws on, by its two-card
#: total (0–7; 8 and 9 are naturals). A Player who stood leaves the Banker to draw on 0–5.
BANKER_DRAWS_ON: Final[tuple[frozenset[int], ...]] = (
    frozenset(range(10)),
    frozenset(range(10)),
    frozenset(range(10)),
    frozenset(range(10)) - {8},
    frozenset(range(2, 8)),
    frozenset(range(4, 8)),
    frozenset(range(6, 8)),
    frozenset(),
)


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """Whether a Banker on a two-card ``banker_total`` draws (neither hand has a natural):
    ``player_third`` is the value of the Player's third card, ``None`` when the Player stood.

    >>> banker_draws(3, 8), banker_draws(3, 9), banker_draws(6, 7), banker_draws(6, None)
    (False, True, True, False)
    """
    if player_third is None:
        return banker_total < STANDS_FROM
    return banker_total < NATURAL and player_third in BANKER_DRAWS_ON[banker_total]


def _check(player: Sequence[Card], banker: Sequence[Card]) -> None:
    """``ValueError`` for hands no round reaches by the tableau (a caller's bug: a live table
    asks ``refusal`` before it accepts each card)."""
    if len(player) > 3 or len(banker) > 3:
        raise ValueError(f"a hand holds at most three cards, got {len(player)} and {len(banker)}")
    for hand, cards in ((player, banker), (banker, player)):
        if len(hand) == 3 and (len(cards) < 2 or is_natural(cards[:2]) or is_natural(hand[:2])):
            raise ValueError("a third card is only dealt after the first four, with no natural")
    if len(player) == 3 and total(player[:2]) >= STANDS_FROM:
        raise ValueError(f"the player stands on {total(player[:2])}: no third card")
    if len(banker) == 3:
        third = value(player[2]) if len(player) == 3 else None
        if len(player) == 2 and total(player) < STANDS_FROM:
            raise ValueError("the banker's third card comes after the player's")
        if not banker_draws(total(banker[:2]), third):
            raise ValueError(f"the banker stands on {total(banker[:2])}: no third card")


def next_hands(player: Sequence[Card], banker: Sequence[Card]) -> frozenset[Hand]:
    """The hands the next card of the round may go to: until the first four are out, either
    hand still short of two cards; then the one third card the tableau calls for, if any.
    Empty: the round is complete. ``ValueError`` for hands no round reaches.

    >>> from pricing.cards import parse_cards
    >>> sorted(str(h) for h in next_hands(parse_cards(["AS"]), []))
    ['BANKER', 'PLAYER']
    >>> next_hands(parse_cards(["9S", "KD"]), parse_cards(["2S", "3D"]))
    frozenset()
    """
    _check(player, banker)
    if len(player) < 2 or len(banker) < 2:
        short = ((Hand.PLAYER, player), (Hand.BANKER, banker))
        return frozenset(h for h, cards in short if len(cards) < 2)
    if is_natural(player) or is_natural(banker):
        return frozenset()
    if len(player) == 2 and total(player) < STANDS_FROM:
        return frozenset({Hand.PLAYER})
    if len(banker) == 2:
        third = value(player[2]) if len(player) == 3 else None
        if banker_draws(total(banker), third):
            return frozenset({Hand.BANKER})
    return frozenset()


def next_hand_dealt(player: Sequence[Card], banker: Sequence[Card]) -> Hand | None:
    """The hand a dealer deals the next card to in the usual order (Player, Banker, Player,
    Banker, then the third cards the tableau calls for); ``None``: the round is complete.
    A card reader may report the first four in any order (``next_hands``): this is the order
    a simulated dealer deals them in.

    >>> from pricing.cards import parse_cards
    >>> ace, two = parse_cards(["AS", "2S"])
    >>> str(next_hand_dealt([ace], [])), str(next_hand_dealt([ace], [two]))
    ('BANKER', 'PLAYER')
    """
    wanted = next_hands(player, banker)
    if Hand.PLAYER in wanted and (len(player) <= len(banker) or Hand.BANKER not in wanted):
        return Hand.PLAYER
    return Hand.BANKER if Hand.BANKER in wanted else None


def is_complete(player: Sequence[Card], banker: Sequence[Card]) -> bool:
    """The round is over: no card is to come."""
    return not next_hands(player, banker)


def refusal(player: Sequence[Card], banker: Sequence[Card], hand: Hand) -> str | None:
    """``None`` when a card for ``hand`` is what the tableau calls for next; otherwise the rule
    it breaks, in words a dealer understands. ``ValueError`` for hands no round reaches.

    >>> from pricing.cards import parse_cards
    >>> p, b = parse_cards(["5S", "2D"]), parse_cards(["7H", "KC"])
    >>> refusal(p, b, Hand.PLAYER), refusal(p, b, Hand.BANKER)
    ('the player stands on 7', 'the banker stands on 7')
    >>> refusal(parse_cards(["9S", "KD"]), parse_cards(["2S"]), Hand.PLAYER)
    'the player already has two cards and the banker does not'
    >>> refusal(parse_cards(["9S", "KD"]), parse_cards(["2S", "2C"]), Hand.BANKER)
    'a natural 9: both hands stand'
    >>> refusal(parse_cards(["AS", "KD", "8C"]), parse_cards(["2S", "AC"]), Hand.BANKER)
    "the banker stands on 3 when the player's third card is worth 8"
    """
    hand = Hand(hand)
    wanted = next_hands(player, banker)
    if hand in wanted:
        return None
    cards = player if hand is Hand.PLAYER else banker
    if len(player) < 2 or len(banker) < 2:
        other = Hand.BANKER if hand is Hand.PLAYER else Hand.PLAYER
        return f"{hand.text} already has two cards and {other.text} does not"
    naturals = [total(h) for h in (player, banker) if is_natural(h)]
    if naturals:
        return f"a natural {max(naturals)}: both hands stand"
    if len(cards) == 3:
        return f"{hand.text} already has three cards" if wanted else "the round is complete"
    if Hand.PLAYER in wanted:  # a card for the Banker before the Player's third
        return f"the player draws first, on {total(player)}"
    if hand is Hand.PLAYER:
        return f"the player stands on {total(player)}"
    if len(player) == 2 or total(banker) == 7:
        return f"the banker stands on {total(banker)}"
    return (
        f"the banker stands on {total(banker)} when the player's third card is worth "
        f"{value(player[2])}"
    )
